/// A notification category as a value: an identifier and the buttons shown with it.
///
/// The Apple glue turns it into `UNNotificationCategory`.
///
/// ```swift
/// let order = NotificationCategory(
///     identifier: "ORDER_V1", actions: [NotificationAction(identifier: "VIEW_ORDER", title: "View order", options: .foreground)])
/// ```
public struct NotificationCategory: Sendable, Hashable {
    /// The category's identifier, which notifications name in `categoryIdentifier`.
    public var identifier: String
    /// Its buttons, in order.
    public var actions: [NotificationAction]

    /// A category.
    ///
    /// - Parameters:
    ///   - identifier: Its identifier.
    ///   - actions: Its buttons.
    public init(identifier: String, actions: [NotificationAction]) {
        self.identifier = identifier
        self.actions = actions
    }
}

/// One button of a category.
public struct NotificationAction: Sendable, Hashable {
    /// How the system treats a tap.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Bring the app to the foreground.
        public static let foreground = Options(rawValue: 1 << 0)
        /// Shown in red.
        public static let destructive = Options(rawValue: 1 << 1)
        /// Only on an unlocked device.
        public static let authenticationRequired = Options(rawValue: 1 << 2)
    }

    /// The action's identifier, reported when it is tapped.
    public var identifier: String
    /// The button's title.
    public var title: String
    /// How the system treats a tap.
    public var options: Options

    /// A button.
    ///
    /// - Parameters:
    ///   - identifier: Its identifier.
    ///   - title: Its title.
    ///   - options: How a tap is treated; default none (handled in the background).
    public init(identifier: String, title: String, options: Options = []) {
        self.identifier = identifier
        self.title = title
        self.options = options
    }
}
