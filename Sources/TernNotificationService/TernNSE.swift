import Foundation
import TernCore
import TernPush

/// The SDK inside the app's Notification Service Extension: recognises Tern's pushes, reports their
/// delivery, attaches their media, gives their buttons a category of their own, and always answers
/// the system exactly once. Extension-safe: no `UIApplication` API.
///
/// ```swift
/// final class NotificationService: UNNotificationServiceExtension {
///     override func didReceive(_ request: UNNotificationRequest,
///                              withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
///         TernNSE.shared.setAppGroup(groupName: "group.com.example.app")
///         if TernNSE.shared.isTernPush(request) {
///             TernNSE.shared.handleNotificationRequest(request: request) { content in contentHandler(content) }
///         } else {
///             contentHandler(request.content)
///         }
///     }
///     override func serviceExtensionTimeWillExpire() {
///         TernNSE.shared.serviceExtensionTimeWillExpire()
///     }
/// }
/// ```
public final class TernNSE: Sendable {
    /// The extension's instance, on `Tern.shared` and the platform's ports.
    public static let shared = TernNSE(tern: .shared)

    /// The SDK instance whose app group, JWT provider and event bus the extension uses.
    public let tern: Tern
    private let commands: AsyncStream<Command>.Continuation
    private let worker: Task<Void, Never>
    private let bootstrap: ExtensionBootstrap

    private enum Command: Sendable {
        case handle(NotificationContent, NotificationServiceProcessor.ContentHandler)
        case expire
        case setGroup(String?)
        case drain(@Sendable () -> Void)
    }

    /// An extension on `tern` with these ports (tests, the simulated device and the benchmark pass
    /// their own; apps use ``shared``).
    public init(tern: Tern, dependencies: NSEDependencies? = nil) {
        self.tern = tern
        let ports = dependencies ?? NSEDependencies.platformDefault(for: tern)
        let processor = NotificationServiceProcessor(
            configuration: ports.configuration, downloader: ports.downloader, writer: ports.writer,
            categories: ports.categoryStore.map { CategoryRegistry(store: $0) }, delivery: ports.delivery,
            issues: ports.issues)
        let (stream, continuation) = AsyncStream.makeStream(of: Command.self)
        commands = continuation
        let bootstrap = ExtensionBootstrap(tern: tern)
        self.bootstrap = bootstrap
        // One consumer keeps the calls in order: an expiry always finds the requests made before it.
        worker = Task {
            for await command in stream {
                switch command {
                case .handle(let content, let handler):
                    await bootstrap.ensureInitialized()
                    await processor.process(content, contentHandler: handler)
                case .setGroup(let name): await bootstrap.setGroup(name)
                case .expire: await processor.timeWillExpire()
                case .drain(let done):
                    await processor.drain()
                    done()
                }
            }
        }
    }

    deinit {
        commands.finish()
    }

    /// True when the notification's `userInfo` carries Tern's marker, the `tern` object.
    public func isTernPush(userInfo: [AnyHashable: Any]) -> Bool {
        PushPayloadParser.isTernPush(userInfo)
    }

    /// Processes a notification given as a value; `contentHandler` is called exactly once.
    public func handleNotification(
        content: NotificationContent, contentHandler: @escaping @Sendable (NotificationServiceResult) -> Void
    ) {
        commands.yield(.handle(content, contentHandler))
    }

    /// The system's time is up (~30 seconds): every notification still in progress is shown now, as it came.
    public func serviceExtensionTimeWillExpire() {
        commands.yield(.expire)
    }

    /// The app group shared with the app, whose container holds the SDK's outbox and the
    /// configuration the app saved when it initialized the SDK; the extension initializes from it.
    /// Call it first.
    public func setAppGroup(groupName: String?) {
        tern.setAppGroup(groupName: groupName)
        commands.yield(.setGroup(groupName))
    }

    /// The JWT provider for the delivery reports the extension sends.
    public func setJWTProvider(provider: any JWTInterface) {
        tern.setJWTProvider(provider: provider)
    }

    /// Returns once every notification handed over so far is finished (tests, the benchmark).
    public func drain() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            commands.yield(.drain { done.resume() })
        }
    }
}
