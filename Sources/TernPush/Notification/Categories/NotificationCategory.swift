/// A notification category as a value: an identifier and the buttons shown with it.
///
/// The Apple glue turns it into `UNNotificationCategory`.
///
/// ```swift
/// let order = NotificationCategory(
///     identifier: "ORDER_V1", actions: [NotificationAction(identifier: "VIEW_ORDER", title: "View order", options: .foreground)])
/// ```
public struct NotificationCategory: Sendable, Hashable {
    public var identifier: String
    public var actions: [NotificationAction]

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

    public var identifier: String
    public var title: String
    public var options: Options

    public init(identifier: String, title: String, options: Options = []) {
        self.identifier = identifier
        self.title = title
        self.options = options
    }
}
