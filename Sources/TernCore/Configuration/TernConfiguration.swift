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
    /// The app's identity, sent as the subscription's `_app_id`, `_app_iid` and `_app_ver` fields; nil
    /// sends none.
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
    /// The reference's logging switch, kept and saved with the configuration. Tern writes no log of its
    /// own: everything it reports goes to `eventSDKFunctions` subscribers, whatever this is.
    public let enableLogging: Bool
    /// The APNs environment the app's token belongs to, sent with the subscription so the server
    /// pushes through the right gateway. Nil (the default): the build says, where it can (on iOS,
    /// the `aps-environment` entitlement of the app's `embedded.mobileprovision`: `development` is
    /// `APNsEnvironment.sandbox`; the simulator is the sandbox; an App Store build has no profile
    /// and is production), and `APNsEnvironment.production` when it cannot.
    public let apnsEnvironment: APNsEnvironment?
    /// How ``IdentityAPI/login(externalId:)`` proves who signs in: `IdentityMode.auto` (the
    /// default) follows the project's policy, read from the server; `IdentityMode.basic` sends the
    /// external id alone; `IdentityMode.verified` sends a JWT from the app's backend.
    public var identityMode: IdentityMode = .auto

    /// The default provider priority: APNs, then Firebase, then Huawei.
    public static let defaultProviderPriorityList = PushProvider.allCases.map(\.rawValue)
    /// The default ``placementsRequestInterval``: 300 seconds.
    public static let defaultPlacementsRequestInterval: TimeInterval = 300
    /// The default ``maxPlacements``: 10.
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
        private var apnsEnvironment: APNsEnvironment?
        private var identityMode: IdentityMode = .auto

        /// Starts a configuration; every argument but `apiUrl` has a default, and each has a setter.
        ///
        /// - Parameters:
        ///   - apiUrl: The server's API root, e.g. `https://push.example.com/api/v1`; required, an absolute
        ///     http(s) URL (otherwise `invalidUrlValue` and the configuration is refused).
        ///   - rToken: The resource token for device-level requests; default nil (JWT only). An empty string
        ///     is refused (`invalidRTokenValue`).
        ///   - appInfo: The app's identity for the subscription's fields; default nil.
        ///   - providerPriorityList: Push providers in priority order; default nil, meaning
        ///     ``TernConfiguration/defaultProviderPriorityList`` (`ios-apns`, `ios-firebase`, `ios-huawei`).
        ///   - inAppAutoRequest: Request in-app placements at initialization and then every interval;
        ///     default false.
        ///   - placementsRequestInterval: Seconds between automatic placement requests; default 300.
        ///   - maxPlacements: The most in-app placements kept; default 10.
        ///   - collectionEnabled: Collect and send data; default true.
        ///   - enableLogging: The reference's logging switch; default false.
        ///   - apnsEnvironment: The APNs environment of the app's token; default nil: the build's
        ///     (see ``TernConfiguration/apnsEnvironment``), production when the build does not say.
        public init(
            apiUrl: String, rToken: String? = nil, appInfo: AppInfo? = nil, providerPriorityList: [String]? = nil,
            inAppAutoRequest: Bool = false,
            placementsRequestInterval: TimeInterval = TernConfiguration.defaultPlacementsRequestInterval,
            maxPlacements: Int = TernConfiguration.defaultMaxPlacements, collectionEnabled: Bool = true,
            enableLogging: Bool = false, apnsEnvironment: APNsEnvironment? = nil
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
            self.apnsEnvironment = apnsEnvironment
        }

        /// A builder holding `configuration`'s values (the validator fixes bad values through it).
        convenience init(_ configuration: TernConfiguration) {
            self.init(
                apiUrl: configuration.apiUrl, rToken: configuration.rToken, appInfo: configuration.appInfo,
                providerPriorityList: configuration.providerPriorityList,
                inAppAutoRequest: configuration.inAppAutoRequest,
                placementsRequestInterval: configuration.placementsRequestInterval,
                maxPlacements: configuration.maxPlacements, collectionEnabled: configuration.collectionEnabled,
                enableLogging: configuration.enableLogging, apnsEnvironment: configuration.apnsEnvironment)
            identityMode = configuration.identityMode
        }

        func setApiUrl(_ value: String) {
            apiUrl = value
        }

        /// Sets the resource token (nil for JWT only).
        ///
        /// - Parameter value: The rToken; an empty string is refused at initialization (`invalidRTokenValue`).
        /// - Returns: This builder.
        @discardableResult public func setRToken(_ value: String?) -> Builder {
            rToken = value
            return self
        }

        /// Sets the app's identity sent with the subscription's fields.
        ///
        /// - Parameter value: The identity, or nil for none.
        /// - Returns: This builder.
        @discardableResult public func setAppInfo(_ value: AppInfo?) -> Builder {
            appInfo = value
            return self
        }

        /// Sets the push providers in priority order: the first with a token is used.
        ///
        /// - Parameter value: Provider names (`PushProvider` raw values: `ios-apns`,
        ///   `ios-firebase`, `ios-huawei`), each once. An empty, unknown or repeated one is reported
        ///   (`invalidPushProviders`) and the default list is used.
        /// - Returns: This builder.
        @discardableResult public func setProviderPriorityList(_ value: [String]) -> Builder {
            providerPriorityList = value
            return self
        }

        /// Sets whether in-app placements are requested at initialization and then every
        /// `placementsRequestInterval`.
        ///
        /// - Parameter value: True to request them automatically; default false.
        /// - Returns: This builder.
        @discardableResult public func setInAppAutoRequest(_ value: Bool) -> Builder {
            inAppAutoRequest = value
            return self
        }

        /// Sets the seconds between automatic in-app placement requests.
        ///
        /// - Parameter value: Above 0; otherwise `requestIntervalInvalid` and the default (300) is used.
        /// - Returns: This builder.
        @discardableResult public func setPlacementsRequestInterval(_ value: TimeInterval) -> Builder {
            placementsRequestInterval = value
            return self
        }

        /// Sets the most in-app placements kept.
        ///
        /// - Parameter value: At least 1; otherwise `maxPlacementsInvalid` and the default (10) is used.
        /// - Returns: This builder.
        @discardableResult public func setMaxPlacements(_ value: Int) -> Builder {
            maxPlacements = value
            return self
        }

        /// Sets whether the SDK collects and sends data. A saved `Tern.shared.setCollectionEnabled(false)`
        /// (the user's refusal) wins over true here.
        ///
        /// - Parameter value: False to send nothing until consent; default true.
        /// - Returns: This builder.
        @discardableResult public func setCollectionEnabled(_ value: Bool) -> Builder {
            collectionEnabled = value
            return self
        }

        /// Sets the reference's logging switch (see ``TernConfiguration/enableLogging``).
        ///
        /// - Parameter value: Default false.
        /// - Returns: This builder.
        @discardableResult public func setEnableLogging(_ value: Bool) -> Builder {
            enableLogging = value
            return self
        }

        /// Sets the APNs environment of the app's token: `APNsEnvironment.sandbox` for a
        /// development-signed build, `APNsEnvironment.production` for TestFlight, ad hoc and the App
        /// Store.
        ///
        /// ```swift
        /// TernConfiguration.Builder(apiUrl: url).setApnsEnvironment(.sandbox).build()
        /// ```
        ///
        /// - Parameter value: The environment, or nil (the default) to read it from the build
        ///   (production when the build does not say).
        /// - Returns: This builder.
        @discardableResult public func setApnsEnvironment(_ value: APNsEnvironment?) -> Builder {
            apnsEnvironment = value
            return self
        }

        /// Sets how logins prove who signs in (see ``TernConfiguration/identityMode``). Each queued
        /// operation keeps the mode it was made in: after a restart with another mode, an unfinished
        /// login halts with `IDENTITY_AUTH_MODE_CHANGED`.
        ///
        /// - Parameter value: `IdentityMode.auto` (default), `IdentityMode.basic` or `IdentityMode.verified`.
        /// - Returns: This builder.
        @discardableResult public func setIdentityMode(_ value: IdentityMode) -> Builder {
            identityMode = value
            return self
        }

        /// The configuration; it is validated by `initialization(configuration:)`, which reports bad values.
        public func build() -> TernConfiguration {
            var configuration = TernConfiguration(
                apiUrl: apiUrl, rToken: rToken, appInfo: appInfo, providerPriorityList: providerPriorityList,
                inAppAutoRequest: inAppAutoRequest, placementsRequestInterval: placementsRequestInterval,
                maxPlacements: maxPlacements, collectionEnabled: collectionEnabled, enableLogging: enableLogging,
                apnsEnvironment: apnsEnvironment)
            configuration.identityMode = identityMode
            return configuration
        }
    }
}

/// The app's identity, reported with the subscription's fields (`_app_id`, `_app_iid`, `_app_ver`).
public struct AppInfo: Sendable, Equatable, Codable {
    /// The app's identifier, sent as `_app_id`.
    public let appID: String
    /// The app's installation identifier, sent as `_app_iid`.
    public let appIID: String
    /// The app's version, sent as `_app_ver`.
    public let appVer: String

    /// Creates the app's identity.
    ///
    /// - Parameters:
    ///   - appID: The app's identifier (`_app_id`).
    ///   - appIID: The app's installation identifier (`_app_iid`).
    ///   - appVer: The app's version (`_app_ver`).
    public init(appID: String, appIID: String, appVer: String) {
        self.appID = appID
        self.appIID = appIID
        self.appVer = appVer
    }
}
