import CPostgres
import Foundation
import TernSQLite

/// One libpq connection. Not thread-safe: a ``PostgresSession`` owns it and uses it from its own
/// thread only. Statements are written with SQLite's `?` placeholders (so both backends read alike),
/// turned into `$1…$n` once, prepared once per connection, and run with their parameters in text
/// form (bytes in binary). Results come back as text and are read by ``PostgresRow``.
///
/// Statements whose only answer is success (a batch's `SAVEPOINT` and `RELEASE`, a write whose row
/// count nobody reads) can be held and go in one round trip with the next statement, in libpq's
/// pipeline mode: on the write path the round trips are the cost (a statement alone cost
/// PostgreSQL 27 µs of CPU on this machine before it did anything, and Tern as much again).
final class PostgresConnection {
    /// A statement to send: run prepared (on a statement prepared once per connection) or as it is.
    private struct Statement {
        let sql: String
        let parameters: [any SQLiteBindable]
        let prepared: Bool
        /// A batch's own statement (`SAVEPOINT`, `RELEASE`), held with ``holdUntilNext(_:)``: when
        /// it fails, the batch did, not the write that carried it.
        var control = false
        /// A read held with ``PostgresConnection/readWithNextRead(_:_:)``: its rows are kept.
        var readAhead = false
        /// A write guarded by the held read's absence (``PostgresConnection/heldReadNone``, run
        /// with ``PostgresConnection/runCarryingHeldRead(_:_:)``): it may carry that read, as a
        /// read does.
        var carriesHeldRead = false

        /// Whether the statement only reads: one a held read may go with (nothing it does needs
        /// undoing when the held read's answer stops the write).
        var isRead: Bool { sql.utf8.starts(with: "SELECT ".utf8) }
    }

    /// A read held to go with the write's next read (``readWithNextRead(_:_:)``): held, not sent
    /// yet; or answered, with its rows, until ``takeReadAhead()``.
    private enum ReadAhead {
        case held(sql: String, parameters: [any SQLiteBindable])
        case answered([PostgresRow])
    }

    private var handle: OpaquePointer?
    private var prepared: [String: String] = [:]
    /// Held statements, in order, not sent yet.
    private var held: [Statement] = []
    /// The first held statement that failed when it went, until ``takeHeldFailure()``.
    private var heldFailure: PostgresError?
    /// The write's held read, if it has one (``readWithNextRead(_:_:)``).
    private var readAhead: ReadAhead?
    /// Where the connection counts the times it waited for the server (`/metrics`), if anywhere.
    private let stats: PostgresStats?
    let url: String

