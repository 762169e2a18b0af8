/// Rows written several to a statement: one round trip (PostgreSQL) and one statement's overhead
/// for up to 64 of them, where a fan-out or a batch's outcomes were one statement a row (100,000
/// single-row statements for 100,000 devices; on PostgreSQL each was a round trip through the pool).
/// Groups are 64 rows, then the rest in halves (32, 16, … 1): seven statement texts at most, each
/// prepared once and kept.
struct RowGroups<Row>: Sequence, IteratorProtocol {
    static var largest: Int { 64 }

    private let rows: [Row]
    private var start = 0

    init(_ rows: [Row]) { self.rows = rows }

    mutating func next() -> ArraySlice<Row>? {
        let left = rows.count - start
        guard left > 0 else { return nil }
        var size = Self.largest
        while size > left { size /= 2 }
        defer { start += size }
        return rows[start..<(start + size)]
    }
}

/// A multi-row statement's text for every group size (0 to ``RowGroups/largest`` rows), built once
/// per process. A fan-out's insert and a batch's outcomes built their 64-row text (2 KB) anew for
/// every statement, and the statement cache then hashed it: 3 to 4 % of each statement's time in a
/// profile of a send (docs/scaling.md, "The send path's own CPU").
struct RowTexts: Sendable {
    private let texts: [String]

    /// - Parameter text: The statement for a number of rows.
    init(_ text: (Int) -> String) {
        texts = (0...RowGroups<Int>.largest).map(text)
    }

    subscript(rows: Int) -> String { texts[rows] }

    /// `tuple` repeated `rows` times, joined by commas: a VALUES list's rows.
    static func values(_ tuple: String, rows: Int) -> String {
        Array(repeating: tuple, count: rows).joined(separator: ", ")
    }
}

/// ``RowTexts`` in each dialect, for a statement whose text differs between them.
struct DialectTexts: Sendable {
    private let sqlite: RowTexts
    private let postgres: RowTexts

    init(_ text: (Int, SQLDialect) -> String) {
        sqlite = RowTexts { text($0, .sqlite) }
        postgres = RowTexts { text($0, .postgres) }
    }

    subscript(dialect: SQLDialect) -> RowTexts {
        switch dialect {
        case .sqlite: sqlite
        case .postgres: postgres
        }
    }
}

/// The delivery statements a send runs for every 64 deliveries, each text built once (``RowTexts``).
enum DeliveryTexts {
    /// A device (a provider and a token) gets a message once, whichever of its subscriptions the
    /// audience names. The targets of one statement are each a device of their own (the store keeps
    /// the first of each). The row is the delivery's address and never changes; its state is its
    /// queue entry or its chunk's lease until its outcome, then its outcomes
    /// (``SQLTransaction/updateDeliveries(_:now:)`` says why).
    ///
    /// - SQLite: a row already written for the provider and token is skipped by its unique index.
    ///   Binds per row: message, subscription, provider, token, time.
    /// - PostgreSQL: a row is written only for a target whose token no subscription that holds it
    ///   has a delivery of the message for (``PostgresMigrations/deliveryDevices`` says why not a
    ///   unique index). Each target is looked up alone: its token's subscriptions by the token
    ///   index, and each one's delivery by key, as `LATERAL` subqueries with a `LIMIT`, which
    ///   PostgreSQL plans for one row at a time. As a nested `NOT EXISTS`, it joined every delivery
    ///   of the message for each statement (its statistics put a dozen deliveries on a message that
    ///   had thousands). The message the deliveries are probed for is a subquery, not the bare
    ///   parameter: PostgreSQL costs a plan for the message it is given by its statistics, where a
    ///   message being fanned out is new and has no deliveries, so that plan always looked cheaper
    ///   than the generic one and each statement was planned again, a quarter of its own time
    ///   (docs/scaling.md, "A plan for every fan-out statement"). A subquery's value is unknown to
    ///   every plan alike, so the connection keeps the generic one after its first few runs.
    ///   Binds per row: subscription, provider, token; then the message, the time and the message
    ///   again.
    static func insert(rows: Int, _ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite:
            """
            INSERT INTO deliveries (message_id, subscription_id, provider, token, created_at)
            VALUES \(RowTexts.values("(?, ?, ?, ?, ?)", rows: rows))
            ON CONFLICT (message_id, provider, token) DO NOTHING
            """
        case .postgres:
            """
            WITH target (subscription_id, provider, token) AS (
                VALUES \(RowTexts.values("(CAST(? AS BIGINT), ?, ?)", rows: rows)))
            INSERT INTO deliveries (message_id, subscription_id, provider, token, created_at)
            SELECT ?, t.subscription_id, t.provider, t.token, ? FROM target t
            LEFT JOIN LATERAL (
                SELECT held.id FROM subscriptions s
                CROSS JOIN LATERAL (
                    SELECT d.id FROM deliveries d
                    WHERE d.message_id = (SELECT CAST(? AS BIGINT)) AND d.subscription_id = s.id LIMIT 1) held
                WHERE s.provider = t.provider AND s.token = t.token
                LIMIT 1) reached ON TRUE
            WHERE reached.id IS NULL
            """
        }
    }

    /// ``insert(rows:_:)`` of deliveries that go in the queue: their ids.
    static let insertQueued = DialectTexts { insert(rows: $0, $1) + " RETURNING id" }
    /// ``insert(rows:_:)`` of a leased chunk: the rows written, by their subscription, to hand to the senders.
    static let insertLeased = DialectTexts { insert(rows: $0, $1) + " RETURNING id, subscription_id" }

    /// Appends outcomes. Binds per row: delivery, attempt, message, status, reason, provider's
    /// message id, time.
    static func appendOutcomes(rows: Int) -> String {
        """
        INSERT INTO delivery_outcomes (delivery_id, attempt, message_id, status, reason, provider_message_id, at)
        VALUES \(RowTexts.values("(?, ?, ?, ?, ?, ?, ?)", rows: rows))
        """
    }

    /// Runs of first attempts sent (``SentRun``). Binds per row: message, last id, first id, time.
    static let sentRuns = RowTexts {
        "INSERT INTO delivery_sent_runs (message_id, last_id, first_id, at) VALUES "
            + RowTexts.values("(?, ?, ?, ?)", rows: $0)
    }

    /// Outcomes of attempts the queue held.
    static let outcomes = RowTexts { appendOutcomes(rows: $0) }
    /// Outcomes of first attempts a lease held: a repeated answer changes nothing.
    static let leasedOutcomes = RowTexts {
        appendOutcomes(rows: $0) + " ON CONFLICT (delivery_id, attempt) DO NOTHING RETURNING delivery_id"
    }
}
