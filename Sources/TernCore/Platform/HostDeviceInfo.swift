import Foundation

/// ``DeviceInfoProvider`` from what Foundation can read on any system (the simulated device on
/// Linux, tests). The OS name and model can be set to simulate a phone.
public struct HostDeviceInfo: DeviceInfoProvider {
    public var os: String
    public var model: String?
    public var name: String?
    public var osVersion: String?

    public init(os: String = "IOS", model: String? = nil, name: String? = nil, osVersion: String? = nil) {
        self.os = os
        self.model = model
        self.name = name
        self.osVersion = osVersion
    }

    public func current() async -> DeviceInfo {
        let process = ProcessInfo.processInfo
        let version = process.operatingSystemVersion
        let language = Locale.preferredLanguages.first.flatMap { $0.split(separator: "-").first.map(String.init) }
        return DeviceInfo(
            os: os,
            osVersion: osVersion ?? "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)",
            timeZoneOffsetSeconds: TimeZone.current.secondsFromGMT(),
            language: language ?? "en",
            model: model ?? Self.machine(),
            name: name ?? process.hostName,
            adTrackingEnabled: false,
            advertisingId: nil)
    }

    /// The hardware name as uname reports it, e.g. `x86_64`.
    static func machine() -> String {
        var info = utsname()
        uname(&info)
        return withUnsafeBytes(of: &info.machine) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}
