import Foundation
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// The `localWeekdays` migration on a database written before it, on both backends: a standing
/// weekly message with a local time, whose next copy was on its listed day at the first time's UTC
/// time of day, moves to that day's copy time of the new rule (10:00 UTC the day before); weekly
/// messages without a local time and every-N-days ones stay where they were.
@Suite struct LocalWeekdaysMigrationTests {
    static let backends: [Bool] = [false, true].filter { !$0 || PostgresTestDatabase.url != nil }
    /// Monday 14 December 2026, 00:00 UTC.
    static let monday: Int64 = 1_797_206_400_000
    static let hour: Int64 = 3_600_000

    /// Message 1: weekly on Mondays at 09:00 local, next copy Monday 13:00 UTC; 2: the same days
    /// without a local time; 3: every 7 days with a local time; 4: one whose title names the key.
    static func writeRows(_ run: (String, [any SQLiteBindable]) throws -> Void) throws {
        try run("INSERT INTO projects (id, name, audience, created_at) VALUES (1, 'p', 'a', 0)", [])
        let rows: [(Int64, String, Int64?, String?)] = [
            (
                1,
                #"{"audience":{"resource_id":1,"type":"resource"},"local_time_of_day":"09:00","repeat":{"weekdays":["mon"]},"title":"a"}"#,
                nil, "mon"
            ),
            (
                2, #"{"audience":{"resource_id":1,"type":"resource"},"repeat":{"weekdays":["mon"]},"title":"b"}"#, nil,
                "mon"
            ),
            (
                3,
                #"{"audience":{"resource_id":1,"type":"resource"},"local_time_of_day":"09:00","repeat":{"every_days":7},"title":"c"}"#,
                7 * 86_400_000, nil
            ),
            (
                4,
                #"{"audience":{"resource_id":1,"type":"resource"},"repeat":{"weekdays":["mon"]},"title":"\"local_time_of_day\":"}"#,
                nil, "mon"
            ),
        ]
        for (id, content, every, weekdays) in rows {
            try run(
                """
                INSERT INTO messages (id, public_id, project_id, content, audience, payload_prefix,
                    payload_suffix, push_type, environment, fan_out_cursor, fan_out_done, total, created_at,
                    repeat_every, repeat_weekdays, repeat_next_at)
                VALUES (?, ?, 1, ?, '{}', ?, ?, 'alert', 'production', 0, TRUE, 0, 0, ?, ?, ?)
                """, [id, "m-\(id)", content, Data(), Data(), every, weekdays, monday + 13 * hour])
        }
    }

    @Test(arguments: backends)
    func aStandingWeeklyMessageWithALocalTimeMovesToItsDaysCopyTime(postgres: Bool) async throws {
        let directory = try TemporaryDirectory(prefix: "local-weekdays-migration")
        defer { directory.remove() }
        let store = try await UpgradedStore.open(
            postgres: postgres, before: SQLiteMigrations.localWeekdays, PostgresMigrations.localWeekdays,
            directory: directory, writeRows: Self.writeRows)
        let next = { (id: Int64) in try await store.read { try $0.message(id: id)?.repeatNextAt } }
        #expect(try await next(1) == Self.monday - 14 * Self.hour, "Sunday 10:00 UTC: Monday's copy")
        #expect(MessageRecurrence.localDay(ofCopyAt: try #require(try await next(1))) == Self.monday)
        #expect(try await next(2) == Self.monday + 13 * Self.hour, "no local time: UTC's days, as before")
        #expect(try await next(3) == Self.monday + 13 * Self.hour, "every N days: as before")
        #expect(try await next(4) == Self.monday + 13 * Self.hour, "a title with the key's text is no local time")
        await store.close()
    }
}
