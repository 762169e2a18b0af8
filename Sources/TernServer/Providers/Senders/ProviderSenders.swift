import Foundation

/// The real provider clients for the delivery engine: APNs, FCM and HMS, each reading the
/// project's credentials from `credentials` at send time.
///
/// ```swift
/// for sender in ProviderSenders.all(credentials: credentials, endpoints: endpoints, logger: logger) {
///     await registry.register(sender)
/// }
/// ```
enum ProviderSenders {
    static func all(credentials: CredentialStore, endpoints: ProviderEndpoints, logger: Logger)
        -> [any PushSender]
    {
        [
            APNsSender(credentials: credentials, endpoints: endpoints, logger: logger),
            FCMSender(credentials: credentials, endpoints: endpoints, logger: logger),
            HMSSender(credentials: credentials, endpoints: endpoints, logger: logger),
        ]
    }
}
