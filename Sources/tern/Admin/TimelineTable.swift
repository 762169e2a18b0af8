import Foundation

/// `tern messages timeline ID [--bucket minute|hour|day]`: the answer of
/// `GET …/messages/{id}/timeline` as a table, a row a bucket (UTC), with the totals under it.
///
/// ```
/// m_1f… per hour (UTC)
/// at                 sent  failed  delivered  opened  converted
/// 2026-12-07 10:00    998       2        950     120          8
/// total               998       2        950     120          8
/// ```
enum TimelineTable {
    static let columns = ["sent", "failed", "delivered", "opened", "converted"]

    /// The call's answer as the table; nil when it is not a timeline (printed as JSON then).
    static func text(_ body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let points = object["points"] as? [[String: Any]], let bucket = object["bucket"] as? String
        else { return nil }
        let id = object["message_id"] as? String ?? ""
        guard !points.isEmpty else { return "\(id): nothing sent or reported yet\n" }
        func label(_ milliseconds: Int64) -> String {
            // `2026-12-07T10:00:00Z` (ISO 8601 is in UTC): the day, or the day and the minute.
            let text = Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601)
            return bucket == "day" ? String(text.prefix(10)) : text.prefix(16).replacingOccurrences(of: "T", with: " ")
        }
        func number(_ value: Any?) -> Int64 { (value as? NSNumber)?.int64Value ?? 0 }
        var rows = points.map { point in [label(number(point["at"]))] + columns.map { "\(number(point[$0]))" } }
        rows.append(["total"] + columns.map { column in "\(points.map { number($0[column]) }.reduce(0, +))" })
        let header = ["at"] + columns
        let widths = header.indices.map { index in ([header] + rows).map { $0[index].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                return index == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        return (["\(id) per \(bucket) (UTC)", line(header)] + rows.map(line)).joined(separator: "\n") + "\n"
    }
}
