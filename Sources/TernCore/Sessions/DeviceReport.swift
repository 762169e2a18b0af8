import Foundation
import TernProtocol

/// The SDK's own report of the built-in fields (`device/report`): app version, device language,
/// first and last session, session count and foreground time, and the device's offset from UTC. Queued through the mailbox, in order
/// with the app's calls, when a session starts and when the app leaves the foreground; sent by the
/// outbox's ordered lane like any change (kept across restarts, retried). Nothing is reported
/// while collection is off or before the device has a push token (its subscription is the binding
/// the fields belong to; `subscribe` carries the same fields).
enum DeviceReport {
    static let function = "deviceReport"

    /// Queues the report of `record` as it was at `at`.
    static func queue(_ ready: ReadyCore, _ record: SessionRecord, at: Date) async {
        let runtime = ready.runtime
        guard await ready.collectionEnabled(), let token = await ready.token() else { return }
        let info = await runtime.environment.deviceInfo.current()
        let request = record.report(
            token: token, appVersion: ready.configuration.appInfo?.appVer, language: info.language,
            timeZone: DeviceFields.timeZone(info.timeZoneOffsetSeconds), now: at)
        guard let body = try? JSONEncoder().encode(request) else { return }
        let entry = OutboxEntry(
            endpoint: .deviceReport, lane: .ordered, body: body,
            meta: OutboxMeta(
                function: function, success: CoreEvents.deviceReportSuccessful, failure: CoreEvents.deviceReportFailed,
                includeProfile: false))
        await ready.enqueue(entry)
    }
}
