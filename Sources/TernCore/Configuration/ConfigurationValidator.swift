import Foundation
import TernProtocol

/// Checks a configuration before the SDK uses it. Pure: the answer is the configuration to use
/// (nil when it cannot be used) and the events to report.
public enum ConfigurationValidator {
    /// What ``validate(_:checks:)`` decided.
    public struct Outcome: Sendable {
        /// The configuration to use; nil when the URL or rToken make it unusable.
        public var configuration: TernConfiguration?
        /// The events to report for the configuration, in order: an error per bad value (e.g.
        /// `invalidUrlValue`, then the modules' own, e.g. `invalidPushProviders`).
        public var events: [EventRecord]
    }

    static let function = "initialization"

    /// Checks `configuration`: an invalid `apiUrl` (not an absolute http(s) URL with a host,
    /// `invalidUrlValue`) or an empty `rToken` (`invalidRTokenValue`) make it unusable. The URL is
    /// trimmed of spaces and trailing slashes. Then each module's checks run
    /// (``ModuleParts/checkConfiguration``, in module order), which report their own events and
    /// replace their own bad values by defaults (push: the provider list; in-app: `maxPlacements`
    /// and `placementsRequestInterval`).
    ///
    /// - Parameters:
    ///   - configuration: The configuration the app passed to `initialization(configuration:)`.
    ///   - checks: The modules' configuration checks; default none.
    /// - Returns: The configuration to use (nil when unusable) and the events to report.
    public static func validate(
        _ configuration: TernConfiguration, checks: [ModuleParts.ConfigurationCheck] = []
    ) -> Outcome {
        var events: [EventRecord] = []
        var usable = true
        let builder = TernConfiguration.Builder(configuration)
        if !isValidAPIURL(configuration.apiUrl) {
            events.append(.error(function, CoreEvents.invalidUrlValue, value: ["apiUrl": configuration.apiUrl]))
            usable = false
        }
        if let rToken = configuration.rToken, rToken.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            events.append(.error(function, CoreEvents.invalidRTokenValue))
            usable = false
        }
        for check in checks { events += check(configuration, builder) }
        guard usable else { return Outcome(configuration: nil, events: events) }
        builder.setApiUrl(normalized(configuration.apiUrl))
        return Outcome(configuration: builder.build(), events: events)
    }

    /// An absolute http(s) URL with a host.
    static func isValidAPIURL(_ value: String) -> Bool {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
        else { return false }
        return true
    }

    /// Without surrounding spaces and trailing slashes, so `<apiUrl>/<endpoint>` joins cleanly.
    static func normalized(_ value: String) -> String {
        var trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }
}
