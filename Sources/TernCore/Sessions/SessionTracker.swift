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
    /// The `device/report` of this record at `now` for the device's token, with the app's version
    /// and the device's language.
    func report(token: TokenData, appVersion: String?, language: String?, now: Date) -> DeviceReportRequest {
        let fields = fields(now: now)
        return DeviceReportRequest(
            time: Int64(now.timeIntervalSince1970 * 1000), provider: token.provider, subscriptionId: token.token,
            appVersion: appVersion.flatMap { $0.isEmpty ? nil : $0 },
            language: language.flatMap { $0.isEmpty ? nil : $0 },
            firstSession: fields[BuiltInField.firstSession.key]?.intValue,
            lastSession: fields[BuiltInField.lastSession.key]?.intValue,
            sessionCount: fields[BuiltInField.sessionCount.key]?.intValue,
            foregroundTime: fields[BuiltInField.foregroundTime.key]?.intValue)
    }

    /// Pure: whether going from `before` to this record is worth a report: a session started, or a
    /// foreground stretch ended (its time counted).
    func isReportable(after before: SessionRecord) -> Bool {
        count != before.count || (before.stretchStart != nil && stretchStart == nil)
    }
}

/// Counts sessions from the app's lifecycle: initialization alone starts none, being in the
/// foreground does. Records nothing while collection is off. When a session starts and when the
/// app leaves the foreground it calls `onReport` with the record then (the core queues a
/// `device/report` of it through its mailbox).
actor SessionTracker {
    static let key = "core.sessions"
    private let store: CoreStore
    private let clock: any TernClock
    private let timeout: TimeInterval
    private var record = SessionRecord()
    private var enabled = true
    private var listener: Task<Void, Never>?
    private var onReport: (@Sendable (SessionRecord, Date) -> Void)?

    init(store: CoreStore, clock: any TernClock, timeout: TimeInterval) {
        self.store = store
        self.clock = clock
        self.timeout = timeout
    }

    func start(
        lifecycle: any AppLifecycle, enabled: Bool, onReport: (@Sendable (SessionRecord, Date) -> Void)? = nil
    ) async {
        self.enabled = enabled
        self.onReport = onReport
        record = await store.setting(Self.key, as: SessionRecord.self) ?? SessionRecord()
        if let stale = record.stretchStart {
            // The process ended in the foreground without saying when: count nothing for that stretch.
            record.stretchStart = nil
            record.lastBackground = stale
            await save()
        }
        let states = await lifecycle.states()
        listener = Task { [weak self] in
            for await state in states { await self?.apply(state) }
        }
    }

    func setEnabled(_ enabled: Bool) {
        self.enabled = enabled
    }

    func apply(_ state: AppState) async {
        guard enabled else { return }
        let now = clock.now()
        let before = record
        switch state {
        case .foreground: record = record.enteringForeground(at: now, timeout: timeout)
        case .background: record = record.enteringBackground(at: now)
        }
        await save()
        if record.isReportable(after: before) { onReport?(record, now) }
    }

    func fields() -> [String: JSONValue] {
        record.fields(now: clock.now())
    }

    /// Forgets every session (`clear`).
    func reset() {
        record = SessionRecord()
    }

    func stop() {
        listener?.cancel()
        listener = nil
    }

    private func save() async {
        try? await store.setSetting(Self.key, record)
    }
}
