import Foundation
import TernCore
import TernPush

/// Initializes the extension's SDK with the configuration the app saved in the app-group database
/// (`SharedConfiguration`): the extension never calls `initialization` itself. Tried before each
/// notification until it succeeds.
actor ExtensionBootstrap {
    private let tern: Tern
    private var group: String?
    private var done = false

    init(tern: Tern) {
        self.tern = tern
    }

    func setGroup(_ name: String?) {
        guard name != group else { return }
        group = name
        done = false
    }

    /// Initializes `tern` when the app's configuration is there; true once it did.
    @discardableResult
    func ensureInitialized() async -> Bool {
        guard !done else { return true }
        // The app's own process (or a test) may have initialized this instance already.
        if await tern.isConfigured {
            done = true
            return true
        }
        let saved: SharedConfiguration?
        do {
            saved = try await SharedConfiguration.load(from: tern.environment.container, group: group)
        } catch {
            tern.core.emit(
                .error(
                    "handleNotificationRequest", CoreEvents.databaseError,
                    value: ["reason": "the extension cannot read the app's configuration: \(error)"]))
            return false
        }
        guard let saved else {
            tern.core.emit(
                .error(
                    "handleNotificationRequest", CoreEvents.configIsNotSet,
                    value: [
                        "reason":
                            "the app has not initialized the SDK in app group \(group ?? "(none)") yet: "
                            + "the delivery report waits in the outbox"
                    ]))
            return false
        }
        done = true
        tern.initialization(configuration: saved.configuration)
        return true
    }
}
