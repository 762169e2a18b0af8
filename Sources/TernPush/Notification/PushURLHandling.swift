import Foundation

/// Where a URL from a push came from.
public enum PushURLSource: Sendable, Equatable {
    /// The notification itself was tapped (its `click_url`).
    case notification
    /// A button with this id was tapped (its `url`).
    case button(String)
}

/// The app's hook for the URLs its pushes open, like a URL-handling delegate: the app routes deep
/// links itself and says whether it did.
///
/// ```swift
/// final class Router: PushURLHandling {
///     func handlePushURL(_ url: URL, source: PushURLSource) -> Bool {
///         guard url.scheme == "myapp" else { return false }   // the system opens the rest
///         navigate(to: url)
///         return true
///     }
/// }
/// Tern.shared.push.notificationManager.urlHandler = Router()
/// ```
@MainActor
public protocol PushURLHandling: AnyObject {
    /// True when the app took the URL; false lets the SDK open it with the system.
    func handlePushURL(_ url: URL, source: PushURLSource) -> Bool
}

/// Opens a URL with the system (`UIApplication.open` on iOS): the port behind the SDK's fallback.
public protocol URLOpening: Sendable {
    /// Opens `url` with the system.
    ///
    /// - Parameter url: The URL.
    /// - Returns: True when the system opened it.
    @MainActor func open(_ url: URL) async -> Bool
}

/// Reports that the person opened a push: the port the core's outbox implements (`event/push`).
///
/// The implementation keeps the report durably (idempotency key `open:<message id>`), so a report
/// made just before the app is killed, or twice in two runs, reaches the server once.
public protocol OpenReporting: Sendable {
    /// Records that the person opened message `messageId`.
    ///
    /// - Parameter messageId: The message id from the push.
    func reportOpen(messageId: String) async
    /// Queues the report at once, in order with the calls made before and after it, without
    /// waiting for it to be written.
    func queueOpen(messageId: String)
}

extension OpenReporting {
    /// A reporter that cannot queue synchronously reports from a task of its own (unordered).
    public func queueOpen(messageId: String) {
        Task { await reportOpen(messageId: messageId) }
    }
}
