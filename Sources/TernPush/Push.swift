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
        core.register(PushModule(core: core))
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
    /// Reporting a push's delivery and its opening.
    public var pushEvents: EventAPI { EventAPI(core: core) }
    /// The push tokens of the app's Live Activities and its push-to-start tokens, and the ids of
    /// broadcast channels (iOS 18).
    public var liveActivities: LiveActivitiesAPI { LiveActivitiesAPI(core: core) }
}

/// The push module as the core initializes and clears it.
struct PushModule: TernModule {
    /// The SDK instance, for its token coordinator.
    let core: CoreServices

    var moduleName: String { "push" }

    /// Push's events (Live Activities' with them), the token spliced into requests written before it arrived, and the check of
    /// the configuration's provider priority list.
    var parts: ModuleParts {
        ModuleParts(
            events: PushModuleEvents.allCases + LiveActivityEvents.allCases, finalizeBody: PushParts.spliceToken,
            checkConfiguration: PushParts.checkProviders)
    }

    /// Saves the configuration for the extension, follows the app's lifecycle for the notification
    /// permission, asks the token providers again (after a second `initialization`), and checks the
    /// saved token against the configuration's providers.
    func initialize(_ ready: ReadyCore) async throws {
        await SharedConfiguration.save(ready)
        await core.permissionMonitor().watch(core)
        let coordinator = await core.tokenCoordinator()
        if await coordinator.hasSources {
            Task { await coordinator.refresh(ready, function: "initialization") }
        }
        let core = ready
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

    /// The token lives in the core's settings, which `clear` already deleted; the extension's copy
    /// of the configuration is saved again, as the app stays configured.
    func clear(_ core: ReadyCore) async {
        await SharedConfiguration.save(core)
    }

    /// Hands the device's token to the user who signed in, or back to the install.
    func authenticationChanged(_ core: ReadyCore, signedIn: Bool) async {
        await IdentityHandOver.run(core, signedIn: signedIn)
    }

    /// Nothing: the server moved the device's subscription with the identity binding itself.
    func identityChanged(_ core: ReadyCore, bound: Bool) async {}
}

/// Found by name when the SDK initializes (`TernModuleEntry`), so the module comes up whether or
/// not the app touched it first.
public enum TernModuleEntryPoint: TernModuleEntry {
    public static func module(_ core: CoreServices) -> any TernModule {
        PushModule(core: core)
    }
}
