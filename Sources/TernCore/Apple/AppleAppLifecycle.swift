#if canImport(UIKit)
    import Foundation
    import UIKit

    /// ``AppLifecycle`` for iOS: `didBecomeActive` is the foreground, `didEnterBackground` the background.
    public struct AppleAppLifecycle: AppLifecycle {
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
    }

    /// Holds the notification observers of one ``AppleAppLifecycle/states()`` stream.
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
