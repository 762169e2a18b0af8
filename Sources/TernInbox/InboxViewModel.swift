import Foundation
import TernProtocol

/// A button of a designed inbox card (`data.buttons`: `[{"id": "track", "title": "Track"}]`, up to 3).
public struct InboxCardButton: Sendable, Equatable, Identifiable {
    public var id: String
    /// The button's title.
    public var title: String
}

/// A card's offer (`data.offer`: `{"id": "spring", "title": "Get 30% off"}`).
public struct InboxOffer: Sendable, Equatable {
    public var id: String
    /// The offer button's title (its id when the card gives none).
    public var title: String
}

/// One message as the inbox screen draws it: every decision made (what shows, how the date reads,
/// which buttons and offer the card has).
public struct InboxRow: Sendable, Equatable, Identifiable {
    public var id: String
    /// The message's title.
    public var title: String?
    /// The message's text.
    public var body: String?
    /// The image to show, when the message has a valid URL.
    public var imageURL: URL?
    /// Opened on a tap; nil when the message has none (a tap only marks it read).
    public var link: URL?
    /// True until the person reads it on any of their devices.
    public var unread: Bool
    /// "14:05" today, else the date in the locale's medium style.
    public var dateText: String
    /// The card's own buttons (up to 3).
    public var buttons: [InboxCardButton]
    /// The card's offer, if it has one.
    public var offer: InboxOffer?
}

/// The whole screen: its rows (newest first), the unread count, and what an empty inbox says.
public struct InboxScreen: Sendable, Equatable {
    /// The messages to draw, newest first.
    public var rows: [InboxRow]
    /// How many rows are unread.
    public var unread: Int
    /// Shown when `rows` is empty.
    public var emptyText: String
    /// True when there is nothing to draw: show `emptyText`.
    public var isEmpty: Bool { rows.isEmpty }
}

/// What a tap on a row does: mark it read (when unread), then open its link (when it has one).
public struct InboxTapOutcome: Sendable, Equatable {
    /// The message to mark read, nil when it already is.
    public var markRead: String?
    /// The link to open, nil when none.
    public var open: URL?
}

/// The inbox screen's decisions, independent of any UI framework (tested on Linux); `InboxView`
/// (TernInboxUI) draws what it says.
///
/// ```swift
/// var model = InboxViewModel(locale: Locale(identifier: "de_DE"))
/// let changedUnread = model.apply(snapshot, now: Date())   // Int? to pass to onUnread
/// let outcome = model.tap("i_42")                           // mark read, open link
/// ```
public struct InboxViewModel: Sendable {
    /// The language dates and the default empty text are written in.
    public let locale: Locale
    /// What an empty inbox says.
    public let emptyText: String
    /// The screen as it should be drawn now.
    public private(set) var screen: InboxScreen
    private var reportedUnread: Int?

    /// A model writing in `locale` (dates, the default empty text); `emptyText` replaces the latter.
    public init(locale: Locale = .current, emptyText: String? = nil) {
        self.locale = locale
        self.emptyText = emptyText ?? Self.defaultEmptyText(locale)
        screen = InboxScreen(rows: [], unread: 0, emptyText: self.emptyText)
    }

    /// Takes a new snapshot; returns the unread count when it changed (for `onUnread`), else nil.
    @discardableResult
    public mutating func apply(_ snapshot: InboxSnapshot, now: Date) -> Int? {
        let rows = snapshot.messages.filter { $0.expiresAt > Int64(now.timeIntervalSince1970 * 1000) }.map {
            Self.row($0, locale: locale, now: now)
        }
        let unread = rows.filter(\.unread).count
        screen = InboxScreen(rows: rows, unread: unread, emptyText: emptyText)
        guard reportedUnread != unread else { return nil }
        reportedUnread = unread
        return unread
    }

    /// What a tap on row `id` does.
    public func tap(_ id: String) -> InboxTapOutcome {
        guard let row = screen.rows.first(where: { $0.id == id }) else { return InboxTapOutcome() }
        return InboxTapOutcome(markRead: row.unread ? row.id : nil, open: row.link)
    }

    /// A card button was pressed: the message to mark read (nil when read) and the button, for `onCustom`.
    public func press(_ id: String, button: String) -> (markRead: String?, button: InboxCardButton)? {
        guard let row = screen.rows.first(where: { $0.id == id }),
            let pressed = row.buttons.first(where: { $0.id == button })
        else { return nil }
        return (row.unread ? row.id : nil, pressed)
    }

    /// The row as drawn.
    static func row(_ message: InboxMessage, locale: Locale, now: Date) -> InboxRow {
        InboxRow(
            id: message.id, title: message.title, body: message.body,
            imageURL: message.imageURL.flatMap(Self.absoluteURL), link: message.link.flatMap(Self.absoluteURL),
            unread: !message.read,
            dateText: dateText(Date(timeIntervalSince1970: Double(message.createdAt) / 1000), locale: locale, now: now),
            buttons: buttons(message.data), offer: offer(message.data))
    }

    /// The time today, else the medium date, in `locale` (and UTC on Linux as the device's zone elsewhere).
    static func dateText(_ date: Date, locale: Locale, now: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = calendar.timeZone
        if calendar.isDate(date, inSameDayAs: now) {
            formatter.dateStyle = .none
            formatter.timeStyle = .short
        } else {
            formatter.dateStyle = .medium
            formatter.timeStyle = .none
        }
        return formatter.string(from: date)
    }

    static func absoluteURL(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else { return nil }
        return url
    }

    static func buttons(_ data: [String: JSONValue]) -> [InboxCardButton] {
        guard case .array(let items)? = data["buttons"] else { return [] }
        var seen: Set<String> = []
        let buttons = items.compactMap { item -> InboxCardButton? in
            guard case .object(let fields) = item, case .string(let id)? = fields["id"], !id.isEmpty,
                case .string(let title)? = fields["title"], !title.isEmpty, seen.insert(id).inserted
            else { return nil }
            return InboxCardButton(id: id, title: title)
        }
        return Array(buttons.prefix(3))
    }

    static func offer(_ data: [String: JSONValue]) -> InboxOffer? {
        guard case .object(let fields)? = data["offer"], case .string(let id)? = fields["id"], !id.isEmpty else {
            return nil
        }
        if case .string(let title)? = fields["title"], !title.isEmpty { return InboxOffer(id: id, title: title) }
        return InboxOffer(id: id, title: id)
    }

    /// "No messages" in the locale's language (English when Tern has no words for it).
    static func defaultEmptyText(_ locale: Locale) -> String {
        let texts = [
            "en": "No messages", "de": "Keine Nachrichten", "fr": "Aucun message", "es": "No hay mensajes",
            "it": "Nessun messaggio", "pt": "Nenhuma mensagem", "ru": "Нет сообщений", "nl": "Geen berichten",
        ]
        let language = locale.language.languageCode?.identifier ?? "en"
        return texts[language] ?? texts["en"] ?? ""
    }
}
