import Foundation

/// How many times, and when, campaigns were shown: the campaigns' caps and the project's are
/// checked against it. Saved in the SDK's database after every display, so caps hold across
/// restarts. Pure.
struct CapLedger: Codable, Sendable, Equatable {
    /// The session the per-session counts belong to.
    var session = 0
    /// Each campaign's displays of the last 24 hours.
    var recent: [String: [Date]] = [:]
    /// Each campaign's last display, however long ago (a least interval may be longer than a day).
    var last: [String: Date] = [:]
    /// Each campaign's displays in this session.
    var inSession: [String: Int] = [:]
    /// Every campaign's displays of the last 24 hours, for the project's caps.
    var projectRecent: [Date] = []
    /// The project's last display.
    var projectLast: Date?
    /// Displays of any campaign in this session.
    var projectInSession = 0

    static let day: TimeInterval = 86_400

    /// True when both the campaign's caps and the project's allow a display of `campaignId` at `now`.
    func allows(_ campaignId: String, caps: InAppCaps, project: InAppCaps, now: Date) -> Bool {
        Self.allows(
            caps, count: inSession[campaignId] ?? 0, recent: recent[campaignId] ?? [], last: last[campaignId],
            now: now)
            && Self.allows(project, count: projectInSession, recent: projectRecent, last: projectLast, now: now)
    }

    /// True when the project's caps allow any display at `now`.
    func allowsProject(_ project: InAppCaps, now: Date) -> Bool {
        Self.allows(project, count: projectInSession, recent: projectRecent, last: projectLast, now: now)
    }

    private static func allows(_ caps: InAppCaps, count: Int, recent: [Date], last: Date?, now: Date) -> Bool {
        if let limit = caps.perSession, count >= limit { return false }
        if let limit = caps.perDay {
            var inDay = 0
            for date in recent where now.timeIntervalSince(date) < day { inDay += 1 }
            if inDay >= limit { return false }
        }
        if let seconds = caps.minIntervalSeconds, let last, now.timeIntervalSince(last) < TimeInterval(seconds) {
            return false
        }
        return true
    }

    /// Counts a display of `campaignId` at `now`, forgetting displays older than a day.
    mutating func record(_ campaignId: String, now: Date) {
        prune(now: now)
        recent[campaignId, default: []].append(now)
        last[campaignId] = now
        inSession[campaignId, default: 0] += 1
        projectRecent.append(now)
        projectLast = now
        projectInSession += 1
    }

    /// A new session: the per-session counts start again.
    mutating func startSession() {
        session += 1
        inSession = [:]
        projectInSession = 0
    }

    /// Forgets displays older than a day.
    mutating func prune(now: Date) {
        recent = recent.compactMapValues { dates in
            let kept = dates.filter { now.timeIntervalSince($0) < Self.day }
            return kept.isEmpty ? nil : kept
        }
        projectRecent.removeAll { now.timeIntervalSince($0) >= Self.day }
    }
}
