import Foundation
import TernProtocol

/// Where the providers are, and which certificate authorities to trust for them. The defaults
/// are the real services; tests and staging point them at local stand-ins.
///
/// ```swift
/// var endpoints = ProviderEndpoints()
/// endpoints.apnsSandbox = URL(string: "https://127.0.0.1:8443")!
/// endpoints.caFile = "/tmp/test-ca.pem"
/// ```
struct ProviderEndpoints: Sendable, Equatable {
    var apnsProduction = URL(string: "https://api.push.apple.com")!
    var apnsSandbox = URL(string: "https://api.sandbox.push.apple.com")!
    /// APNs' channel management service (broadcast channels of Live Activities), production.
    var apnsChannelsProduction = URL(string: "https://api-manage-broadcast.push.apple.com:2196")!
    /// APNs' channel management service, sandbox (development builds).
    var apnsChannelsSandbox = URL(string: "https://api-manage-broadcast.sandbox.push.apple.com:2195")!
    /// FCM HTTP v1's origin; messages go to `/v1/projects/{project_id}/messages:send`.
    var fcm = URL(string: "https://fcm.googleapis.com")!
    /// Overrides the service account's `token_uri` (Google's OAuth token endpoint) when set.
    var fcmToken: URL?
    /// HMS Push Kit's origin; messages go to `/v1/{app_id}/messages:send`.
    var hms = URL(string: "https://push-api.cloud.huawei.com")!
    var hmsToken = URL(string: "https://oauth-login.cloud.huawei.com/oauth2/v3/token")!
    /// A PEM file of certificate authorities to trust instead of the system's.
    var caFile: String?
    /// Seconds for one request to a provider, connection included.
    var requestTimeout: TimeInterval = 10

    init() {}

    /// The APNs origin for `environment`.
    func apns(_ environment: APNsEnvironment) -> URL {
        environment == .sandbox ? apnsSandbox : apnsProduction
    }

    /// The channel management origin for `environment`.
    func apnsChannels(_ environment: APNsEnvironment) -> URL {
        environment == .sandbox ? apnsChannelsSandbox : apnsChannelsProduction
    }
}
