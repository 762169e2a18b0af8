import Foundation
import TernProtocol

/// Erases a profile for a person's right to erasure (`DELETE /api/v1/admin/profiles/{profile_id}`):
/// its subscriptions, fields, goals, identity bindings, inbox, preferences and topics
/// (``ErasureQueries`` says what stays and why).
///
/// The goals are walked first, ``span`` ids to a transaction, so the devices' writes go on between
/// the steps instead of waiting behind one statement that reads the whole table; the erasure's own
/// transaction then removes the rest at once. A failure or a crash part way leaves the profile as
/// it was, less some of its goals, and answers an error: asking again walks again and finishes.
/// Every step is a write of its own, so the answer is 200 only once all of it is durable.
struct ProfileEraser: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64
    /// Goal ids read in one transaction: a range of the table's key, a few milliseconds.
    var span: Int64 = 20_000
    /// Runs between the erasure's commit and its last pass (tests: a device's write landing then).
    var beforeLastPass: (@Sendable (Profile) async throws -> Void)?

    func erase(publicId: String) async throws -> ProfileErasure {
        let (profile, goals, othersLast) = try await store.read { tx in
            guard let profile = try tx.profile(publicId: publicId) else {
                throw APIError.notFound("profile \(publicId.prefix(64)) does not exist")
            }
            return (profile, try tx.goalIdRange(), try tx.lastGoalId(notOf: profile.id))
        }
        // Goals written from now on have larger ids than `othersLast` (``ErasureQueries``): the
        // erasure's own transaction takes those; the last pass goes back to the walk's last step.
        var lastStep = othersLast
        var walked = 0
        if let goals {
            var low = goals.lowerBound
            while low <= goals.upperBound {
                let step = low...min(goals.upperBound, low + span - 1)
                walked += try await store.write { try $0.eraseGoals(of: profile.id, ids: step) }
                lastStep = min(othersLast, low - 1)
                low = step.upperBound + 1
            }
        }
        let now = clock()
        var erasure = try await store.write { tx in
            // Erased by another request meanwhile: that one answered for it.
            guard let current = try tx.profile(publicId: publicId), current.id == profile.id else {
                throw APIError.notFound("profile \(publicId.prefix(64)) does not exist")
            }
            return try tx.eraseProfile(current, goalsAfter: othersLast, now: now)
        }
        // On PostgreSQL a device's write that found the profile before that commit can still
        // commit after it, and a goal's id is taken when its insert runs, not when it commits, so
        // it may even be below the walk's last one: once more over the walk's last step and what
        // came after it, and through the profile's own indexes. On SQLite, one writer, this finds
        // nothing.
        try await beforeLastPass?(profile)
        let lastPassAfter = lastStep
        let late = try await store.write { tx in
            guard let emptied = try tx.profile(id: profile.id) else { return ProfileErasure.none(publicId) }
            return try tx.eraseProfile(emptied, goalsAfter: lastPassAfter, now: now)
        }
        erasure.add(late)
        erasure.goals += walked
        return erasure
    }
}
