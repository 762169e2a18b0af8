import Foundation
import TernProtocol

/// What the SDK knows about the app's sessions; saved in the settings.
struct SessionRecord: Codable, Sendable, Equatable {
    var first: Date?
    var last: Date?
    var count = 0
    /// Foreground seconds of finished stretches.
    var foregroundSeconds: Double = 0
    /// When the current foreground stretch began; nil in the background.
    var stretchStart: Date?
    /// When the app last left the foreground.
    var lastBackground: Date?

    /// Pure: the record after the app comes to the foreground at `now`. A session starts on the
    /// first foreground and whenever the app was away longer than `timeout`.
    func enteringForeground(at now: Date, timeout: TimeInterval) -> SessionRecord {
        guard stretchStart == nil else { return self }
        var next = self
        if let away = lastBackground, now.timeIntervalSince(away) <= timeout, count > 0 {
            next.stretchStart = now
            return next
        }
        next.count += 1
        next.first = first ?? now
        next.last = now
        next.stretchStart = now
        return next
    }

    /// Pure: the record after the app leaves the foreground at `now`.
    func enteringBackground(at now: Date) -> SessionRecord {
        guard let start = stretchStart else { return self }
        var next = self
        next.foregroundSeconds += max(0, now.timeIntervalSince(start))
        next.stretchStart = nil
        next.lastBackground = now
        return next
    }

    /// The fields reported with the subscription: first and last session start (ms since 1970),
    /// the session count and the foreground seconds so far.
    func fields(now: Date) -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["_session_count": .int(Int64(count))]
        let running = stretchStart.map { max(0, now.timeIntervalSince($0)) } ?? 0
        fields["_foreground_time"] = .int(Int64((foregroundSeconds + running).rounded()))
        if let first { fields["_first_session"] = .int(Int64(first.timeIntervalSince1970 * 1000)) }
        if let last { fields["_last_session"] = .int(Int64(last.timeIntervalSince1970 * 1000)) }
        return fields
    }
}

extension SessionRecord {
    /// The `device/report` of this record at `now` for the device's token, with the app's version,
    /// the device's language and its offset from UTC (`+0300`).
    func report(token: TokenData, appVersion: String?, language: String?, timeZone: String?, now: Date)
        -> DeviceReportRequest
    {
        let fields = fields(now: now)
        return DeviceReportRequest(
            time: Int64(now.timeIntervalSince1970 * 1000), provider: token.provider, subscriptionId: token.token,
            appVersion: appVersion.flatMap { $0.isEmpty ? nil : $0 },
            language: language.flatMap { $0.isEmpty ? nil : $0 },
            firstSession: fields[BuiltInField.firstSession.key]?.intValue,
            lastSession: fields[BuiltInField.lastSession.key]?.intValue,
            sessionCount: fields[BuiltInField.sessionCount.key]?.intValue,
            foregroundTime: fields[BuiltInField.foregroundTime.key]?.intValue, timeZone: timeZone)
    }

    /// Pure: whether going from `before` to this record is worth a report: a session started, or a
    /// foreground stretch ended (its time counted).
    func isReportable(after before: SessionRecord) -> Bool {
        count != before.count || (before.stretchStart != nil && stretchStart == nil)
    }
}

/// Counts sessions from the app's lifecycle: initialization alone starts none, being in the
/// foreground does. Records nothing while collection is off. It is a value held by `CoreRuntime`
/// (which saves it and queues a `device/report` when a session starts or a foreground stretch
/// ends), so a subscribe reads the session fields without leaving the core's actor.
struct SessionTracker {
    static let key = "core.sessions"
    let timeout: TimeInterval
    var enabled: Bool
    private(set) var record = SessionRecord()

    init(timeout: TimeInterval, enabled: Bool) {
        self.timeout = timeout
        self.enabled = enabled
    }

    /// Takes the saved record. A stretch the last process ended in the foreground without saying
    /// when counts nothing; true when that changed the record (it must be saved again).
    mutating func restore(_ saved: SessionRecord?) -> Bool {
        record = saved ?? SessionRecord()
        guard let stale = record.stretchStart else { return false }
        record.stretchStart = nil
        record.lastBackground = stale
        return true
    }

    /// Applies `state` at `now`: the record to save and whether it is worth a report; nil while
    /// collection is off.
    mutating func apply(_ state: AppState, at now: Date) -> (record: SessionRecord, reportable: Bool)? {
        guard enabled else { return nil }
        let before = record
        switch state {
        case .foreground: record = record.enteringForeground(at: now, timeout: timeout)
        case .background: record = record.enteringBackground(at: now)
        }
        return (record, record.isReportable(after: before))
    }

    func fields(now: Date) -> [String: JSONValue] {
        record.fields(now: now)
    }

    /// Forgets every session (`clear`).
    mutating func reset() {
        record = SessionRecord()
    }
}
