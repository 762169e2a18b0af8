import Foundation

/// Reads the app's notification permission from the OS: the port behind
/// `UNUserNotificationCenter`'s settings. On Linux there is none (nothing is read; tests inject one).
protocol PushPermissionReading: Sendable {
    /// The permission now; nil when it cannot be told.
    func currentPermission() async -> PushPermission?
}

#if !os(iOS)
    extension PushPermissionMonitor {
        /// No OS to ask here: permissions come from `reportPermission` alone.
        static var platformReader: (any PushPermissionReading)? { nil }
    }
#endif
