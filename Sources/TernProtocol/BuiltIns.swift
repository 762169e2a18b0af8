import Foundation

/// The built-in subscription fields the SDK reports about the app and its sessions, by the keys
/// both halves use in a subscription's `custom_fields` and in ``DeviceReportRequest``. The server
/// keeps each in a column of its own so audiences filter on them with an index.
public enum BuiltInField: String, CaseIterable, Sendable, Codable {
    /// The app's version (`CFBundleShortVersionString`), compared as a version: `2.10` > `2.9`.
    case appVersion = "app_version"
    /// The device's language, e.g. `en`.
    case language
    /// When the first session started, in milliseconds since 1970.
    case firstSession = "first_session"
    /// When the latest session started, in milliseconds since 1970.
    case lastSession = "last_session"
    /// How many sessions the app has had.
    case sessionCount = "session_count"
    /// Seconds the app has spent in the foreground, all sessions together.
    case foregroundTime = "foreground_time"

    /// The key of the field in a subscription's fields, e.g. `_session_count`.
    public var key: String {
        switch self {
        case .appVersion: "_app_ver"
        case .language: "_os_language"
        case .firstSession: "_first_session"
        case .lastSession: "_last_session"
        case .sessionCount: "_session_count"
        case .foregroundTime: "_foreground_time"
        }
    }

    /// What kind of value the field holds.
    public var kind: Kind {
        switch self {
        case .appVersion: .version
        case .language: .text
        case .firstSession, .lastSession: .time
        case .sessionCount, .foregroundTime: .number
        }
    }

    /// The kinds of value a built-in field holds.
    public enum Kind: String, Sendable {
        /// Dotted numbers, compared part by part.
        case version
        /// Text, compared for equality only.
        case text
        /// Milliseconds since 1970.
        case time
        /// A whole number.
        case number
    }
}

/// `device/report`: the built-in fields of the install's current binding (the push subscription of
/// the device's token in the profile it is bound to), sent by the SDK on its own schedule (when a
/// session starts and when the app leaves the foreground), not only with subscription changes.
/// Fields left out keep their values.
public struct DeviceReportRequest: Codable, Sendable, Equatable {
    /// When the SDK made the report, in milliseconds since 1970: an older report than the one
    /// kept changes nothing.
    public var time: Int64
    /// The device's push provider; names the install.
    public var provider: String
    /// The device's push token.
    public var subscriptionId: String
    /// The app's version, e.g. `2.1.0`.
    public var appVersion: String?
    /// The device's language, e.g. `en`.
    public var language: String?
    /// When the first session started, ms since 1970.
    public var firstSession: Int64?
    /// When the latest session started, ms since 1970.
    public var lastSession: Int64?
    /// Sessions so far.
    public var sessionCount: Int64?
    /// Foreground seconds so far.
    public var foregroundTime: Int64?
    /// The device's offset from UTC now, `+0300` or `-0530`: kept as the subscription's `_os_tz`,
    /// so a message sent at a local time of day follows a device that travelled or changed to
    /// daylight saving time since it subscribed.
    public var timeZone: String?

    /// The subscription field that holds the device's offset from UTC.
    public static let timeZoneKey = "_os_tz"

    /// A report.
    ///
    /// - Parameters:
    ///   - time: When the SDK made it, ms since 1970.
    ///   - provider: The device's provider.
    ///   - subscriptionId: The device's token.
    ///   - appVersion: The app's version; default nil (unchanged).
    ///   - language: The device's language; default nil.
    ///   - firstSession: The first session's start; default nil.
    ///   - lastSession: The latest session's start; default nil.
    ///   - sessionCount: Sessions so far; default nil.
    ///   - foregroundTime: Foreground seconds so far; default nil.
    ///   - timeZone: The device's offset from UTC, `+0300`; default nil.
    public init(
        time: Int64, provider: String, subscriptionId: String, appVersion: String? = nil, language: String? = nil,
        firstSession: Int64? = nil, lastSession: Int64? = nil, sessionCount: Int64? = nil,
        foregroundTime: Int64? = nil, timeZone: String? = nil
    ) {
        self.time = time
        self.provider = provider
        self.subscriptionId = subscriptionId
        self.appVersion = appVersion
        self.language = language
        self.firstSession = firstSession
        self.lastSession = lastSession
        self.sessionCount = sessionCount
        self.foregroundTime = foregroundTime
        self.timeZone = timeZone
    }

    /// The report as subscription fields, by ``BuiltInField/key``; fields left out are absent.
    public var fields: [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        if let appVersion { fields[BuiltInField.appVersion.key] = .string(appVersion) }
        if let language { fields[BuiltInField.language.key] = .string(language) }
        if let firstSession { fields[BuiltInField.firstSession.key] = .int(firstSession) }
        if let lastSession { fields[BuiltInField.lastSession.key] = .int(lastSession) }
        if let sessionCount { fields[BuiltInField.sessionCount.key] = .int(sessionCount) }
        if let foregroundTime { fields[BuiltInField.foregroundTime.key] = .int(foregroundTime) }
        if let timeZone { fields[Self.timeZoneKey] = .string(timeZone) }
        return fields
    }

    enum CodingKeys: String, CodingKey {
        case time, provider, language
        case subscriptionId = "subscription_id"
        case appVersion = "app_version"
        case firstSession = "first_session"
        case lastSession = "last_session"
        case sessionCount = "session_count"
        case foregroundTime = "foreground_time"
        case timeZone = "time_zone"
    }
}

/// Versions compared part by part as numbers (`2.10` after `2.9`, `2` equal to `2.0.0`), through a
/// text key that sorts the same way, so a database compares versions with an index.
public enum VersionKey {
    /// Parts compared; later ones are ignored.
    public static let parts = 4

    /// The sortable key of `version`: up to four dot-separated parts, each its leading digits as
    /// a number (a part without any is 0), zero-padded to 9 digits; nil when the text has no digit.
    ///
    /// - Parameter version: e.g. `2.10.1` or `3.0 (45)`.
    /// - Returns: e.g. `000000002.000000010.000000001.000000000`.
    public static func key(_ version: String) -> String? {
        let trimmed = version.trimmingCharacters(in: .whitespaces)
        guard trimmed.first?.isNumber == true else { return nil }
        var numbers = trimmed.split(separator: ".", omittingEmptySubsequences: false).prefix(parts).map {
            part -> Int in
            let digits = part.prefix(while: { $0.isASCII && $0.isNumber }).prefix(9)
            return Int(digits) ?? 0
        }
        while numbers.count < parts { numbers.append(0) }
        return numbers.map { number in
            let text = String(number)
            return String(repeating: "0", count: max(0, 9 - text.count)) + text
        }.joined(separator: ".")
    }
}
