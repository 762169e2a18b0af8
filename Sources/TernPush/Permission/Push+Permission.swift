import Foundation

extension Push {
    /// Reports the app's notification permission, for an app that reads it itself (or manages the
    /// prompt itself). Tern keeps it and sends it with the push subscription as `_push_permission`:
    /// when it differs from the value the server has, a `push/update` is queued at once
    /// (`permissionUpdateRequestSuccessful` / `permissionUpdateRequestFailed`); before the device
    /// has a subscription, nothing is sent and the next `subscribe` carries it.
    ///
    /// On iOS Tern also reads the permission by itself, each time the app comes to the foreground
    /// and after `registerForPushNotifications(for:)` got the person's answer: report the OS's
    /// permission here, never the app's own on/off switch (that is a subscription status or a
    /// category).
    ///
    /// ```swift
    /// // The app's own check found notifications turned off in Settings:
    /// Tern.shared.push.reportPermission(.denied)
    /// ```
    ///
    /// - Parameter permission: The permission the OS gives the app now.
    public func reportPermission(_ permission: PushPermission) {
        core.perform("reportPermission") { ready in
            await PermissionChange.apply(permission, ready, function: "reportPermission", automatic: false)
        }
    }

    /// `reportPermission(_:)` with a ``PushPermission``, by the permission's wire name (`authorized`, `provisional`,
    /// `ephemeral`, `denied`, `not_determined`), for apps that bridge it from another layer (a
    /// cross-platform framework). Another value is refused with `invalidPushPermission` (its
    /// `value["reason"]` lists the accepted names), and nothing is saved or sent.
    ///
    /// ```swift
    /// Tern.shared.push.reportPermission("denied")
    /// ```
    ///
    /// - Parameter name: The permission's wire name.
    public func reportPermission(_ name: String) {
        guard let permission = PushPermission(rawValue: name) else {
            let accepted = PushPermission.allCases.map(\.rawValue).joined(separator: ", ")
            core.emit(
                .error(
                    "reportPermission", PushModuleEvents.invalidPushPermission,
                    value: [
                        "reason": "\"\(name.prefix(64))\" is not a push permission: use one of \(accepted)",
                        "permission": name,
                    ]))
            return
        }
        reportPermission(permission)
    }
}
