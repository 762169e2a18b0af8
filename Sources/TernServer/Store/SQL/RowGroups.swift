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
