import Foundation

/// What the SDK reports about the device with every push subscription change.
public struct DeviceInfo: Sendable, Equatable {
    /// `IOS` on iPhones and iPads.
    public var os: String
    /// The OS version as the system gives it, e.g. `18.6.2`.
    public var osVersion: String
    /// Seconds east of UTC.
    public var timeZoneOffsetSeconds: Int
    /// The preferred language's code, e.g. `en`.
    public var language: String
    /// Always `mob` for phones and tablets.
    public var deviceType: String
    /// The hardware model, e.g. `iPhone14,7`.
    public var model: String
    /// The device's kind as the system names it, e.g. `iPhone`.
    public var name: String
    /// True when the user allows ad tracking.
    public var adTrackingEnabled: Bool
    /// The advertising identifier; nil unless tracking is allowed.
    public var advertisingId: String?

    /// Describes a device.
    ///
    /// - Parameters:
    ///   - os: The OS name, `IOS` on iPhones and iPads.
    ///   - osVersion: The OS version, e.g. `18.6.2`.
    ///   - timeZoneOffsetSeconds: Seconds east of UTC.
    ///   - language: The preferred language's code, e.g. `en`.
    ///   - deviceType: The device type; default `mob`.
    ///   - model: The hardware model, e.g. `iPhone14,7`.
    ///   - name: The device's kind, e.g. `iPhone`.
    ///   - adTrackingEnabled: Whether the user allows ad tracking; default false.
    ///   - advertisingId: The advertising identifier; default nil.
    public init(
        os: String, osVersion: String, timeZoneOffsetSeconds: Int, language: String, deviceType: String = "mob",
        model: String, name: String, adTrackingEnabled: Bool = false, advertisingId: String? = nil
    ) {
        self.os = os
        self.osVersion = osVersion
        self.timeZoneOffsetSeconds = timeZoneOffsetSeconds
        self.language = language
        self.deviceType = deviceType
        self.model = model
        self.name = name
        self.adTrackingEnabled = adTrackingEnabled
        self.advertisingId = advertisingId
    }
}

/// Reads ``DeviceInfo`` from the system.
public protocol DeviceInfoProvider: Sendable {
    /// The device as it is now; read before each subscription change, so a new OS version or time zone
    /// is reported.
    ///
    /// - Returns: The device's description.
    func current() async -> DeviceInfo
}
