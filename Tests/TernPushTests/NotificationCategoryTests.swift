import Foundation
import TernProtocol
import Testing

@testable import TernPush

@Suite struct NotificationCategoryTests {
    func category(_ id: String, _ titles: String...) -> NotificationCategory {
        NotificationCategory(
            identifier: id, actions: titles.map { NotificationAction(identifier: "tern.button.\($0)", title: $0) })
    }

    @Test func aMessagesCategoryIsItsOwnAndItsActionsReadBack() throws {
        let message = TernPushMessage(
            messageId: "m-1",
            buttons: [
                PushButton(id: "open", title: "Open", action: .open),
                PushButton(id: "bye", title: "Bye", action: .dismiss),
            ])
        let category = try #require(MessageCategory.category(for: message))
        #expect(category.identifier == "tern.m-1")
        #expect(category.actions.map(\.options) == [.foreground, []])
        #expect(category.actions.compactMap { MessageCategory.buttonId(fromAction: $0.identifier) } == ["open", "bye"])
        #expect(MessageCategory.category(for: TernPushMessage(messageId: "m-2")) == nil)
    }

    @Test func aMessageWithoutAnIdStillGetsACategoryOfItsOwn() throws {
        let message = TernPushMessage(messageId: nil, buttons: [PushButton(id: "a", title: "A", action: .open)])
        let first = try #require(MessageCategory.category(for: message))
        let second = try #require(MessageCategory.category(for: message))
        #expect(first.identifier.hasPrefix("tern.untracked."))
        #expect(first.identifier != second.identifier)
    }

    @Test func categoriesOnScreenOrRecentAreKeptAndTheRestLetGo() async {
        let store = InMemoryCategoryStore()
        let registry = CategoryRegistry(store: store, recentLimit: 2)
        for index in 1...4 { await registry.register(category("tern.m-\(index)", "A")) }
        #expect(await store.tern.map(\.identifier) == ["tern.m-3", "tern.m-4"])

        await store.setDelivered(["tern.m-3"])
        await registry.register(category("tern.m-5", "B"))
        await registry.register(category("tern.m-6", "C"))
        #expect(await store.tern.map(\.identifier).sorted() == ["tern.m-3", "tern.m-5", "tern.m-6"])
    }

    @Test func manyConcurrentRegistrationsAllKeepTheirButtons() async {
        let store = InMemoryCategoryStore()
        let registry = CategoryRegistry(store: store, recentLimit: 64)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask { await registry.register(category("tern.m-\(index)", "B\(index)")) }
            }
        }
        #expect(await Set(store.tern.map(\.identifier)) == Set((0..<40).map { "tern.m-\($0)" }))
    }

    @Test func hostCategoriesAreCheckedAndMergedWithoutClobbering() throws {
        let order = NotificationCategory(
            identifier: "ORDER_V1", actions: [NotificationAction(identifier: "VIEW_ORDER", title: "View order")])
        let actions = try HostNotificationActions(categories: [order])
        let other = NotificationCategory(identifier: "CHAT", actions: [NotificationAction(identifier: "R", title: "R")])
        let tern = category("tern.m-1", "A")
        let all = try actions.categoriesForRegistration(preserving: [other, tern])
        #expect(all == [other, tern, order])
        #expect(throws: HostCategoryError.collision("ORDER_V1")) {
            try actions.categoriesForRegistration(preserving: [order])
        }
    }

    @Test func hostCategoryRulesThrowWithTheReason() {
        let action = NotificationAction(identifier: "A", title: "A")
        let many = (0..<33).map { NotificationCategory(identifier: "C\($0)", actions: [action]) }
        #expect(throws: HostCategoryError.tooManyCategories(count: 33, max: 32)) {
            try HostNotificationActions(categories: many)
        }
        #expect(throws: HostCategoryError.actionCount(category: "E", count: 0)) {
            try HostNotificationActions(categories: [NotificationCategory(identifier: "E", actions: [])])
        }
        let four = NotificationCategory(
            identifier: "F", actions: (0..<4).map { NotificationAction(identifier: "a\($0)", title: "x") })
        #expect(throws: HostCategoryError.actionCount(category: "F", count: 4)) {
            try HostNotificationActions(categories: [four])
        }
        #expect(throws: HostCategoryError.duplicateCategory("D")) {
            try HostNotificationActions(categories: [
                NotificationCategory(identifier: "D", actions: [action]),
                NotificationCategory(identifier: "D", actions: [action]),
            ])
        }
        #expect(throws: HostCategoryError.reservedIdentifier("tern.mine")) {
            try HostNotificationActions(categories: [NotificationCategory(identifier: "tern.mine", actions: [action])])
        }
        #expect(throws: HostCategoryError.duplicateAction(category: "G", action: "A")) {
            try HostNotificationActions(categories: [NotificationCategory(identifier: "G", actions: [action, action])])
        }
        #expect(HostCategoryError.collision("X").description.contains("rename"))
    }

    @Test func aHostActionIsFoundOnlyForItsOwnCategoryAndActions() throws {
        let order = NotificationCategory(
            identifier: "ORDER_V1", actions: [NotificationAction(identifier: "VIEW_ORDER", title: "View order")])
        let actions = try HostNotificationActions(categories: [order])
        func response(category: String, action: String) -> PushNotificationResponse {
            PushNotificationResponse(
                notification: PushNotification(
                    identifier: "n-1", content: NotificationContent(categoryIdentifier: category)),
                actionIdentifier: action)
        }
        #expect(
            actions.action(for: response(category: "ORDER_V1", action: "VIEW_ORDER"))
                == HostNotificationAction(
                    categoryIdentifier: "ORDER_V1", actionIdentifier: "VIEW_ORDER", notificationIdentifier: "n-1"))
        #expect(
            actions.action(
                for: response(category: "ORDER_V1", action: PushNotificationResponse.defaultActionIdentifier)) == nil)
        #expect(
            actions.action(
                for: response(category: "ORDER_V1", action: PushNotificationResponse.dismissActionIdentifier)) == nil)
        #expect(actions.action(for: response(category: "ORDER_V1", action: "UNKNOWN")) == nil)
        #expect(actions.action(for: response(category: "tern.m-1", action: "VIEW_ORDER")) == nil)
    }
}
