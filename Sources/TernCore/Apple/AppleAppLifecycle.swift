#if os(iOS)
    import Foundation
    import UIKit

    /// ``AppLifecycle`` for an iOS app: `didBecomeActive` is the foreground, `didEnterBackground` the
    /// background, and background time comes from `beginBackgroundTask(withName:expirationHandler:)`.
    /// The app's alone (it reads `UIApplication.shared`): the app hands it to the SDK (see
    /// ``CoreServices/attachAppLifecycle(_:)``); an app extension never can.
    @available(iOSApplicationExtension, unavailable)
    public struct AppleAppLifecycle: AppLifecycle {
        /// The app's lifecycle; observing starts when the SDK asks for ``states()``.
        public init() {}

        public func states() async -> AsyncStream<AppState> {
            await MainActor.run {
                let (stream, continuation) = AsyncStream.makeStream(of: AppState.self)
                let observer = LifecycleObserver(continuation)
                continuation.onTermination = { _ in
                    Task { @MainActor in observer.stop() }
                }
                return stream
            }
        }

        public func beginBackgroundWork(_ name: String) async -> BackgroundWork {
            let assertion = await MainActor.run {
                let assertion = BackgroundTaskAssertion()
                assertion.begin(name)
                return assertion
            }
            return BackgroundWork { await assertion.end() }
        }
    }

    /// One `beginBackgroundTask` … `endBackgroundTask` pair: ended by the work, or by the system's
    /// expiration handler if the time runs out first, never twice.
    @available(iOSApplicationExtension, unavailable)
    @MainActor
    final class BackgroundTaskAssertion {
        private var identifier = UIBackgroundTaskIdentifier.invalid

        func begin(_ name: String) {
            // The system calls the handler on the main thread, before it suspends the app.
            identifier = UIApplication.shared.beginBackgroundTask(withName: name) { [weak self] in self?.end() }
        }

        func end() {
            guard identifier != .invalid else { return }
            UIApplication.shared.endBackgroundTask(identifier)
            identifier = .invalid
        }
    }

    /// Holds the notification observers of one ``AppleAppLifecycle/states()`` stream.
    @available(iOSApplicationExtension, unavailable)
    @MainActor
    final class LifecycleObserver {
        private var tokens: [any NSObjectProtocol] = []

        init(_ continuation: AsyncStream<AppState>.Continuation) {
            let center = NotificationCenter.default
            tokens.append(
                center.addObserver(forName: UIApplication.didBecomeActiveNotification, object: nil, queue: .main) { _ in
                    continuation.yield(.foreground)
                })
            tokens.append(
                center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main) {
                    _ in
                    continuation.yield(.background)
                })
            if UIApplication.shared.applicationState == .active {
                continuation.yield(.foreground)
            }
        }

        func stop() {
            for token in tokens { NotificationCenter.default.removeObserver(token) }
            tokens = []
        }
    }
#endif