    /// Connects; libpq reads the URL (host, port, user, password, database, `sslmode` for TLS).
    init(url: String, stats: PostgresStats? = nil) throws(PostgresError) {
        self.url = url
        self.stats = stats
        handle = PQconnectdb(url)
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let message = handle.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"
            PQfinish(handle)
            self.handle = nil
            throw PostgresError(sqlState: "08001", message: Self.trimmed(message))
        }
        tern_pq_silence_notices(handle)
        let result = PQexec(handle, Self.genericPlans)
        defer { PQclear(result) }
        try check(result)
    }

    /// Every prepared statement runs its generic plan, made when first run and again whenever a
    /// table it reads is analyzed, never for each call's values. Left to choose (`auto`),
    /// PostgreSQL compares a new generic plan's estimated cost with the average of the custom plans
    /// so far, and keeps that cost until it next makes a generic plan, which it only does while it
    /// prefers one. A generic plan made between two tables' analyses (`profiles` had statistics,
    /// `subscriptions` none yet) looked five times dearer than it was, and the connection planned
    /// the token lookup for every call from then on: 0.16 ms of PostgreSQL's CPU a subscribe, on
    /// some connections of some runs (a third of the route's rate). The statements prepared here are
    /// the ones written in code, each of whose generic plans is audited (bench/server/plans.sh, the
    /// plan tests); a statement whose text varies or whose plan must see its values runs unprepared,
    /// planned for its values (``queryOnce(_:_:)``).
    static let genericPlans = "SET plan_cache_mode = force_generic_plan"

    deinit { PQfinish(handle) }

    /// False once the server went away (a restart, a dropped socket), or a pipeline could not be
    /// left (its answers never all came): the session reconnects.
    var isOpen: Bool { !stuck && (handle.map { PQstatus($0) == CONNECTION_OK } ?? false) }
    private var stuck = false

    /// Runs statements without parameters (several may be separated by semicolons; one alone goes
    /// with the held statements, several after them).
    func execute(_ sql: String) throws(PostgresError) {
        try sendReadAhead()
        if !held.isEmpty {
            let single = !sql.contains(";")
            let result = try pipelined(single ? Statement(sql: sql, parameters: [], prepared: false) : nil)
            defer { PQclear(result) }
            if single { return try check(result) }
        }
        waited()
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result)
    }

    /// Holds `sql`, a statement without parameters whose only answer is success, to go with the
    /// next statement run on this connection, in the same round trip. When it fails, that statement
    /// and the ones held after it do not run: the next statement throws its error, which
    /// ``takeHeldFailure()`` then gives once more (so a batch can tell it from the write's own).
    func holdUntilNext(_ sql: String) {
        assert(readAhead == nil, "a batch statement inside a write that has not taken its read ahead")
        held.append(Statement(sql: sql, parameters: [], prepared: false, control: true))
    }

    /// Holds a statement with parameters, run prepared, as ``holdUntilNext(_:)`` holds one without:
    /// for a write whose row count nobody reads. When it fails and no batch statement (`RELEASE`,
    /// `SAVEPOINT`) was held after it, the next statement is the same write's: its error is that
    /// write's own, thrown as the next statement's and not kept for ``takeHeldFailure()``, so the
    /// write fails alone (or runs again) like a write whose statement failed when sent. Held
    /// before a batch statement, its failure is the batch's, as a held batch statement's is.
    func runBeforeNext(_ sql: String, _ parameters: [any SQLiteBindable]) throws(PostgresError) {
        try sendReadAhead()
        held.append(Statement(sql: sql, parameters: parameters, prepared: true))
    }

    /// Holds `sql`, a read, to go with the next read run on this connection, in the same round
    /// trip, and keeps its rows for ``takeReadAhead()``. When it answers rows, the write stops
    /// there: the read that carried it throws ``readAheadAnswered`` (its own answer is dropped),
    /// and so does every statement after it until ``takeReadAhead()``. The write's
    /// idempotency key's stored answer is looked up this way: a write whose first statement is a
    /// read (a subscribe's, an update's: the token's holders) pays one round trip less, and a
    /// repeat still changes nothing, as only reads ran. A statement that is not a read (a write,
    /// a held write, a statement without parameters) sends the held read alone first, and stops
    /// the same way before it runs, unless its `WHERE` holds the read's absence
    /// (``runCarryingHeldRead(_:_:)``). When the read that carried it fails, that failure is the
    /// write's, and the held read's rows are dropped.
    func readWithNextRead(_ sql: String, _ parameters: [any SQLiteBindable]) throws(PostgresError) {
        try sendReadAhead()
        held.append(Statement(sql: sql, parameters: parameters, prepared: true, readAhead: true))
        readAhead = .held(sql: sql, parameters: parameters)
    }

    /// While the write's held read waits to go (no statement carried it yet), a condition true
    /// exactly when that read answers no rows (`NOT EXISTS (` the read `)`), with the read's
    /// parameters. A write whose `WHERE` adds it changes nothing when the read answers rows, so
    /// it can carry the read (``runCarryingHeldRead(_:_:)``) instead of sending it alone first: a
    /// device's report of a delivery, whose first statement is its insert, waits for one round
    /// trip, not two.
    var heldReadNone: (condition: String, parameters: [any SQLiteBindable])? {
        guard case .held(let sql, let parameters) = readAhead else { return nil }
        return ("NOT EXISTS (\(sql))", parameters)
    }

    /// Runs a write whose `WHERE` holds ``heldReadNone`` (taken just before), with the held read in
    /// one round trip; returns how many rows it changed. When the read answers rows, the write
    /// changed none and stops as a read would (``readAheadAnswered``). Without a held read, a write
    /// like any.
    @discardableResult
    func runCarryingHeldRead(_ sql: String, _ parameters: [any SQLiteBindable]) throws(PostgresError) -> Int {
        changedRows(try execute(Statement(sql: sql, parameters: parameters, prepared: true, carriesHeldRead: true)))
    }

    /// The rows of the read held with ``readWithNextRead(_:_:)`` (sent now, alone, when no read
    /// carried it yet), and the connection's statements run again. Empty when there is none.
    func takeReadAhead() throws(PostgresError) -> [PostgresRow] {
        defer { readAhead = nil }
        if case .held = readAhead { try sendReadAhead(stopping: false) }
        guard case .answered(let rows) = readAhead else { return [] }
        return rows
    }

    /// What a statement throws once the write's held read answered rows (``readWithNextRead(_:_:)``).
    static let readAheadAnswered = PostgresError(
        sqlState: "TRA01", message: "the write's held read answered rows: the write stops (takeReadAhead)")

    /// Sends a held read not sent yet, alone (with the statements held before it), and stops the
    /// write when it answered rows, or when it had already (`stopping`).
    private func sendReadAhead(stopping: Bool = true) throws(PostgresError) {
        if case .held = readAhead { PQclear(try pipelined(nil)) }
        if stopping { try throwIfStopped() }
    }

    /// Throws ``readAheadAnswered`` once the write's held read answered rows, until they are taken.
    private func throwIfStopped() throws(PostgresError) {
        if case .answered(let rows) = readAhead, !rows.isEmpty { throw Self.readAheadAnswered }
    }

    /// The error of a held statement that failed since the last call, if one did.
    func takeHeldFailure() -> PostgresError? {
        defer { heldFailure = nil }
        return heldFailure
    }

    /// Forgets the held statements not sent yet and a failure not taken (the transaction is
    /// being rolled back).
    func discardHeld() {
        held = []
        heldFailure = nil
        readAhead = nil
    }

    /// Ids taken from tables' identity sequences ahead of their inserts (``reservedId(_:)``), by
    /// table, with when they were taken.
    private var reserved: [String: (ids: ArraySlice<Int64>, at: ContinuousClock.Instant)] = [:]
    /// How many ids ``reservedId(_:)`` takes at a time.
    static let idsReservedAtOnce = 32
    /// Takes ``idsReservedAtOnce`` ids from a table's sequence. The count is in the text, not a
    /// parameter: PostgreSQL guesses a thousand rows for `generate_series` of a parameter, so the
    /// plan for the 32 it was given always looked cheaper and the statement was planned again on
    /// every call (`pg_stat_statements`: 1,308 plans in 1,308 calls).
    static let reserveIds =
        "SELECT nextval(pg_get_serial_sequence(?, 'id')) FROM generate_series(1, \(idsReservedAtOnce))"
    /// How long reserved ids are kept: ids stay in the order of their rows' creation to within
    /// this, across connections and nodes.
    var reservedIdsLifetime: Duration = .seconds(1)

    /// An id from `table`'s identity sequence (a `GENERATED BY DEFAULT` column `id`) for a row this
    /// connection inserts with it. An insert that needs its id back then goes with the next
    /// statement (held) instead of waiting for `RETURNING` in a round trip of its own: a new
    /// device's subscribe waited twice, and each wait holds its batch's transaction a round trip
    /// longer (with the database half a millisecond away, subscribes ran at 1.8 times the rate
    /// without it). Ids are taken ``idsReservedAtOnce`` at a time; the sequence gives each once, so
    /// they never meet another connection's or a default's. Ids a rolled-back insert or an expired
    /// reservation leaves unused are gaps, as a rolled-back `nextval` leaves.
    func reservedId(_ table: String) throws(PostgresError) -> Int64 {
        let now = ContinuousClock.now
        if let kept = reserved[table], let id = kept.ids.first, now - kept.at < reservedIdsLifetime {
            reserved[table] = (kept.ids.dropFirst(), kept.at)
            return id
        }
        let ids = try query(Self.reserveIds, [table]).compactMap { $0.int(0) }
        guard let first = ids.first else {
            throw PostgresError(sqlState: "XX000", message: "\(table)'s id sequence gave no id")
        }
        reserved[table] = (ids.dropFirst(), now)
        return first
    }

    /// Runs a statement; returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws(PostgresError) -> Int {
        changedRows(try execute(Statement(sql: sql, parameters: parameters, prepared: true)))
    }

    /// How many rows a write's result says it changed; frees the result.
    private func changedRows(_ result: OpaquePointer?) -> Int {
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Runs a statement and reads every row.
    func query(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws(PostgresError) -> [PostgresRow] {
        read(try execute(Statement(sql: sql, parameters: parameters, prepared: true)))
    }

    /// Runs a statement without preparing it on the connection (`PQexecParams`): for statements
    /// whose text varies with the input (audience filters), so the statements a connection keeps
    /// prepared stay as many as the queries written in code, and for statements whose plan must
    /// see the call's values (a deliveries page). It is planned for its values: inside a
    /// transaction, ``genericPlans`` is lifted for it alone (`SET LOCAL`, held to go in the same
    /// round trip) and set again for the statements after it; the transaction's end restores it
    /// in any case, a rollback included. (Outside a transaction, which the store never does, it
    /// runs on a generic plan: `SET LOCAL` there changes nothing.)
    func queryOnce(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws(PostgresError) -> [PostgresRow] {
        held.append(Statement(sql: Self.customPlanHere, parameters: [], prepared: false, control: true))
        let result: OpaquePointer?
        do {
            result = try execute(Statement(sql: sql, parameters: parameters, prepared: false))
        } catch {
            // Stopped before anything was sent (the write's held read answered rows): not held on.
            held.removeAll { $0.sql == Self.customPlanHere }
            throw error
        }
        held.append(Statement(sql: Self.genericPlansHere, parameters: [], prepared: false, control: true))
        return read(result)
    }

    private static let customPlanHere = "SET LOCAL plan_cache_mode = force_custom_plan"
    private static let genericPlansHere = "SET LOCAL plan_cache_mode = force_generic_plan"

    private func read(_ result: OpaquePointer?) -> [PostgresRow] {
        defer { PQclear(result) }
        let rows = Int(PQntuples(result))
        let columns = Int(PQnfields(result))
        var read: [PostgresRow] = []
        read.reserveCapacity(rows)
        for row in 0..<rows {
            var values: [String?] = []
            values.reserveCapacity(columns)
            for column in 0..<columns {
                if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
                    values.append(nil)
                } else {
                    values.append(String(cString: PQgetvalue(result, Int32(row), Int32(column))))
                }
            }
            read.append(PostgresRow(values: values))
        }
        return read
    }

    func queryFirst(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws(PostgresError) -> PostgresRow? {
        try query(sql, parameters).first
    }

    /// Runs `statement` (with the held ones before it, in one pipeline); returns its checked result.
    private func execute(_ statement: Statement) throws(PostgresError) -> OpaquePointer? {
        if statement.isRead || statement.carriesHeldRead { try throwIfStopped() } else { try sendReadAhead() }
        let result: OpaquePointer?
        if held.isEmpty {
            let name = statement.prepared ? try statementName(statement.sql) : ""
            let text = statement.prepared ? "" : Self.numbered(statement.sql)
            waited()
            result = Self.withParameters(statement.parameters) { count, values, lengths, formats in
                statement.prepared
                    ? PQexecPrepared(handle, name, count, values, lengths, formats, 0)
                    : PQexecParams(handle, text, count, nil, values, lengths, formats, 0)
            }
        } else {
            result = try pipelined(statement)
        }
        do {
            try check(result)
        } catch {
            PQclear(result)
            throw error
        }
        return result
    }

    /// One round trip more.
    private func waited() { stats?.recordRoundTrip() }

    /// The statement's name on this connection, preparing it the first time.
    private func statementName(_ sql: String) throws(PostgresError) -> String {
        if let name = prepared[sql] { return name }
        let name = "s\(prepared.count)"
        waited()
        let result = PQprepare(handle, name, Self.numbered(sql), 0, nil)
        defer { PQclear(result) }
        try check(result)
        prepared[sql] = name
        return name
    }

    /// Sends the held statements, then `last` (if any), as one pipeline with one sync, and waits once
    /// for all their answers. A statement not prepared yet on the connection is prepared in the
    /// pipeline, just before it (after what the held ones create). Returns `last`'s result, not
    /// checked (the caller checks and clears it). A held statement that failed is thrown and kept for
    /// ``takeHeldFailure()``; what came after it did not run.
    private func pipelined(_ last: Statement?) throws(PostgresError) -> OpaquePointer? {
        let statements = held + (last.map { [$0] } ?? [])
        let heldCount = held.count
        held = []
        waited()
        guard PQenterPipelineMode(handle) == 1 else { throw lost() }
        defer { if PQexitPipelineMode(handle) != 1 { stuck = true } }
        // One answer a step: a statement's prepare, or its run. Which statement each is, and the
        // name a prepare gives.
        var steps: [(statement: Int, prepares: String?)] = []
        var naming: [String: String] = [:]
        var sent = true
        for (index, statement) in statements.enumerated() where sent {
            var name = prepared[statement.sql] ?? naming[statement.sql] ?? ""
            if statement.prepared, name.isEmpty {
                name = "s\(prepared.count + naming.count)"
                naming[statement.sql] = name
                steps.append((index, name))
                sent = PQsendPrepare(handle, name, Self.numbered(statement.sql), 0, nil) == 1
                if !sent { break }
            }
            let text = statement.prepared || statement.parameters.isEmpty ? statement.sql : Self.numbered(statement.sql)
            steps.append((index, nil))
            sent =
                Self.withParameters(statement.parameters) { count, values, lengths, formats in
                    statement.prepared
                        ? PQsendQueryPrepared(handle, name, count, values, lengths, formats, 0)
                        : PQsendQueryParams(handle, text, count, nil, values, lengths, formats, 0)
                } == 1
        }
        guard sent, PQpipelineSync(handle) == 1 else { throw lost() }
        // Each step answers one result and then nil; the sync point answers last.
        var results: [OpaquePointer?] = []
        while results.count < steps.count, let result = PQgetResult(handle) {
            results.append(result)
            while let extra = PQgetResult(handle) { PQclear(extra) }
        }
        while let sync = PQgetResult(handle) {
            let done = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
            PQclear(sync)
            if done { break }
        }
        guard results.count == steps.count else {
            results.forEach { PQclear($0) }
            throw lost()
        }
        // Every answer but `last`'s run must be a success, in order.
        let checked = last == nil ? steps.count : steps.count - 1
        var aheadRows: [PostgresRow]?
        for (index, step) in steps.prefix(checked).enumerated() {
            do {
                try check(results[index])
            } catch {
                if step.statement < heldCount, !Self.isWritesOwn(step.statement, in: statements.prefix(heldCount)) {
                    heldFailure = heldFailure ?? error
                }
                results[index...].forEach { PQclear($0) }  // the ones before it are cleared already
                if readAhead != nil, statements.prefix(heldCount).contains(where: \.readAhead) {
                    readAhead = .answered([])  // it failed, or did not run: the write fails
                }
                throw error
            }
            if step.prepares == nil, statements[step.statement].readAhead {
                aheadRows = read(results[index])  // clears it
            } else {
                PQclear(results[index])
            }
            if let name = step.prepares { prepared[statements[step.statement].sql] = name }
        }
        guard let aheadRows else { return last == nil ? nil : results.last ?? nil }
        // The held read went: when it answered rows, the write stops before `last`'s answer is
        // used; when `last` failed, that is the write's failure and the rows are dropped.
        let lastResult = last == nil ? nil : results.last ?? nil
        let lastFailed = last != nil && ![PGRES_COMMAND_OK, PGRES_TUPLES_OK].contains(PQresultStatus(lastResult))
        readAhead = .answered(lastFailed ? [] : aheadRows)
        if !lastFailed, !aheadRows.isEmpty, last != nil {
            PQclear(lastResult)
            throw Self.readAheadAnswered
        }
        return lastResult
    }

    /// Whether the held statement at `index` failed as part of the write running now: a write's own
    /// held statement with no batch statement after it (a `RELEASE` after it ends its write).
    private static func isWritesOwn(_ index: Int, in held: ArraySlice<Statement>) -> Bool {
        !held[index].control && !held[(index + 1)...].contains { $0.control }
    }

    /// The connection failed under a pipeline (libpq's message says how).
    private func lost() -> PostgresError {
        PostgresError(sqlState: "08006", message: Self.trimmed(String(cString: PQerrorMessage(handle))))
    }

    private func check(_ result: OpaquePointer?) throws(PostgresError) {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default:
            guard let result else {
                throw PostgresError(sqlState: "08006", message: Self.trimmed(String(cString: PQerrorMessage(handle))))
            }
            let state = tern_pq_sqlstate(result).map { String(cString: $0) }
            let message = tern_pq_message(result).map { String(cString: $0) }
            let detail = tern_pq_detail(result).map { String(cString: $0) }
            let text = message ?? Self.trimmed(String(cString: PQerrorMessage(handle)))
            // No SQLSTATE: libpq itself failed, which means the connection did.
            throw PostgresError(
                sqlState: state ?? (isOpen ? "XX000" : "08006"), message: detail.map { "\(text) (\($0))" } ?? text)
        }
    }
}
