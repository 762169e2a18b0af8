/// The push providers Tern sends through, as credential kinds.
public enum ProviderKind: String, Sendable, CaseIterable, Codable {
    case apns
    case fcm
    case hms

    /// The subscription provider this credential serves.
    public var provider: String {
        switch self {
        case .apns: "ios-apns"
        case .fcm: "ios-firebase"
        case .hms: "ios-huawei"
        }
    }

    /// How people call it in messages.
    public var title: String {
        switch self {
        case .apns: "APNs"
        case .fcm: "FCM"
        case .hms: "HMS"
        }
    }
}
