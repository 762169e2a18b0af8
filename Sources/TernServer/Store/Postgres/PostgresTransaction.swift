import Foundation
import TernProtocol
import TernSQLite

/// The PostgreSQL store's queries, run on the connection of the current transaction. They are
/// written once for both backends, in `Store/SQL` (and beside their feature,
/// `…/SQLTransaction+….swift`): placeholders are `?` in both, values are stored in the same
/// canonical text and JSON forms, so the two backends answer alike. Here is what PostgreSQL does
/// its own way: ids come back through `RETURNING` (a profile's is reserved ahead), and several nodes
/// share the database, so some reads lock their rows.
struct PostgresTransaction: SQLTransaction {
    let database: PostgresConnection
    /// False in a read-only transaction, where rows cannot be locked.
    let writable: Bool
    /// Where claim latency goes.
    let stats: PostgresStats
    static let dialect = SQLDialect.postgres

    /// Inserts one row and returns the id PostgreSQL gave it.
    func insert(_ sql: String, _ parameters: [any SQLiteBindable]) throws -> Int64 {
        guard let id = try database.queryFirst(sql + " RETURNING id", parameters)?.int(0) else {
            throw StoreError.backend("an insert returned no id: \(sql.prefix(60))")
        }
        return id
    }

    /// A new profile, its id reserved ahead (``PostgresConnection/reservedId(_:)``) and its insert
    /// held to go with the write's next statement: a new device's subscribe waits for its reads
    /// only.
    func createProfile(dbId: Int64, publicId: String, now: Int64) throws -> Profile {
        let id = try database.reservedId("profiles")
        try database.runBeforeNext(
            """
            INSERT INTO profiles (id, public_id, db_id, is_test, skip_triggers, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [id, publicId, dbId, false, false, now, now])
        return Profile(id: id, publicId: publicId, dbId: dbId, createdAt: now, updatedAt: now)
    }

    /// Messages due take turns (`claimInTurns`), each claim timed for `/metrics`.
    ///
    /// With several nodes: a claim locks the turns it serves (`FOR UPDATE`), so claims on the same
    /// messages follow one another (each takes milliseconds) and the round stays one round across
    /// nodes; deliveries are taken with `FOR UPDATE SKIP LOCKED`, so no row is ever claimed twice.
    func claimDeliveries(limit: Int, now: Int64, leaseUntil: Int64) throws -> [ClaimedDelivery] {
        let started = ContinuousClock.now
        let claimed = try claimInTurns(limit: limit, now: now, leaseUntil: leaseUntil)
        let elapsed = ContinuousClock.now - started
        stats.recordClaim(
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            rows: claimed.count)
        return claimed
    }

    var claimLocks: (turns: String, deliveries: String) { ("FOR UPDATE", "FOR UPDATE SKIP LOCKED") }

    var leaseLock: String { "FOR KEY SHARE" }

    var fanOutLock: String { writable ? "FOR UPDATE SKIP LOCKED" : "" }

    var countShard: String { "pg_backend_pid()" }

    func lockForBootstrap() throws {
        guard writable else { return }
        // Another node's bootstrap may hold it for longer than a batch's lock timeout: wait it out.
        try database.execute("SET LOCAL lock_timeout = 0")
        _ = try database.query("SELECT pg_advisory_xact_lock(?)", [PostgresStore.bootstrapLock])
    }

    /// The lock's two keys: ``PostgresStore/profileKeyLocks`` (a space of its own, apart from the
    /// one-key locks of migrations and bootstrap) and a hash of the database, the field and its
    /// value. Two keys that share a hash only wait for each other. Held to the transaction's end,
    /// within the batch's lock timeout like a row lock.
    func lockProfileKey(dbId: Int64, name: String, value: JSONValue) throws -> Bool {
        guard writable else { return false }
        let key = "\(dbId)\u{1F}\(name)\u{1F}\(Self.json(value))"
        _ = try database.query(
            "SELECT pg_advisory_xact_lock(\(PostgresStore.profileKeyLocks), hashtext(?))", [key])
        return true
    }
}
