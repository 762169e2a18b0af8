import Foundation

/// ``DeviceInfoProvider`` from what Foundation can read on any system (the simulated device on
/// Linux, tests). The OS name and model can be set to simulate a phone.
public struct HostDeviceInfo: DeviceInfoProvider {
    /// The OS name to report; default `IOS`.
    public var os: String
    /// The model to report; nil reports the machine's hardware name (`uname`), e.g. `x86_64`.
    public var model: String?
    /// The device name to report; nil reports the host's name.
    public var name: String?
    /// The OS version to report; nil reports this system's version.
    public var osVersion: String?

    /// A description that reports this machine unless told otherwise.
    ///
    /// - Parameters:
    ///   - os: The OS name; default `IOS`.
    ///   - model: The model; default nil (this machine's hardware name).
    ///   - name: The device name; default nil (the host's name).
    ///   - osVersion: The OS version; default nil (this system's).
    public init(os: String = "IOS", model: String? = nil, name: String? = nil, osVersion: String? = nil) {
        self.os = os
        self.model = model
        self.name = name
        self.osVersion = osVersion
    }

    /// This machine as a device: the given values, else what Foundation reads (OS version, time zone,
    /// preferred language, host name); ad tracking off.
    ///
    /// - Returns: The device's description.
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
