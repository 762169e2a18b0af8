import Foundation
import TernCore

/// The first state `updates` reports for each of `ids`, waiting at most `timeout` seconds: an id
/// missing from the answer was never reported (a request that stayed `.queued` for good).
///
/// ```swift
/// let updates = await sdk.tern.syncStates()
/// let id = sdk.tern.profile.update.updateProfileFields(profileFields: ["_fname": "A"]).id
/// let state = await firstSyncStates(of: [id], in: updates)[id]
/// ```
public func firstSyncStates(
    of ids: [String], in updates: AsyncStream<SyncUpdate>, timeout: TimeInterval = 10
) async -> [String: SyncState] {
    await withTaskGroup(of: [String: SyncState].self) { group in
        group.addTask {
            var states: [String: SyncState] = [:]
            for await update in updates where ids.contains(update.requestId) && states[update.requestId] == nil {
                states[update.requestId] = update.state
                if states.count == ids.count { break }
            }
            return states
        }
        group.addTask {
            try? await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
            return [:]
        }
        let first = await group.next() ?? [:]
        group.cancelAll()
        return first
    }
}
