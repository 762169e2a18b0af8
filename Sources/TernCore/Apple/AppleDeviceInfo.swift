#if os(iOS)
    import Foundation
    import UIKit
    import AdSupport
    import AppTrackingTransparency

    /// ``DeviceInfoProvider`` for iOS: `UIDevice` for the OS version and the device's kind, the
    /// hardware model from `uname` (e.g. `iPhone14,7`), and the advertising identifier only when the
    /// user allowed tracking (App Tracking Transparency).
    public struct AppleDeviceInfo: DeviceInfoProvider {
        /// The device's description, read from the system each time ``current()`` is called.
        public init() {}

        public func current() async -> DeviceInfo {
            let (version, kind) = await MainActor.run { (UIDevice.current.systemVersion, UIDevice.current.model) }
            let tracking = Self.trackingAllowed()
            let language = Locale.preferredLanguages.first.flatMap { $0.split(separator: "-").first.map(String.init) }
            return DeviceInfo(
                os: "IOS", osVersion: version, timeZoneOffsetSeconds: TimeZone.current.secondsFromGMT(),
                language: language ?? "en", model: HostDeviceInfo.machine(), name: kind,
                adTrackingEnabled: tracking, advertisingId: tracking ? Self.advertisingIdentifier() : nil)
        }

        static func trackingAllowed() -> Bool {
            ATTrackingManager.trackingAuthorizationStatus == .authorized
        }

        static func advertisingIdentifier() -> String? {
            let id = ASIdentifierManager.shared().advertisingIdentifier.uuidString
            return id == "00000000-0000-0000-0000-000000000000" ? nil : id
        }
    }
#endif
