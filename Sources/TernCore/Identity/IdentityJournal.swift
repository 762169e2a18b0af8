import Foundation
import TernProtocol
import TernSQLite

/// One operation of the identity journal, as the SDK's database keeps it until the server confirms it.
struct JournalOperation: Sendable, Equatable {
    /// Where the operation came from: the app's `identity` calls, or `authenticate()` / `logOut()`.
    enum Source: String, Sendable {
        case identity, authenticate, logOut
    }

    var seq: Int64
    var operationId: String
    var kind: IdentityOperationKind
    /// The person (a login); nil for a logout.
    var externalId: String?
    /// The mode it was made in (`auto` until the policy is read, then the policy's mode).
    var mode: IdentityMode
    /// True when it was made in AUTO: it sends the policy revision it read.
    var followsPolicy: Bool
    var source: Source
    /// The outbox's last row when it was queued: the requests the app made before it are sent first.
    var outboxWatermark: Int64
    /// Set before the first send and kept, so a retry after a crash sends the same change.
    var expectedBindingId: String?
    var policyRevision: Int64?
    var attempts: Int
    var createdAt: Date
}

/// The journal's table and its queries on the ``CoreStore``.
enum IdentityJournal {
    static let migration = """
        CREATE TABLE identity_journal (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            operation_id TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            external_id TEXT,
            mode TEXT NOT NULL,
            follows_policy INTEGER NOT NULL,
            source TEXT NOT NULL,
            outbox_watermark INTEGER NOT NULL,
            expected_binding_id TEXT,
            policy_revision INTEGER,
            attempts INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL
        );
        """

    /// The confirmed binding (`IdentityBinding`) in the settings.
    static let confirmedKey = "core.identity.confirmed"
    /// The last halted login (``IdentityHalt``) in the settings.
    static let haltedKey = "core.identity.halted"

    static let columns = """
        seq, operation_id, kind, external_id, mode, follows_policy, source, outbox_watermark, expected_binding_id,
        policy_revision, attempts, created_at
        """

    static func operation(_ row: SQLiteRow) -> JournalOperation? {
        guard let kind = row.string(2).flatMap(IdentityOperationKind.init(rawValue:)),
            let mode = row.string(4).flatMap(IdentityMode.init(rawValue:)),
            let source = row.string(6).flatMap(JournalOperation.Source.init(rawValue:))
        else { return nil }
        return JournalOperation(
            seq: row.int(0) ?? 0, operationId: row.string(1) ?? "", kind: kind, externalId: row.string(3), mode: mode,
            followsPolicy: (row.int(5) ?? 0) != 0, source: source, outboxWatermark: row.int(7) ?? 0,
            expectedBindingId: row.string(8), policyRevision: row.int(9), attempts: Int(row.int(10) ?? 0),
            createdAt: Date(timeIntervalSince1970: row.double(11) ?? 0))
    }
}

extension CoreStore {
    /// Appends operations to the journal in one transaction, each after the outbox rows written before it.
    func appendIdentity(_ operations: [JournalOperation], halted: IdentityHalt?? = .none) throws {
        let encoder = JSONEncoder()
        try write {
            let watermark = try db.queryFirst("SELECT COALESCE(MAX(id), 0) FROM outbox")?.int(0) ?? 0
            for operation in operations {
                try db.run(
                    """
                    INSERT INTO identity_journal (operation_id, kind, external_id, mode, follows_policy, source,
                        outbox_watermark, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        operation.operationId, operation.kind.rawValue, operation.externalId, operation.mode.rawValue,
                        operation.followsPolicy, operation.source.rawValue, watermark,
                        operation.createdAt.timeIntervalSince1970,
                    ])
            }
            if case .some(let halt) = halted {
                if let halt {
                    try db.run(
                        "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                        [IdentityJournal.haltedKey, try encoder.encode(halt)])
                } else {
                    try db.run("DELETE FROM settings WHERE key = ?", [IdentityJournal.haltedKey])
                }
            }
        }
    }

    /// The journal, oldest first.
    func identityOperations() throws -> [JournalOperation] {
        try read {
            try db.query("SELECT \(IdentityJournal.columns) FROM identity_journal ORDER BY seq")
                .compactMap(IdentityJournal.operation)
        }
    }

    /// Saves what the next send of `operation` carries (its expected binding, the policy it read, its mode).
    func prepareIdentity(_ operation: JournalOperation) throws {
        try write {
            try db.run(
                """
                UPDATE identity_journal SET expected_binding_id = ?, policy_revision = ?, mode = ?,
                    attempts = ? WHERE seq = ?
                """,
                [
                    operation.expectedBindingId, operation.policyRevision, operation.mode.rawValue, operation.attempts,
                    operation.seq,
                ])
        }
    }

    /// Removes a finished operation; with `confirmed`, saves the binding the server confirmed in the
    /// same transaction; with `halted`, saves (or clears) the halted login.
    /// False when the operation was no longer there (`clear()` ran meanwhile): nothing is saved.
    @discardableResult
    func finishIdentity(_ seq: Int64, confirmed: IdentityBinding?, halted: IdentityHalt?? = .none) throws -> Bool {
        let encoder = JSONEncoder()
        return try write {
            guard try db.run("DELETE FROM identity_journal WHERE seq = ?", [seq]) == 1 else { return false }
            if let confirmed {
                try db.run(
                    "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    [IdentityJournal.confirmedKey, try encoder.encode(confirmed)])
            }
            if case .some(let halt) = halted {
                if let halt {
                    try db.run(
                        "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                        [IdentityJournal.haltedKey, try encoder.encode(halt)])
                } else {
                    try db.run("DELETE FROM settings WHERE key = ?", [IdentityJournal.haltedKey])
                }
            }
            return true
        }
    }

    /// How many ordered-lane requests written at or before `watermark` are still queued.
    func orderedRows(upTo watermark: Int64) throws -> Int {
        try read {
            Int(
                try db.queryFirst(
                    "SELECT COUNT(*) FROM outbox WHERE lane = ? AND id <= ?", [OutboxLane.ordered.rawValue, watermark])?
                    .int(0) ?? 0)
        }
    }
}
