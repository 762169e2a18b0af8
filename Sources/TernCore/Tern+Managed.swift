import Foundation

extension Tern {
    /// One-line set-up: the app group, the configuration (with the app's identity read from its
    /// bundle), the background flush, and initialization, in that order.
    ///
    /// Without `appGroup`, the `TernAppGroup` key of Info.plist is used, if any. Call it in
    /// `application(_:didFinishLaunchingWithOptions:)` (the background flush must be registered
    /// before launch ends; list ``BackgroundTasksAPI/identifier`` in `BGTaskSchedulerPermittedIdentifiers`).
    ///
    /// ```swift
    /// Tern.shared.initialize(apiUrl: "https://push.example.com/api/v1", rToken: "rt_…")
    /// // Until the user consents:
    /// Tern.shared.initialize(apiUrl: apiUrl, rToken: rToken, collectionEnabled: false)
    /// ```
    @available(iOSApplicationExtension, unavailable)
    public func initialize(
        apiUrl: String, rToken: String? = nil, appGroup: String? = nil, collectionEnabled: Bool = true,
        backgroundFlush: Bool = true, completion: (@Sendable ([ModuleInitStatus]) -> Void)? = nil
    ) {
        let bundle = Bundle.main
        let group = appGroup ?? bundle.object(forInfoDictionaryKey: "TernAppGroup") as? String
        if let group { setAppGroup(groupName: group) }
        if backgroundFlush { backgroundTasks.registerBackgroundTask() }
        let builder = TernConfiguration.Builder(apiUrl: apiUrl, rToken: rToken, collectionEnabled: collectionEnabled)
        if let appInfo = Self.appInfo(bundle) { builder.setAppInfo(appInfo) }
        initialization(configuration: builder.build(), completion: completion)
    }

    /// The app's identity from its bundle: identifier, build number and version; nil outside an app.
    static func appInfo(_ bundle: Bundle) -> AppInfo? {
        guard let id = bundle.bundleIdentifier,
            let version = bundle.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String
        else { return nil }
        let build = bundle.object(forInfoDictionaryKey: "CFBundleVersion") as? String ?? version
        return AppInfo(appID: id, appIID: build, appVer: version)
    }
}
