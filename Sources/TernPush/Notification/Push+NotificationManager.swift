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

/// One notification manager per SDK instance, made on first use.
@MainActor
enum NotificationManagers {
    /// The core is kept with its manager, so its identifier is never reused for another one.
    private static var managers: [ObjectIdentifier: (core: CoreServices, manager: NotificationManager)] = [:]

    static func manager(for core: CoreServices) -> NotificationManager {
        if let existing = managers[ObjectIdentifier(core)] { return existing.manager }
        let bus = core.bus
        let manager = NotificationManager(issues: EventBusIssueReporter(bus: bus))
        manager.permissionDenied = { bus.emit(.error("registerForPushNotifications", CoreEvents.permissionDenied)) }
        manager.setOpenReporter(OutboxPushEventReporter(core: core))
        manager.attachLifecycle = { core.attachAppLifecycle($0) }
        managers[ObjectIdentifier(core)] = (core, manager)
        return manager
    }
}
