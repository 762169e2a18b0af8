import Foundation
import TernProtocol

/// Reads the APNs environment out of a provisioning profile (`embedded.mobileprovision`): the
/// profile is a signed CMS message whose content is an XML property list, and its
/// `Entitlements` → `aps-environment` says `development` (the sandbox) or `production`. Portable:
/// the iOS glue (`AppleProvisioningProfile`) only finds the file.
///
/// ```swift
/// let data = try Data(contentsOf: Bundle.main.url(forResource: "embedded", withExtension: "mobileprovision")!)
/// ProvisioningProfile.apnsEnvironment(in: data)   // .sandbox for a development profile
/// ```
public enum ProvisioningProfile {
    /// The profile's property list (the XML between `<?xml` and `</plist>`), nil when there is none
    /// or it does not parse as a dictionary.
    ///
    /// - Parameter profile: The profile file's bytes.
    /// - Returns: The property list's top-level dictionary.
    public static func propertyList(in profile: Data) -> [String: Any]? {
        guard let start = profile.firstRange(of: Data("<?xml".utf8)),
            let end = profile[start.lowerBound...].firstRange(of: Data("</plist>".utf8))
        else { return nil }
        let xml = profile[start.lowerBound..<end.upperBound]
        return (try? PropertyListSerialization.propertyList(from: Data(xml), options: [], format: nil))
            as? [String: Any]
    }

    /// The profile's `aps-environment` entitlement as written (`development`, `production`), nil
    /// when the profile has none (the app lacks the Push Notifications capability) or cannot be read.
    ///
    /// - Parameter profile: The profile file's bytes.
    /// - Returns: The entitlement's value.
    public static func apsEnvironment(in profile: Data) -> String? {
        let entitlements = propertyList(in: profile)?["Entitlements"] as? [String: Any]
        return entitlements?["aps-environment"] as? String
    }

    /// The APNs environment a profile names, nil when it names none or an unknown one.
    ///
    /// - Parameter profile: The profile file's bytes.
    /// - Returns: `APNsEnvironment.sandbox` for `development`, `APNsEnvironment.production` for `production`.
    public static func apnsEnvironment(in profile: Data) -> APNsEnvironment? {
        apsEnvironment(in: profile).flatMap(APNsEnvironment.init(entitlement:))
    }

    /// The environment of a build from what it carries: the simulator is the sandbox; a build
    /// without a profile is an App Store build, production; otherwise the profile's entitlement
    /// (nil when the profile does not say).
    ///
    /// - Parameters:
    ///   - profile: The bytes of the build's `embedded.mobileprovision`, nil when it has none.
    ///   - simulator: True when running in the simulator.
    /// - Returns: The build's environment, or nil when it cannot be told.
    public static func buildEnvironment(profile: Data?, simulator: Bool) -> APNsEnvironment? {
        if simulator { return .sandbox }
        guard let profile else { return .production }
        return apnsEnvironment(in: profile)
    }
}
