import Foundation

/// Why the SDK asks for placements.
enum FetchReason: String, Sendable, Equatable {
    /// ``InApp/getPlacements()`` or ``InApp/refresh()``: never limited.
    case manual
    /// `inAppAutoRequest`: at initialization, at a session's start, every `placementsRequestInterval`.
    case automatic
    /// A trigger fired and the cached placements are older than the interval (or there are none).
    case trigger
    /// The user signed in or out: the cached placements were another profile's.
    case identity
}

/// Whether a request for placements goes now. Pure.
enum FetchSchedule {
    /// After a failed request, a trigger matches the cached placements at once for this long
    /// instead of waiting for another request that may fail the same way.
    static let triggerRetryDelay: TimeInterval = 60

    /// Manual and identity requests always go; automatic and trigger requests only when the last
    /// successful one (saved, so it counts across restarts) is at least `interval` old, and a
    /// trigger's not within ``triggerRetryDelay`` of a failed one.
    static func isDue(
        _ reason: FetchReason, lastSuccess: Date?, lastFailure: Date? = nil, interval: TimeInterval, now: Date
    ) -> Bool {
        switch reason {
        case .manual, .identity: return true
        case .trigger where lastFailure.map({ now.timeIntervalSince($0) < triggerRetryDelay && $0 <= now }) ?? false:
            return false
        case .automatic, .trigger:
            guard let lastSuccess else { return true }
            // A clock set back makes the last success look in the future: ask again.
            let age = now.timeIntervalSince(lastSuccess)
            return age >= interval || age < 0
        }
    }
}

/// Sessions as the in-app rules count them: the first foreground of the process (the launch), a
/// return to the foreground after `timeout` away, and every sign-in or sign-out. Pure.
struct SessionRule: Sendable, Equatable {
    var timeout: TimeInterval
    var inForeground = false
    var seenForeground = false
    var lastBackground: Date?

    /// The app came to the foreground at `now`: true when a session starts.
    mutating func foreground(at now: Date) -> Bool {
        guard !inForeground else { return false }
        inForeground = true
        defer { seenForeground = true }
        guard seenForeground, let away = lastBackground else { return true }
        return now.timeIntervalSince(away) > timeout
    }

    /// The app left the foreground at `now`.
    mutating func background(at now: Date) {
        guard inForeground else { return }
        inForeground = false
        lastBackground = now
    }
}
