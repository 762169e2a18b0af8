import Foundation

/// The app's configuration as its Notification Service Extension needs it: saved in the app-group
/// database each time the app initializes the SDK, and read by the extension, which never calls
/// `initialization` itself, so its delivery reports are written and sent.
///
/// ```swift
/// if let saved = try await SharedConfiguration.load(from: tern.environment.container, group: "group.com.example.app") {
///     tern.initialization(configuration: saved.configuration)
/// }
/// ```
public struct SharedConfiguration: Codable, Sendable, Equatable {
    /// The settings key in the app-group database.
    static let settingKey = "push.sharedConfiguration"

    /// The server's API root from the app's configuration.
    public var apiUrl: String
    /// The app's resource token, if any.
    public var rToken: String?
    /// The app's push providers in priority order.
    public var providerPriorityList: [String]
    /// The app's identity, if it gave one.
    public var appInfo: AppInfo?
    /// The configuration's consent (`collectionEnabled`); nil in copies saved before it was kept,
    /// read as on. A saved opt-out (`setCollectionEnabled(false)`) lives in the same database and
    /// applies in the extension whatever this says.
    public var collectionEnabled: Bool?

    /// The extension's copy of `configuration`.
    ///
    /// - Parameter configuration: The configuration in force in the app.
    public init(_ configuration: TernConfiguration) {
        apiUrl = configuration.apiUrl
        rToken = configuration.rToken
        providerPriorityList = configuration.providerPriorityList
        appInfo = configuration.appInfo
        collectionEnabled = configuration.collectionEnabled
    }

    /// A configuration for the extension: the app's server, credentials, provider priority and consent.
    public var configuration: TernConfiguration {
        TernConfiguration.Builder(
            apiUrl: apiUrl, rToken: rToken, appInfo: appInfo, providerPriorityList: providerPriorityList,
            collectionEnabled: collectionEnabled ?? true
        )
        .build()
    }

    enum CodingKeys: String, CodingKey {
        case apiUrl = "api_url"
        case rToken = "r_token"
        case providerPriorityList = "provider_priority_list"
        case appInfo = "app_info"
        case collectionEnabled = "collection_enabled"
    }

    /// Saves the configuration in force (called by the push module's initialization).
    static func save(_ ready: ReadyCore) async {
        do {
            try await ready.store.setSetting(settingKey, SharedConfiguration(ready.configuration))
        } catch {
            ready.emit(
                .error(
                    "initialization", PushModuleEvents.pushConfigurationSaveFailed,
                    value: ["reason": "the extension's copy of the configuration was not saved: \(error)"]))
        }
    }

    /// The configuration the app saved in `group`'s database; nil when the app has not initialized
    /// the SDK since it was installed (or cleared). Throws when the database cannot be opened.
    public static func load(from container: any AppGroupContainer, group: String?) async throws
        -> SharedConfiguration?
    {
        let store = try CoreStore(directory: try container.directory(forGroup: group))
        return await store.setting(settingKey, as: SharedConfiguration.self)
    }
}
