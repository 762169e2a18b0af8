import Foundation
import TernSQLite
import Testing

@testable import TernServer

/// Every kind of value a statement binds reaches PostgreSQL as it was, sent alone or in a pipeline
/// behind held statements: the values are written into one buffer, integers as digits.
@Suite(.enabled(if: PostgresTestDatabase.url != nil))
struct PostgresParameterTests {
    static let values: [any SQLiteBindable] = [
        Int64.min, Int64.max, -7, 0, 42, 1.5, "", "héllo, wörld ✓", Data([0, 1, 2, 255]), Data(), Optional<String>.none,
    ]
    static let query = """
        SELECT CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT),
            CAST(? AS DOUBLE PRECISION), CAST(? AS TEXT), CAST(? AS TEXT), encode(CAST(? AS BYTEA), 'hex'),
            length(CAST(? AS BYTEA)), CAST(? AS TEXT) IS NULL
        """

    static func check(_ row: PostgresRow?) {
        #expect(row?.int(0) == Int64.min)
        #expect(row?.int(1) == Int64.max)
        #expect(row?.int(2) == -7 && row?.int(3) == 0 && row?.int(4) == 42)
        #expect(row?.string(5) == "1.5")
        #expect(row?.string(6) == "" && row?.string(7) == "héllo, wörld ✓")
        #expect(row?.string(8) == "000102ff" && row?.int(9) == 0)
        #expect(row?.bool(10) == true)
    }

    @Test func valuesOfEveryKindArriveAsTheyWere() throws {
        let connection = try PostgresConnection(url: try PostgresTestDatabase.freshSchemaURL())
        Self.check(try connection.queryFirst(Self.query, Self.values))
        Self.check(try connection.queryOnce(Self.query, Self.values).first)
        // Behind a held statement, in one pipeline.
        try connection.execute("BEGIN")
        try connection.runBeforeNext("SELECT CAST(? AS BIGINT)", [Int64.min])
        Self.check(try connection.queryFirst(Self.query, Self.values))
        try connection.execute("ROLLBACK")
        // Only NULLs: no value has bytes.
        #expect(try connection.queryFirst("SELECT CAST(? AS TEXT) IS NULL", [Optional<Int64>.none])?.bool(0) == true)
    }

    @Test func digitsAreWrittenAsPostgresReadsThem() {
        for value: Int64 in [0, 1, -1, 9, 10, -10, 1_234_567_890, Int64.max, Int64.min] {
            var bytes: [UInt8] = [0x41]
            PostgresConnection.appendDigits(value, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == "A\(value)")
        }
    }
}
