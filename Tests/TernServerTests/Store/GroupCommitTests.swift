import Foundation
import Synchronization
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// Group commit on a real SQLite file: a batch of writes shares one transaction, each under its own
/// savepoint, so one write's failure leaves its batch-mates committed.
@Suite struct GroupCommitTests {
    /// A write as the store's writer sees it, recording how it was answered.
    final class Probe: BatchedWrite, @unchecked Sendable {
        enum Outcome: Equatable {
            case waiting, succeeded, failed(String)
        }

        let body: (any StoreTransaction) throws -> Void
        var outcome = Outcome.waiting
        /// Times the writer ran it: once when its batch commits, again when the batch failed.
        var runs = 0

        init(_ body: @escaping (any StoreTransaction) throws -> Void) { self.body = body }

        func apply(_ transaction: any StoreTransaction) throws {
            runs += 1
            try body(transaction)
        }
        func succeed() { outcome = .succeeded }
        func fail(_ error: any Error) { outcome = .failed("\(error)") }
    }

    struct LateValidation: Error, CustomStringConvertible {
        var description: String { "found late" }
    }

    /// Writes a project with a push resource whose rToken is `rToken` (a second one breaks a UNIQUE
    /// rule after writing its project and database rows, which must then go too).
    static func projectHolding(_ rToken: String, name: String, now: Int64) -> Probe {
        Probe { tx in
            let project = try tx.createProject(name: name, audience: nil, now: now)
            let db = try tx.createDatabase(projectId: project.id, name: "main", now: now)
            _ = try tx.createResource(
                projectId: project.id, dbId: db.id, name: "push", channels: [.push], rToken: rToken, now: now)
        }
    }

    /// Writes a row, then finds its input wrong.
    static func invalid() -> Probe {
        Probe { tx in
            _ = try tx.createProject(name: "invalid", audience: nil, now: 2)
            throw LateValidation()
        }
    }

    static func migratedDatabase(_ directory: TemporaryDirectory) async throws -> SQLiteDatabase {
        let path = directory.path("tern.sqlite")
        let store = try SQLiteStore(path: path)
        await store.close()
        return try SQLiteDatabase(path: path)
    }

    @Test func oneBadWriteInsideABatchFailsAloneWhileItsBatchMatesCommit() async throws {
        let directory = try TemporaryDirectory(prefix: "group-commit")
        defer { directory.remove() }
        let database = try await Self.migratedDatabase(directory)
        let setup = Self.projectHolding("rt_taken", name: "app", now: 1)
        GroupCommit.apply([setup], on: SQLiteBatching(database: database))
        #expect(setup.outcome == .succeeded)

        let good = (0..<5).map { index in
            Probe { tx in _ = try tx.createProject(name: "good-\(index)", audience: nil, now: 2) }
        }
        // Writes a row, then breaks a UNIQUE rule: the row must go too.
        let conflicting = Self.projectHolding("rt_taken", name: "conflicting", now: 2)
        let invalid = Self.invalid()
        let batch = [good[0], conflicting, good[1], good[2], invalid, good[3], good[4]]
        GroupCommit.apply(batch, on: SQLiteBatching(database: database))

        #expect(good.allSatisfy { $0.outcome == .succeeded })
        guard case .failed(let reason) = conflicting.outcome else {
            Issue.record("the conflicting write was answered \(conflicting.outcome)")
            return
        }
        #expect(reason.contains("conflict"), "a constraint is reported as a conflict: \(reason)")
        #expect(invalid.outcome == .failed("found late"))
        #expect(database.isAutocommit, "the batch's transaction is closed")

        let names = try database.query("SELECT name FROM projects ORDER BY id").compactMap { $0.string(0) }
        #expect(names == ["app", "good-0", "good-1", "good-2", "good-3", "good-4"])
    }

    /// The same on PostgreSQL, whose batches run first without savepoints and, when a write
    /// failed, again with one around each write, sending each write's RELEASE with the next
    /// write's SAVEPOINT or with the COMMIT: the writes before and after a failed one, and the last
    /// one before the COMMIT, are kept; the failed ones leave nothing.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func oneBadWriteInsideABatchFailsAloneWhileItsBatchMatesCommitOnPostgres() async throws {
        let url = try PostgresTestDatabase.freshSchemaURL()
        await (try PostgresStore(url: url, poolSize: 1)).close()
        let stats = PostgresStats()
        let backend = try PostgresBatching(slot: PostgresConnectionSlot(url: url), stats: stats)
        let setup = Self.projectHolding("rt_taken", name: "app", now: 1)
        GroupCommit.apply([setup], on: backend)
        #expect(setup.outcome == .succeeded)

