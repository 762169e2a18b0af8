import Foundation

/// Which APNs gateway a device's token belongs to: a token issued to a development-signed build
/// (Xcode, the simulator) works only through the sandbox, one issued to a TestFlight, ad hoc or
/// App Store build only through production. The SDK says which with every subscription
/// (`apns_environment`), and the server sends each token through its own gateway.
///
/// ```swift
/// TernConfiguration.Builder(apiUrl: url).setApnsEnvironment(.sandbox)
/// ```
public enum APNsEnvironment: String, Codable, Sendable, CaseIterable {
    /// `api.sandbox.push.apple.com`: development builds (the `aps-environment` entitlement `development`).
    case sandbox
    /// `api.push.apple.com`: TestFlight, ad hoc and App Store builds (entitlement `production`); the default.
    case production

    /// The wire names, for error messages: `sandbox, production`.
    public static var wireNames: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The environment an `aps-environment` entitlement value names: `development` is the sandbox,
    /// `production` is production; nil for anything else.
    ///
    /// - Parameter entitlement: The entitlement's value, as in a provisioning profile.
    /// - Returns: The environment, or nil for an unknown value.
    public init?(entitlement: String) {
        switch entitlement {
        case "development": self = .sandbox
        case "production": self = .production
        default: return nil
        }
    }

    /// Reads a wire name; another value is refused with the names it may be.
    ///
    /// - Parameter decoder: The decoder holding a string.
    /// - Throws: `DecodingError.dataCorrupted` naming the allowed values.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let environment = APNsEnvironment(rawValue: text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "must be \(Self.wireNames) (the token's APNs environment), not \"\(text.prefix(32))\""
            )
        }
        self = environment
    }
}
