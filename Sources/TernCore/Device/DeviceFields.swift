import Foundation
import TernProtocol

/// Turns ``DeviceInfo`` into the subscription's automatic fields (`_os`, `_os_tz`, `_os_language`,
/// `_device_type`, `_device_model`, `_device_name`, `_os_ver`, `_ad_track`, `_ad_id`). Pure.
public enum DeviceFields {
    /// The automatic subscription fields for `info`; `_ad_id` only when ad tracking is on and an
    /// advertising id is known.
    ///
    /// - Parameter info: The device's description.
    /// - Returns: The fields, e.g. `["_os": "IOS", "_os_tz": "+0300", "_device_type": "mob", ...]`.
    public static func fields(_ info: DeviceInfo) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "_os": .string(info.os),
            "_os_tz": .string(timeZone(info.timeZoneOffsetSeconds)),
            "_os_language": .string(info.language),
            "_device_type": .string(info.deviceType),
            "_device_model": .string(info.model),
            "_device_name": .string(info.name),
            "_os_ver": osVersion(info.osVersion),
            "_ad_track": .bool(info.adTrackingEnabled),
        ]
        if info.adTrackingEnabled, let id = info.advertisingId, !id.isEmpty {
            fields["_ad_id"] = .string(id)
        }
        return fields
    }

    /// `+0300` for three hours east of UTC, `-0530` for five and a half west.
    public static func timeZone(_ secondsFromGMT: Int) -> String {
        let sign = secondsFromGMT < 0 ? "-" : "+"
        let minutes = abs(secondsFromGMT) / 60
        let hours = minutes / 60
        let rest = minutes % 60
        return sign + (hours < 10 ? "0" : "") + String(hours) + (rest < 10 ? "0" : "") + String(rest)
    }

    /// `{"raw": "18.6.2", "ver": "[\"18.0\", \"6.0\", \"2.0\"]"}`: the raw version and each numeric
    /// part as a decimal, in a string, as the reference's example shows.
    public static func osVersion(_ raw: String) -> JSONValue {
        let parts = raw.split(separator: ".").map { part -> String in
            let digits = part.prefix(while: \.isNumber)
            return "\"\(Int(digits) ?? 0).0\""
        }
        return .object(["raw": .string(raw), "ver": .string("[" + parts.joined(separator: ", ") + "]")])
    }
}
