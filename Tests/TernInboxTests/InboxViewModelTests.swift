import Foundation
import Testing

@testable import TernInbox

/// The inbox screen's decisions, without a UI.
@Suite struct InboxViewModelTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)
    static var nowMs: Int64 { Int64(now.timeIntervalSince1970 * 1000) }

    static func message(
        _ id: String, read: Bool = false, ageMs: Int64 = 60_000, expiresInMs: Int64 = 86_400_000, link: String? = nil,
        data: [String: JSONValue] = [:]
    ) -> InboxMessage {
        InboxMessage(
            id: id, title: "t \(id)", body: "b", imageURL: nil, link: link, data: data, createdAt: nowMs - ageMs,
            expiresAt: nowMs + expiresInMs, read: read)
    }

    @Test func rowsLeaveOutExpiredAndUnreadIsReportedOnlyWhenItChanges() {
        var model = InboxViewModel(locale: Locale(identifier: "en_US"))
        let snapshot = InboxSnapshot(
            messages: [Self.message("i_2"), Self.message("i_1", read: true), Self.message("i_0", expiresInMs: -1)],
            unread: 2)
        #expect(model.apply(snapshot, now: Self.now) == 1)
        #expect(model.screen.rows.map(\.id) == ["i_2", "i_1"])
        #expect(model.screen.unread == 1)
        #expect(model.apply(snapshot, now: Self.now) == nil)
        #expect(model.apply(.empty, now: Self.now) == 0)
        #expect(model.screen.isEmpty && model.screen.emptyText == "No messages")
    }

    @Test func theEmptyTextFollowsTheLocaleUnlessGiven() {
        #expect(InboxViewModel(locale: Locale(identifier: "de_DE")).emptyText == "Keine Nachrichten")
        #expect(InboxViewModel(locale: Locale(identifier: "ja_JP")).emptyText == "No messages")
        #expect(InboxViewModel(locale: Locale(identifier: "de_DE"), emptyText: "Leer").emptyText == "Leer")
    }

    @Test func aTapMarksAnUnreadMessageReadAndOpensItsLink() {
        var model = InboxViewModel(locale: Locale(identifier: "en_US"))
        model.apply(
            InboxSnapshot(
                messages: [
                    Self.message("i_1", link: "https://example.com/o/1"), Self.message("i_2", read: true),
                    Self.message("i_3", link: "not a url"),
                ], unread: 2), now: Self.now)
        #expect(model.tap("i_1") == InboxTapOutcome(markRead: "i_1", open: URL(string: "https://example.com/o/1")))
        #expect(model.tap("i_2") == InboxTapOutcome(markRead: nil, open: nil))
        #expect(model.tap("i_3") == InboxTapOutcome(markRead: "i_3", open: nil))
        #expect(model.tap("i_9") == InboxTapOutcome(markRead: nil, open: nil))
    }

    @Test func aDesignedCardHasItsButtonsAndOffer() {
        let data: [String: JSONValue] = [
            "buttons": .array([
                .object(["id": .string("track"), "title": .string("Track")]),
                .object(["id": .string("track"), "title": .string("Again")]),
                .object(["id": .string(""), "title": .string("No id")]),
                .object(["id": .string("help"), "title": .string("Help")]),
            ]),
            "offer": .object(["id": .string("spring"), "title": .string("30% off")]),
        ]
        var model = InboxViewModel(locale: Locale(identifier: "en_US"))
        model.apply(InboxSnapshot(messages: [Self.message("i_1", data: data)], unread: 1), now: Self.now)
        let row = model.screen.rows[0]
        #expect(row.buttons.map(\.id) == ["track", "help"])
        #expect(row.offer == InboxOffer(id: "spring", title: "30% off"))
        #expect(model.press("i_1", button: "help")?.markRead == "i_1")
        #expect(model.press("i_1", button: "nope") == nil)
    }

    @Test func todayShowsTheTimeAndOlderTheDate() {
        let locale = Locale(identifier: "en_US")
        let today = InboxViewModel.dateText(Self.now.addingTimeInterval(-60), locale: locale, now: Self.now)
        let older = InboxViewModel.dateText(Self.now.addingTimeInterval(-10 * 86_400), locale: locale, now: Self.now)
        #expect(today.contains(":"))
        #expect(older.contains("2026"))
    }

    @Test func theCacheAppliesChangesAndKeepsLocalReadsUntilConfirmed() {
        var cache = InboxCache()
        cache.apply(
            InboxListAnswer(
                messages: [Self.message("i_1"), Self.message("i_2")], removed: [], cursor: "2.1", unread: 2,
                more: false,
                reset: true))
        cache.pendingRead.insert("i_1")
        cache.pendingDelete.insert("i_2")
        #expect(
            cache.snapshot(now: Self.nowMs) == InboxSnapshot(messages: [Self.message("i_1", read: true)], unread: 0))
        // A sync that does not know the read yet keeps the overlay; one that confirms it drops it.
        cache.apply(
            InboxListAnswer(
                messages: [Self.message("i_3")], removed: [], cursor: "3.2", unread: 3, more: false, reset: false))
        #expect(cache.pendingRead == ["i_1"] && cache.pendingDelete == ["i_2"])
        cache.apply(
            InboxListAnswer(
                messages: [Self.message("i_1", read: true)], removed: [InboxRemoved(id: "i_2", reason: .deleted)],
                cursor: "5.3", unread: 1, more: false, reset: false))
        #expect(cache.pendingRead.isEmpty && cache.pendingDelete.isEmpty)
        #expect(cache.snapshot(now: Self.nowMs).messages.map(\.id) == ["i_3", "i_1"])
        #expect(cache.cursor == "5.3")
    }
}
