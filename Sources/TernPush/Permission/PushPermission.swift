import Foundation

/// Whether the person lets the app show notifications, as iOS says in the app's notification
/// settings. Tern sends it with the push subscription as the system field `_push_permission` (the
/// raw value), so an operator can send only to devices that show alerts.
///
/// ```swift
/// Tern.shared.push.reportPermission(.denied)
/// ```
public enum PushPermission: String, Sendable, Codable, CaseIterable, Equatable {
    /// The person allowed notifications.
    case authorized
    /// Notifications are delivered quietly to the Notification Center, without alerts, until the
    /// person decides (iOS's provisional authorization).
    case provisional
    /// Allowed for a limited time (an App Clip).
    case ephemeral
    /// The person turned notifications off, or refused them: the token stays valid, but nothing is
    /// shown.
    case denied
    /// The app has not asked yet.
    case notDetermined = "not_determined"

    /// The subscription field that carries the permission, `_push_permission`.
    public static let fieldKey = "_push_permission"
}
