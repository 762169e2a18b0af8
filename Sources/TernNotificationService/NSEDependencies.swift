import Foundation
import TernCore
import TernPush

/// The ports the extension's processor runs on.
///
/// ```swift
/// var ports = NSEDependencies.platformDefault(for: tern)
/// ports.configuration.mediaLimits.timeout = .seconds(10)
/// let nse = TernNSE(tern: tern, dependencies: ports)
/// ```
public struct NSEDependencies: Sendable {
    /// The extension's limits: which media URLs are allowed, size limits per media family, the download
    /// timeout and how long to wait for the delivery report.
    public var configuration: NotificationServiceConfiguration
    /// Downloads a push's media (`URLSessionMediaDownloader` by default).
    public var downloader: any MediaDownloading
    /// Turns a downloaded file into a notification attachment (`FileAttachmentWriter` by default).
    public var writer: any AttachmentWriting
    /// The notification center's categories; nil where there is none (Linux without a simulated one).
    public var categoryStore: (any NotificationCategoryStore)?
    /// Where deliveries are reported; nil reports none.
    public var delivery: (any DeliveryReporting)?
    /// Where push problems are reported (the SDK's event bus).
    public var issues: (any PushIssueReporting)?

    /// The extension's ports; the three without a default must be given (nil where there is none).
    ///
    /// - Parameters:
    ///   - configuration: The extension's limits; default `NotificationServiceConfiguration()`.
    ///   - downloader: Downloads media; default `URLSessionMediaDownloader()`.
    ///   - writer: Writes attachments; default `FileAttachmentWriter()` (the temporary directory).
    ///   - categoryStore: The notification center's categories, for a push's buttons; nil for none.
    ///   - delivery: Where deliveries are reported; nil reports none.
    ///   - issues: Where push problems are reported as events; nil reports none.
    public init(
        configuration: NotificationServiceConfiguration = NotificationServiceConfiguration(),
        downloader: any MediaDownloading = URLSessionMediaDownloader(),
        writer: any AttachmentWriting = FileAttachmentWriter(), categoryStore: (any NotificationCategoryStore)?,
        delivery: (any DeliveryReporting)?, issues: (any PushIssueReporting)?
    ) {
        self.configuration = configuration
        self.downloader = downloader
        self.writer = writer
        self.categoryStore = categoryStore
        self.delivery = delivery
        self.issues = issues
    }

    /// URLSession downloads, files in the temporary directory, the notification center's categories on
    /// Apple platforms, deliveries into `tern`'s outbox, and `tern`'s event bus.
    public static func platformDefault(for tern: Tern) -> NSEDependencies {
        NSEDependencies(
            categoryStore: platformCategoryStore, delivery: OutboxPushEventReporter(core: tern.core),
            issues: EventBusIssueReporter(bus: tern.core.bus))
    }
}

#if !os(iOS)
    extension NSEDependencies {
        static var platformCategoryStore: (any NotificationCategoryStore)? { nil }
    }
#endif
