import Foundation
import TernCore
import TernServer
import TernTarget

/// `tern device goals`: queues N goals, each durably before the next, recording how many are
/// queued in the same transaction as each one, so a rerun after a crash (or SIGKILL) continues
/// exactly after the last goal queued: none lost, none queued twice.
struct DeviceGoals {
    let tern: Tern
    let sids: [String]
    let count: Int
    let prefix: String
    /// Seconds to wait between goals, so a run lasts long enough to be interrupted.
    let pace: TimeInterval

    init(tern: Tern, arguments: Arguments) throws {
        self.tern = tern
        sids = try arguments.required("sids").split(separator: ",").map(String.init)
        count = try arguments.int("count", default: 1)
        prefix = arguments.value("prefix") ?? "goal"
        pace = try arguments.double("pace", default: 0)
        guard !sids.isEmpty, count >= 0 else { throw CommandError("goals needs --sids and a --count of 0 or more") }
    }

    var journalKey: String { "device.goals.\(prefix)" }

    func run() async throws {
        var next = try await queued()
        while next < count {
            let goal = GoalEvent(
                sid: sids[next % sids.count], eventName: "\(prefix)-\(next)",
                payload: ["index": .int(Int64(next))], time: Int64(Date().timeIntervalSince1970 * 1000))
            let entry = OutboxEntry(
                endpoint: .eventPost, lane: .events, body: try JSONEncoder().encode(goal),
                meta: OutboxMeta(
                    function: "sendTarget", success: TargetModuleEvents.mobileEventRequestSuccessful,
                    failure: TargetModuleEvents.mobileEventRequestFailed))
            let journal: [String: JSONValue] = [journalKey: .int(Int64(next + 1))]
            let written = try await whenReady { ready in
                await ready.enqueue([entry], journal: journal, waitUntilWritten: true)
            }
            guard written else { throw CommandError("goal \(next) could not be queued (see the events)") }
            next += 1
            if pace > 0 { try await Task.sleep(nanoseconds: UInt64(pace * 1_000_000_000)) }
        }
    }

    /// How many goals of this series earlier runs queued.
    private func queued() async throws -> Int {
        let key = journalKey
        return try await whenReady { ready in Int(await ready.setting(key)?.intValue ?? 0) }
    }

    /// `body`'s answer, run once the SDK is initialized; an error when the SDK lets it go unrun, as
    /// when it could not start (its events, shown without `--quiet`, say why): waiting for it then
    /// never ended, and the process with it.
    private func whenReady<T: Sendable>(_ body: @escaping @Sendable (ReadyCore) async -> T) async throws -> T {
        let answer: T? = await withCheckedContinuation { continuation in
            tern.core.perform("sendTarget", unrun: { continuation.resume(returning: nil) }) { ready in
                continuation.resume(returning: await body(ready))
            }
        }
        guard let answer else {
            throw CommandError("the SDK did not start, so no goal was queued (its events say why)")
        }
        return answer
    }
}
