import TernProtocol

/// How the server names each provider outside the wire: its credential (the file
/// `credentials/<project>/apns.json`, the route `…/credentials/apns`) and its title in messages.
extension PushProvider {
    /// The provider's name in credential files and routes: `apns`, `fcm` or `hms`.
    var credentialName: String {
        switch self {
        case .apns: "apns"
        case .firebase: "fcm"
        case .huawei: "hms"
        }
    }

    /// The provider whose credential is called `credentialName`, if any.
    init?(credentialName: String) {
        guard let provider = Self.allCases.first(where: { $0.credentialName == credentialName }) else { return nil }
        self = provider
    }

    /// How people call it in messages: `APNs`, `FCM`, `HMS`.
    var title: String {
        switch self {
        case .apns: "APNs"
        case .firebase: "FCM"
        case .huawei: "HMS"
        }
    }
}
