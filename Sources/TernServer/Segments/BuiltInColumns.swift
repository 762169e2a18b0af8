import Foundation
import TernProtocol
import TernSQLite

/// The built-in field columns of a subscription row, read from its fields (the SDK sends them in
/// `custom_fields` and `device/report`), and `pushable`: written beside `fields` on every insert
/// and update, so the columns never disagree with what they come from.
struct BuiltInColumns: Equatable {
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

    /// The columns as a row holds them, in the order of ``names`` from column `first`.
    init(_ row: some SQLRow, from first: Int) {
        appVersionKey = row.string(first)
        language = row.string(first + 1)
        firstSession = row.int(first + 2)
        lastSession = row.int(first + 3)
        sessionCount = row.int(first + 4)
        foregroundTime = row.int(first + 5)
    }

    var values: [any SQLiteBindable] {
        [appVersionKey, language, firstSession, lastSession, sessionCount, foregroundTime]
    }

    /// `pushable`'s SQL: 1 for a subscription the push rules admit (subscribed, push, a known
    /// provider, a token) whose token has no invalid mark at least as new as its write; its
    /// parameters are ``pushableValues(_:updatedAt:)``. A later mark sets it to 0
    /// (`markTokenInvalid`); the subscription's next write sets it again.
    static let pushableSQL = """
        CASE WHEN ? = 1 AND NOT EXISTS (SELECT 1 FROM invalid_tokens i
            WHERE i.provider = ? AND i.token = ? AND i.marked_at >= ?) THEN 1 ELSE 0 END
        """

    static func pushableValues(_ s: SubscriptionValues, updatedAt: Int64) -> [any SQLiteBindable] {
        let eligible =
            s.channel == .push && s.status == .subscribed && s.provider != nil && !s.token.isEmpty
        return [eligible ? 1 : 0, s.channel.storedProvider(s.provider), s.token, updatedAt]
    }
}
