import Foundation

/// Reads the OS's notification permission when the app comes to the foreground and when the person
/// answered the permission prompt, and hands each reading to ``PermissionChange`` through the SDK's
/// mailbox. One per SDK instance.
actor PushPermissionMonitor {
    private var reader: (any PushPermissionReading)?
    private var watching = false

    init(reader: (any PushPermissionReading)?) {
        self.reader = reader
    }

    /// Replaces the OS reader (tests; nil reads nothing).
    func setReader(_ reader: (any PushPermissionReading)?) {
        self.reader = reader
    }

    /// Reads the permission each time the app comes to the foreground (the launch included), from
    /// now on: the person may have changed it in Settings meanwhile. Returns once it listens.
    func watch(_ core: CoreServices) async {
        guard !watching else { return }
        watching = true
        let states = await core.environment.lifecycle.states()
        Task { [weak self] in
            for await state in states where state == .foreground {
                guard let self else { return }
                await self.check(core, function: "permissionRefresh")
            }
        }
    }

    /// Reads the permission and, when there is a reader, applies it after the calls made before.
    /// The OS is asked off the mailbox, so a slow answer never holds up the app's calls.
    func check(_ core: CoreServices, function: String) async {
        guard let reader, let permission = await reader.currentPermission() else { return }
        core.perform(function) { ready in
            await PermissionChange.apply(permission, ready, function: function, automatic: true)
        }
    }
}

extension CoreServices {
    /// This SDK instance's permission monitor, made on first use with the platform's reader.
    func permissionMonitor() async -> PushPermissionMonitor {
        await slots.value("push.permissionMonitor") {
            PushPermissionMonitor(reader: PushPermissionMonitor.platformReader)
        }
    }
}
