import Foundation
@_exported import TernCore
@_exported import TernProtocol

extension Tern {
    /// The push module: tokens and subscription status.
    ///
    /// ```swift
    /// Tern.shared.push.token.setToken(provider: "ios-apns", pushToken: deviceToken)
    /// Tern.shared.push.subscription.subscribe()
    /// ```
    public var push: Push {
        core.register(PushModule())
        return Push(core: core)
    }
}

/// `Tern.shared.push`.
public struct Push: Sendable {
    let core: CoreServices

    /// Setting and reading the device's push token.
    public var token: TokenAPI { TokenAPI(core: core) }
    /// Subscribing, suspending, unsubscribing, and the subscription's status.
    public var subscription: SubscriptionAPI { SubscriptionAPI(core: core) }
}

/// The push module as the core initializes and clears it.
struct PushModule: TernModule {
    var moduleName: String { "push" }

    /// Checks the saved token against the configuration's providers.
    func initialize(_ core: ReadyCore) async throws {
        guard let token = await core.token() else { return }
        guard core.configuration.providerPriorityList.contains(token.provider) else {
            core.emit(
                .error(
                    "initialization", PushModuleEvents.invalidPushProvider,
                    message:
                        "the saved token's provider \(token.provider) is not in the configuration's providerPriorityList",
                    value: ["provider": token.provider]))
            return
        }
    }

    /// The token lives in the core's settings, which `clear` already deletes.
    func clear(_ core: ReadyCore) async {}
}
