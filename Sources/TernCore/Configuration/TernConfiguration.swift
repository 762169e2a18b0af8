import Foundation
import TernProtocol

/// The SDK's configuration, made with ``Builder`` and given to ``Tern/initialization(configuration:completion:)``.
///
/// ```swift
/// let config = TernConfiguration.Builder(apiUrl: "https://push.example.com/api/v1")
///     .setRToken("rt_…")
///     .build()
/// Tern.shared.initialization(configuration: config)
/// ```
public struct TernConfiguration: Sendable, Equatable {
    /// The server's API root, e.g. `http://127.0.0.1:8080/api/v1`.
    public let apiUrl: String
    /// The resource token for anonymous, device-level requests; nil when the app uses JWT only.
    public let rToken: String?
    public let appInfo: AppInfo?
    /// Push providers in priority order: the first one with a token wins.
    public let providerPriorityList: [String]
    /// Request in-app placements at initialization and then every ``placementsRequestInterval``.
    public let inAppAutoRequest: Bool
    /// Seconds between automatic placement requests; must be > 0.
    public let placementsRequestInterval: TimeInterval
    /// The most in-app placements kept; must be >= 1.
    public let maxPlacements: Int
    /// Collect and send data. A saved `setCollectionEnabled(false)` wins over true here.
    public let collectionEnabled: Bool
    public let enableLogging: Bool

    /// The default provider priority: APNs, then Firebase, then Huawei.
    public static let defaultProviderPriorityList = PushProvider.allCases.map(\.rawValue)
    public static let defaultPlacementsRequestInterval: TimeInterval = 300
    public static let defaultMaxPlacements = 10

    /// Builds a configuration; every setter returns the builder, so calls chain.
    public final class Builder {
        private var apiUrl: String
        private var rToken: String?
        private var appInfo: AppInfo?
        private var providerPriorityList: [String]
        private var inAppAutoRequest: Bool
        private var placementsRequestInterval: TimeInterval
        private var maxPlacements: Int
        private var collectionEnabled: Bool
        private var enableLogging: Bool

        public init(
            apiUrl: String, rToken: String? = nil, appInfo: AppInfo? = nil, providerPriorityList: [String]? = nil,
            inAppAutoRequest: Bool = false,
            placementsRequestInterval: TimeInterval = TernConfiguration.defaultPlacementsRequestInterval,
            maxPlacements: Int = TernConfiguration.defaultMaxPlacements, collectionEnabled: Bool = true,
            enableLogging: Bool = false
        ) {
            self.apiUrl = apiUrl
            self.rToken = rToken
            self.appInfo = appInfo
            self.providerPriorityList = providerPriorityList ?? TernConfiguration.defaultProviderPriorityList
            self.inAppAutoRequest = inAppAutoRequest
            self.placementsRequestInterval = placementsRequestInterval
            self.maxPlacements = maxPlacements
            self.collectionEnabled = collectionEnabled
            self.enableLogging = enableLogging
        }

        /// A builder holding `configuration`'s values (the validator fixes bad values through it).
        convenience init(_ configuration: TernConfiguration) {
            self.init(
                apiUrl: configuration.apiUrl, rToken: configuration.rToken, appInfo: configuration.appInfo,
                providerPriorityList: configuration.providerPriorityList,
                inAppAutoRequest: configuration.inAppAutoRequest,
                placementsRequestInterval: configuration.placementsRequestInterval,
                maxPlacements: configuration.maxPlacements, collectionEnabled: configuration.collectionEnabled,
                enableLogging: configuration.enableLogging)
        }

        func setApiUrl(_ value: String) {
            apiUrl = value
        }

        @discardableResult public func setRToken(_ value: String?) -> Builder {
            rToken = value
            return self
        }

        @discardableResult public func setAppInfo(_ value: AppInfo?) -> Builder {
            appInfo = value
            return self
        }

        @discardableResult public func setProviderPriorityList(_ value: [String]) -> Builder {
            providerPriorityList = value
            return self
        }

        @discardableResult public func setInAppAutoRequest(_ value: Bool) -> Builder {
            inAppAutoRequest = value
            return self
        }

        @discardableResult public func setPlacementsRequestInterval(_ value: TimeInterval) -> Builder {
            placementsRequestInterval = value
            return self
        }

        @discardableResult public func setMaxPlacements(_ value: Int) -> Builder {
            maxPlacements = value
            return self
        }

        @discardableResult public func setCollectionEnabled(_ value: Bool) -> Builder {
            collectionEnabled = value
            return self
        }

        @discardableResult public func setEnableLogging(_ value: Bool) -> Builder {
            enableLogging = value
            return self
        }

        /// The configuration; it is validated by `initialization(configuration:)`, which reports bad values.
        public func build() -> TernConfiguration {
            TernConfiguration(
                apiUrl: apiUrl, rToken: rToken, appInfo: appInfo, providerPriorityList: providerPriorityList,
                inAppAutoRequest: inAppAutoRequest, placementsRequestInterval: placementsRequestInterval,
                maxPlacements: maxPlacements, collectionEnabled: collectionEnabled, enableLogging: enableLogging)
        }
    }
}

/// The app's identity, reported with the subscription's fields (`_app_id`, `_app_iid`, `_app_ver`).
public struct AppInfo: Sendable, Equatable, Codable {
    public let appID: String
    public let appIID: String
    public let appVer: String

    public init(appID: String, appIID: String, appVer: String) {
        self.appID = appID
        self.appIID = appIID
        self.appVer = appVer
    }
}
