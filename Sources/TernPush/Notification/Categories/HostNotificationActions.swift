/// The app's own notification categories, checked and merged beside everyone else's without
/// clobbering them.
///
/// Up to 32 categories of 1–3 actions each. An identifier used twice, one that collides with a
/// category being preserved, or one in Tern's reserved `tern.` space is an error, thrown before
/// anything is registered. Errors are ``HostCategoryError``s (untyped `throws`: typed throws do not
/// build against the iOS 17 SDK's Swift 5.9 standard library).
///
/// ```swift
/// let order = NotificationCategory(identifier: "ORDER_V1", actions: [
///     NotificationAction(identifier: "VIEW_ORDER", title: "View order", options: .foreground)])
/// let actions = try HostNotificationActions(categories: [order])
/// let all = try actions.categoriesForRegistration(preserving: otherHostCategories)
/// // In the click callback:
/// if let tapped = actions.action(for: response) { open(order: tapped.actionIdentifier) }
/// ```
public struct HostNotificationActions: Sendable, Equatable {
    /// The most host categories: 32.
    public static let maxCategories = 32
    /// How many actions each host category has: 1 to 3.
    public static let actionsPerCategory = 1...3

    /// The app's categories, checked.
    public let categories: [NotificationCategory]

    /// Checks the app's categories.
    ///
    /// - Parameter categories: Up to ``maxCategories`` categories, each with 1–3 actions, identifiers
    ///   unique, non-empty and outside Tern's `tern.` space.
    /// - Throws: ``HostCategoryError`` naming the first rule broken; nothing is registered.
    public init(categories: [NotificationCategory]) throws {
        guard categories.count <= Self.maxCategories else {
            throw HostCategoryError.tooManyCategories(count: categories.count, max: Self.maxCategories)
        }
        var seen: Set<String> = []
        for category in categories {
            try Self.check(category)
            guard seen.insert(category.identifier).inserted else {
                throw HostCategoryError.duplicateCategory(category.identifier)
            }
        }
        self.categories = categories
    }

    /// These categories plus `others`, for one `setNotificationCategories` call.
    ///
    /// Tern's own message categories in `others` are kept as they are; any other identifier shared
    /// with these categories throws ``HostCategoryError/collision(_:)``.
    public func categoriesForRegistration(
        preserving others: [NotificationCategory]
    ) throws -> [NotificationCategory] {
        let mine = Set(categories.map(\.identifier))
        for other in others where mine.contains(other.identifier) {
            throw HostCategoryError.collision(other.identifier)
        }
        return others + categories
    }

    /// The host action the person chose, or nil for a tap on the notification, a dismissal, an
    /// action these categories do not have, or another sender's category.
    public func action(for response: PushNotificationResponse) -> HostNotificationAction? {
        let categoryIdentifier = response.notification.content.categoryIdentifier
        guard let category = categories.first(where: { $0.identifier == categoryIdentifier }),
            category.actions.contains(where: { $0.identifier == response.actionIdentifier })
        else { return nil }
        return HostNotificationAction(
            categoryIdentifier: categoryIdentifier, actionIdentifier: response.actionIdentifier,
            notificationIdentifier: response.notification.identifier)
    }

    private static func check(_ category: NotificationCategory) throws {
        let identifier = category.identifier
        guard !identifier.isEmpty else { throw HostCategoryError.emptyIdentifier(category: identifier) }
        guard !MessageCategory.isTernCategory(identifier) else {
            throw HostCategoryError.reservedIdentifier(identifier)
        }
        guard actionsPerCategory.contains(category.actions.count) else {
            throw HostCategoryError.actionCount(category: identifier, count: category.actions.count)
        }
        var actions: Set<String> = []
        for action in category.actions {
            guard !action.identifier.isEmpty else { throw HostCategoryError.emptyIdentifier(category: identifier) }
            guard action.identifier != PushNotificationResponse.defaultActionIdentifier,
                action.identifier != PushNotificationResponse.dismissActionIdentifier,
                MessageCategory.buttonId(fromAction: action.identifier) == nil
            else { throw HostCategoryError.reservedIdentifier(action.identifier) }
            guard actions.insert(action.identifier).inserted else {
                throw HostCategoryError.duplicateAction(category: identifier, action: action.identifier)
            }
        }
    }
}

/// A host category's action the person chose.
public struct HostNotificationAction: Sendable, Equatable {
    /// The host category of the notification.
    public var categoryIdentifier: String
    /// The action the person chose.
    public var actionIdentifier: String
    /// The notification's identifier.
    public var notificationIdentifier: String
}

/// Why a set of host categories cannot be registered.
public enum HostCategoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// More than ``HostNotificationActions/maxCategories`` categories were given.
    case tooManyCategories(count: Int, max: Int)
    /// A category has no action or more than 3.
    case actionCount(category: String, count: Int)
    /// A category identifier is used twice.
    case duplicateCategory(String)
    /// An action identifier is used twice in one category.
    case duplicateAction(category: String, action: String)
    /// A category identifier is also used by a category being preserved (another sender's).
    case collision(String)
    /// An identifier is Tern's (`tern.` categories, `tern.button.` actions) or iOS's default or dismiss action.
    case reservedIdentifier(String)
    /// A category or action identifier is empty.
    case emptyIdentifier(category: String)

    public var description: String {
        switch self {
        case .tooManyCategories(let count, let max):
            "\(count) host categories given; at most \(max) can be registered"
        case .actionCount(let category, let count):
            "category '\(category)' has \(count) actions; each needs 1 to 3"
        case .duplicateCategory(let identifier):
            "category identifier '\(identifier)' is used twice"
        case .duplicateAction(let category, let action):
            "action identifier '\(action)' is used twice in category '\(category)'"
        case .collision(let identifier):
            "category identifier '\(identifier)' is already registered by someone else; rename one of them"
        case .reservedIdentifier(let identifier):
            "identifier '\(identifier)' is reserved (Tern's 'tern.' prefix or the system's own actions)"
        case .emptyIdentifier(let category):
            "an empty identifier in category '\(category)'"
        }
    }
}
