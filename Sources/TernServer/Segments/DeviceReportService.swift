import Foundation
import TernProtocol

/// `device/report`: the built-in fields the SDK reports on its own schedule (app version,
/// language, first and last session, session count, foreground time, the offset from UTC), merged into the fields of
/// the install's current binding (the push subscription of the token in the caller's profile) and
/// into their indexed columns. Fields left out keep their values.
struct DeviceReportService: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64

    /// Longest app version and language taken.
    static let maxVersion = 64
    static let maxLanguage = 35

    init(store: any Store, clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds) {
        self.store = store
        self.clock = clock
    }

    /// Merges the report; answers the profile with the binding's subscription.
    func report(_ request: DeviceReportRequest, caller: Caller, idempotency: IdempotencyToken) async throws
        -> Answer
    {
        let provider = try request.validate()
        return try await store.idempotentWrite(idempotency, now: clock()) { tx in
            let (profile, subscription) = try TagService.binding(
                tx, caller: caller, provider: provider, token: request.subscriptionId)
            var updated = subscription
            updated.fields.merge(request.fields) { _, reported in reported }
            if updated.fields != subscription.fields {
                try tx.setSubscriptionFields(id: subscription.id, fields: updated.fields)
            }
            return try .ok(ProfilePresenter.profileData(tx, profile: profile, subscription: updated.values))
        }
    }

    /// `device/report` in the SDK group.
    var routes: [Route] {
        let service = self
        return [
            .sdk(.deviceReport, DeviceReportRequest.self) { request, caller, key in
                try await service.report(request, caller: caller, idempotency: key)
            }
        ]
    }
}

extension DeviceReportRequest {
    /// Everything that can be checked without the store; the binding's provider.
    @discardableResult
    func validate() throws(APIError) -> PushProvider {
        let known = try Validation.provider(provider)
        try Validation.token(subscriptionId)
        if let appVersion, appVersion.isEmpty || !TextLength.fits(appVersion, max: DeviceReportService.maxVersion) {
            throw .badRequest("app_version must be 1 to \(DeviceReportService.maxVersion) characters")
        }
        if let language, language.isEmpty || !TextLength.fits(language, max: DeviceReportService.maxLanguage) {
            throw .badRequest("language must be 1 to \(DeviceReportService.maxLanguage) characters (e.g. en)")
        }
        let counts: [(String, Int64?)] = [
            ("first_session", firstSession), ("last_session", lastSession), ("session_count", sessionCount),
            ("foreground_time", foregroundTime),
        ]
        if let negative = counts.first(where: { ($0.1 ?? 0) < 0 }) {
            throw .badRequest("\(negative.0) must be 0 or more, not \(negative.1 ?? 0)")
        }
        if let timeZone, LocalTimeOfDay.offsetMinutes(timeZone) == nil {
            throw .badRequest(
                "time_zone must be the offset from UTC as ±HHMM, -1200 to +1400 (e.g. +0300 or -0530), not "
                    + "\(timeZone.prefix(16))")
        }
        if let first = firstSession, let last = lastSession, last < first {
            throw .badRequest("last_session (\(last)) is before first_session (\(first))")
        }
        return known
    }
}
