/// What the extension's processor allows itself.
///
/// ```swift
/// var configuration = NotificationServiceConfiguration()
/// configuration.mediaLimits.timeout = .seconds(10)
/// ```
public struct NotificationServiceConfiguration: Sendable, Equatable {
    /// Which media URLs are downloaded (https only unless a test allows loopback http).
    public var mediaPolicy: MediaURLPolicy
    /// Sizes per media family and the download's time limit.
    public var mediaLimits: MediaLimits
    /// How long the processor waits for the delivery report before it answers the system; a report
    /// still unsent by then stays in the outbox for the app to send.
    public var deliveryReportTimeout: Duration

    /// The extension's limits; the defaults suit apps.
    ///
    /// - Parameters:
    ///   - mediaPolicy: Which media URLs are downloaded; default https only.
    ///   - mediaLimits: Sizes and download time; default Apple's limits and 15 seconds.
    ///   - deliveryReportTimeout: How long to wait for the delivery report; default 5 seconds.
    public init(
        mediaPolicy: MediaURLPolicy = MediaURLPolicy(), mediaLimits: MediaLimits = MediaLimits(),
        deliveryReportTimeout: Duration = .seconds(5)
    ) {
        self.mediaPolicy = mediaPolicy
        self.mediaLimits = mediaLimits
        self.deliveryReportTimeout = deliveryReportTimeout
    }
}
