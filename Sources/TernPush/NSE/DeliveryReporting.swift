/// Reports that a push reached the device: the port the extension's processor calls.
///
/// The core's outbox implements it: it must write the delivery to the shared outbox first (so a
/// report that cannot go now is sent later by the app), then try to send it, and stop waiting when
/// its task is cancelled. The processor gives it at most
/// ``NotificationServiceConfiguration/deliveryReportTimeout`` before it answers the system.
public protocol DeliveryReporting: Sendable {
    /// Records that message `messageId` reached the device (`event/push` with `delivery`): written to
    /// the shared outbox first, then sent if time allows.
    ///
    /// - Parameter messageId: The message id from the push's `tern` object.
    func reportDelivery(messageId: String) async
}
