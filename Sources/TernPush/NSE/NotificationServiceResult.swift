/// What the extension hands the system for one notification.
///
/// When ``isAsItCame`` the Apple glue passes the request's own content back untouched; otherwise it
/// copies that content and sets the attachment and the category identifier.
public struct NotificationServiceResult: Sendable, Equatable {
    /// How processing ended.
    public enum Ending: Sendable, Equatable {
        /// Not a Tern push: shown as it came.
        case notTern
        /// A Tern push with nothing to add, or whose additions all failed: shown as it came.
        case asItCame
        /// An attachment, a category, or both were added.
        case enriched
        /// The system's time ran out first: shown as it came.
        case timeExpired
    }

    /// How processing ended.
    public var ending: Ending
    /// The content to show.
    public var content: NotificationContent
    /// The media attached, if any.
    public var attachment: NotificationAttachment?
    /// The message's own category, set when it has buttons.
    public var categoryIdentifier: String?
    /// What went wrong on the way (also reported as push events).
    public var issues: [PushIssue]

    /// A result.
    ///
    /// - Parameters:
    ///   - ending: How processing ended.
    ///   - content: The content to show.
    ///   - attachment: The media attached; default nil.
    ///   - categoryIdentifier: The message's category; default nil.
    ///   - issues: What went wrong; default none.
    public init(
        ending: Ending, content: NotificationContent, attachment: NotificationAttachment? = nil,
        categoryIdentifier: String? = nil, issues: [PushIssue] = []
    ) {
        self.ending = ending
        self.content = content
        self.attachment = attachment
        self.categoryIdentifier = categoryIdentifier
        self.issues = issues
    }

    /// True when the system should show the notification exactly as it arrived.
    public var isAsItCame: Bool { ending != .enriched }
}
