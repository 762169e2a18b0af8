import TernCore

extension Push {
    /// The notification manager of this SDK instance: presentation, clicks, URLs, categories.
    ///
    /// ```swift
    /// let manager = Tern.shared.push.notificationManager
    /// manager.customPushProcessing = false
    /// ```
    @MainActor
    public var notificationManager: NotificationManager {
        NotificationManagers.manager(for: core)
    }
}

/// The notification manager of one SDK instance, made on first use and kept with the instance.
@MainActor
enum NotificationManagers {
    static func manager(for core: CoreServices) -> NotificationManager {
        core.mainActorSlots.value("push.notificationManager") {
            let bus = core.bus
            let manager = NotificationManager(issues: EventBusIssueReporter(bus: bus))
            manager.permissionDenied = { bus.emit(.error("registerForPushNotifications", CoreEvents.permissionDenied)) }
            manager.permissionAnswered = {
                Task { await core.permissionMonitor().check(core, function: "registerForPushNotifications") }
            }
            manager.setOpenReporter(OutboxPushEventReporter(core: core))
            manager.attachLifecycle = { core.attachAppLifecycle($0) }
            manager.pushReceived = { payload, function in core.handlePush(payload, function: function) }
            return manager
        }
    }
}