        // A batch whose writes all succeed commits once, with no savepoint.
        let clean = (0..<4).map { index in
            Probe { tx in _ = try tx.createProject(name: "clean-\(index)", audience: nil, now: 2) }
        }
        GroupCommit.apply(clean, on: backend)
        #expect(clean.allSatisfy { $0.outcome == .succeeded })
        #expect(clean.map(\.runs) == [1, 1, 1, 1])
        #expect(backend.savepointsTaken == 0)
        #expect(stats.batchesRunAgainCount == 0)

        for round in 0..<2 {
            let good = (0..<5).map { index in
                Probe { tx in _ = try tx.createProject(name: "good-\(round)-\(index)", audience: nil, now: 2) }
            }
            let conflicting = Self.projectHolding("rt_taken", name: "conflicting", now: 2)
            let invalid = Self.invalid()
            // The first round ends on a good write (its RELEASE goes with the COMMIT), the second on a
            // failed one (nothing to release).
            let batch =
                round == 0
                ? [good[0], conflicting, good[1], good[2], invalid, good[3], good[4]]
                : [good[0], good[1], conflicting, good[2], good[3], good[4], invalid]
            let savepointsBefore = backend.savepointsTaken
            GroupCommit.apply(batch, on: backend)

            #expect(good.allSatisfy { $0.outcome == .succeeded }, "round \(round)")
            // The writes up to the first failure ran twice (without savepoints, then with them),
            // the others once; the batch with savepoints committed as one, nothing ran alone.
            let firstFailure = batch.firstIndex { $0 === conflicting }!
            #expect(
                batch.map(\.runs) == batch.indices.map { $0 <= firstFailure ? 2 : 1 }, "round \(round)")
            #expect(backend.savepointsTaken - savepointsBefore == batch.count, "round \(round)")
            #expect(stats.batchesRunAgainCount == UInt64(round + 1), "counted for /metrics")
            guard case .failed(let reason) = conflicting.outcome else {
                Issue.record("the conflicting write was answered \(conflicting.outcome)")
                return
            }
            #expect(reason.contains("conflict"), "a constraint is reported as a conflict: \(reason)")
            #expect(invalid.outcome == .failed("found late"))
        }
        let reader = try PostgresConnection(url: url)
        let names = try reader.query("SELECT name FROM projects ORDER BY id").compactMap { $0.string(0) }
        #expect(
            names == ["app"] + (0..<4).map { "clean-\($0)" }
                + (0..<2).flatMap { round in (0..<5).map { "good-\(round)-\($0)" } })
        // The batches' connection is outside any transaction: a statement of its own commits alone.
        let after = Probe { tx in _ = try tx.createProject(name: "after", audience: nil, now: 3) }
        GroupCommit.apply([after], on: backend)
        #expect(try reader.query("SELECT name FROM projects WHERE name = 'after'").count == 1)
        #expect(
            stats.render(inUse: 0, size: 1, waiting: 0, waits: 0).contains("\ntern_db_batches_run_again_total 2\n"))
    }

    @Test func aBatchThatCannotCommitRunsEachWriteAlone() async throws {
        let directory = try TemporaryDirectory(prefix: "group-commit")
        defer { directory.remove() }
        let database = try await Self.migratedDatabase(directory)
        // Breaks a foreign key checked only at COMMIT, so the batch's COMMIT fails: every write
        // must then run alone, the good ones kept once, the bad one failed.
        let first = Probe { tx in _ = try tx.createProject(name: "first", audience: nil, now: 1) }
        let dangling = Probe { tx in
            try database.execute("PRAGMA defer_foreign_keys = ON")
            _ = try tx.createDatabase(projectId: 9_999, name: "orphan", now: 1)
        }
        let last = Probe { tx in _ = try tx.createProject(name: "last", audience: nil, now: 1) }
        GroupCommit.apply([first, dangling, last], on: SQLiteBatching(database: database))

        #expect(first.outcome == .succeeded)
        #expect(last.outcome == .succeeded)
        #expect(dangling.outcome != .succeeded && dangling.outcome != .waiting)
        #expect(try database.query("SELECT id FROM profile_databases").isEmpty)
        #expect(database.isAutocommit)
        let names = try database.query("SELECT name FROM projects ORDER BY name").compactMap { $0.string(0) }
        #expect(names == ["first", "last"], "each write is kept once")
    }

    /// A value the test's tasks share.
    final class Shared<Value: Sendable>: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
    }

    /// Writes join a batch without the writer's actor, so under a steady stream the queue is never
    /// empty: the writer must still give its other calls (a health check, closing) a turn.
    @Test func aSteadyStreamOfWritesLeavesTheWritersOtherCallsATurn() async throws {
        let directory = try TemporaryDirectory(prefix: "group-commit")
        defer { directory.remove() }
        // More writers than a batch takes: the queue is never empty between batches.
        let store = try SQLiteStore(path: directory.path("tern.sqlite"), groupCommit: .init(maxWrites: 4))
        let stop = Shared(false)
        let writes = Shared(0)
        let writers = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        while !stop.value.withLock({ $0 }) {
                            // A slow write: the writer is the bound, as under an overload.
                            _ = try? await store.write { transaction in
                                usleep(1_000)
                                return try transaction.deleteAnswers(before: 0)
                            }
                            writes.value.withLock { $0 += 1 }
                        }
                    }
                }
            }
        }
        while writes.value.withLock({ $0 }) < 100 { try await Task.sleep(for: .milliseconds(10)) }
        // How many writes had been answered when the health check was (nil: not yet).
        let answeredAt = Shared<Int?>(nil)
        let health = Task {
            let healthy = await store.isHealthy()
            answeredAt.value.withLock { $0 = writes.value.withLock { $0 } }
            return healthy
        }
        for _ in 0..<500 where answeredAt.value.withLock({ $0 }) == nil {
            try await Task.sleep(for: .milliseconds(20))
        }
        let writtenWhenAnswered = answeredAt.value.withLock { $0 }
        stop.value.withLock { $0 = true }
        await writers.value
        #expect(writtenWhenAnswered != nil, "the health check waited for the writes to stop")
        // Writes were still being answered after it: it did not wait for a lull.
        #expect(writes.value.withLock { $0 } > writtenWhenAnswered ?? .max)
        #expect(await health.value)
        await store.close()
    }

    @Test func concurrentWritesThroughTheStoreShareTransactionsAndSeeEachOther() async throws {
        let directory = try TemporaryDirectory(prefix: "group-commit")
        defer { directory.remove() }
        let store = try SQLiteStore(
            path: directory.path("tern.sqlite"), groupCommit: .init(maxWrites: 64, maxWait: .milliseconds(20)))
        let results = await withTaskGroup(of: Result<Int64, any Error>.self) { group in
            for index in 0..<200 {
                group.addTask {
                    do {
                        return .success(
                            try await store.write { tx in
                                if index % 50 == 7 { throw LateValidation() }
                                return try tx.createProject(name: "p\(index)", audience: nil, now: 1).id
                            })
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let ids = results.compactMap { try? $0.get() }
        #expect(ids.count == 196)
        #expect(Set(ids).count == 196)
        // A write answered is visible to the next read.
        let projects = try await store.read { try $0.projects() }
        #expect(projects.count == 196)
        #expect(!projects.contains { $0.name.hasSuffix("7") && Int($0.name.dropFirst())! % 50 == 7 })
        let statistics = await store.groupCommitStatistics
        #expect(statistics.writes == 200)
        // What /metrics shows an operator: the writes, and the transactions they shared.
        let metrics = await store.metricsText()
        #expect(metrics.contains("tern_store_writes_total 200\n"))
        #expect(metrics.contains("tern_store_write_batches_total \(statistics.batches)\n"))
        await store.close()
    }

    /// A write that reached the queue of a store already closed (its close had taken the queue
    /// before) is answered when the store is closed again: that it is closed, not never.
    @Test func aWriteLeftForAClosedStoreIsAnsweredThatItIsClosed() async throws {
        let directory = try TemporaryDirectory(prefix: "group-commit")
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("tern.sqlite"))
        await store.close()
        let answer = Task {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                // Into the queue as a write would be, without the drain it would start.
                _ = store.writeQueue.add(PendingWrite({ _ in 1 }, continuation))
            }
        }
        while store.writeQueue.count == 0 { await Task.yield() }
        await store.close()
        // Waited for with a deadline: a write never answered must fail the test, not hang it.
        let answered = Shared<Result<Int, any Error>?>(nil)
        Task {
            let result = await answer.result
            answered.value.withLock { $0 = result }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while answered.value.withLock({ $0 }) == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let result = try #require(answered.value.withLock { $0 }, "the write was not answered in 10 s")
        #expect(throws: StoreError.closed) { try result.get() }
    }

    /// Two writes that timed out waiting for each other did so together; run again after the same
    /// pause they would meet again. The pause before a run again is random, within a bound that
    /// doubles with each run.
    @Test func aWriteThatLostARaceRunsAgainAfterARandomPauseThatGrows() {
        for attempt in 1...3 {
            let bound = UInt32(20_000 << (attempt - 1))
            let pauses = (0..<200).map { _ in GroupCommit.pauseBeforeRunningAgain(after: attempt) }
            #expect(pauses.allSatisfy { $0 <= bound })
            #expect(
                Set(pauses).count > 100, "pauses after run \(attempt) are not spread: \(Set(pauses).count) distinct")
            #expect(pauses.contains { $0 > bound / 2 }, "no pause after run \(attempt) reaches half of \(bound) µs")
        }
    }
}
