import Foundation
import TernProtocol
import TernSQLite

/// The built-in field columns of a subscription row, read from its fields (the SDK sends them in
/// `custom_fields` and `device/report`): written beside `fields` on every insert and update, so
/// the columns never disagree with the fields they come from.
struct BuiltInColumns {
    var appVersionKey: String?
    var language: String?
    var firstSession: Int64?
    var lastSession: Int64?
    var sessionCount: Int64?
    var foregroundTime: Int64?

    /// The columns' names, in the order of ``values``.
    static let names = [
        "app_version_key", "language", "first_session", "last_session", "session_count", "foreground_time",
    ]

    init(_ fields: [String: JSONValue]) {
        appVersionKey = fields[BuiltInField.appVersion.key]?.stringValue.flatMap(VersionKey.key)
        language = fields[BuiltInField.language.key]?.stringValue
        func whole(_ field: BuiltInField) -> Int64? {
            fields[field.key]?.doubleValue.map { Int64(max(-9e18, min(9e18, $0)).rounded()) }
        }
        firstSession = whole(.firstSession)
        lastSession = whole(.lastSession)
        sessionCount = whole(.sessionCount)
        foregroundTime = whole(.foregroundTime)
    }

    var values: [any SQLiteBindable] {
        [appVersionKey, language, firstSession, lastSession, sessionCount, foregroundTime]
    }
}
