import Foundation
import TernProtocol
import TernSQLite

/// Which SQL a backend speaks where the two differ (JSON access, casts).
enum SQLDialect: Sendable {
    case sqlite, postgres
}

/// An ``AudienceExpression`` as a SQL condition on `subscriptions s`, with every value a `?`
/// parameter (never spliced into the text). Built-in fields are columns with indexes; tags go
/// through `subscription_tags`' `(name, value)` index; custom fields are read from the JSON text.
/// Means what ``AudienceExpression/matches(fields:tags:now:)`` means.
struct FilterSQL {
    var sql: String
    var parameters: [any SQLiteBindable]

    /// Compiles `expression` for `dialect`; `now` (ms) anchors `within_days`.
    static func compile(_ expression: AudienceExpression, dialect: SQLDialect, now: Int64) -> FilterSQL {
        var parameters: [any SQLiteBindable] = []
        let sql = condition(expression, dialect, now, &parameters)
        return FilterSQL(sql: sql, parameters: parameters)
    }

    /// The column of a built-in field.
    static func column(_ field: BuiltInField) -> String {
        switch field {
        case .appVersion: "s.app_version_key"
        case .language: "s.language"
        case .firstSession: "s.first_session"
        case .lastSession: "s.last_session"
        case .sessionCount: "s.session_count"
        case .foregroundTime: "s.foreground_time"
        }
    }

    private static func condition(
        _ expression: AudienceExpression, _ dialect: SQLDialect, _ now: Int64, _ p: inout [any SQLiteBindable]
    ) -> String {
        switch expression {
        case .all(let parts):
            return "(" + parts.map { condition($0, dialect, now, &p) }.joined(separator: " AND ") + ")"
        case .any(let parts): return "(" + parts.map { condition($0, dialect, now, &p) }.joined(separator: " OR ") + ")"
        case .condition(let c):
            switch c.subject {
            case .builtIn(let field): return builtIn(c, column(field), field.kind, now, &p)
            case .tag(let key): return tag(c, key, &p)
            case .field(let name): return custom(c, name, dialect, now, &p)
            }
        }
    }

    private static func marks(_ count: Int) -> String {
        "(" + Array(repeating: "?", count: count).joined(separator: ", ") + ")"
    }

    private static func symbol(_ op: FilterOperator) -> String {
        switch op {
        case .eq: "="
        case .ne: "<>"
        case .lt, .before: "<"
        case .lte: "<="
        case .gt, .after: ">"
        case .gte, .withinDays: ">="
        case .exists, .notExists, .in: ""
        }
    }

    private static func builtIn(
        _ c: AudienceCondition, _ column: String, _ kind: BuiltInField.Kind, _ now: Int64,
        _ p: inout [any SQLiteBindable]
    ) -> String {
        switch (c.op, c.operand) {
        case (.exists, _): return "\(column) IS NOT NULL"
        case (.notExists, _): return "\(column) IS NULL"
        case (_, .text(let text)):
            p.append(text)
            return "\(column) \(symbol(c.op)) ?"
        case (.in, .texts(let texts)):
            p += texts.map { $0 as any SQLiteBindable }
            return "\(column) IN \(marks(texts.count))"
        case (.in, .numbers(let numbers)):
            // Integer columns: only whole numbers can be equal.
            let whole = numbers.filter { $0.rounded() == $0 && abs($0) < 9e18 }.map { Int64($0) }
            guard !whole.isEmpty else { return "1 = 0" }
            p += whole.map { $0 as any SQLiteBindable }
            return "\(column) IN \(marks(whole.count))"
        case (_, .number(let number)):
            return integerComparison(column, c.op, number, &p)
        case (_, .time(let at)):
            p.append(at)
            return "\(column) \(symbol(c.op)) ?"
        case (.withinDays, .days(let days)):
            p.append(AudienceCondition.since(days, now: now))
            return "\(column) >= ?"
        default: return "1 = 0"
        }
    }

    /// A comparison of an integer column with any number, as whole numbers, so the column's
    /// index serves it on both backends (`x >= 2.5` is `x >= 3`).
    private static func integerComparison(
        _ column: String, _ op: FilterOperator, _ number: Double, _ p: inout [any SQLiteBindable]
    ) -> String {
        let whole = number.rounded() == number
        let bounded = max(-9e18, min(9e18, number))
        switch op {
        case .eq where !whole: return "1 = 0"
        case .ne where !whole: return "\(column) IS NOT NULL"
        case .lt, .gte: p.append(Int64(bounded.rounded(.up)))
        case .lte, .gt: p.append(Int64(bounded.rounded(.down)))
        default: p.append(Int64(bounded))
        }
        return "\(column) \(symbol(op)) ?"
    }

    private static func tag(_ c: AudienceCondition, _ key: String, _ p: inout [any SQLiteBindable]) -> String {
        let select = "SELECT t.subscription_id FROM subscription_tags t WHERE t.name = ?"
        p.append(key)
        switch (c.op, c.operand) {
        case (.exists, _): return "s.id IN (\(select))"
        case (.notExists, _): return "s.id NOT IN (\(select))"
        case (.in, .texts(let texts)):
            p += texts.map { $0 as any SQLiteBindable }
            return "s.id IN (\(select) AND t.value IN \(marks(texts.count)))"
        case (_, .text(let text)):
            p.append(text)
            return "s.id IN (\(select) AND t.value \(symbol(c.op)) ?)"
        default: return "1 = 0"
        }
    }

    private static func custom(
        _ c: AudienceCondition, _ name: String, _ dialect: SQLDialect, _ now: Int64, _ p: inout [any SQLiteBindable]
    ) -> String {
        // The JSON path (SQLite) or key (PostgreSQL) is a parameter too; names never hold " or \.
        let key: any SQLiteBindable = dialect == .sqlite ? "$.\"\(name)\"" : name
        let type: String
        let text: String
        let number: String
        switch dialect {
        case .sqlite:
            type = "json_type(s.fields, ?)"
            text = "CASE WHEN json_type(s.fields, ?) = 'text' THEN json_extract(s.fields, ?) END"
            number = "CASE WHEN json_type(s.fields, ?) IN ('integer', 'real') THEN json_extract(s.fields, ?) END"
        case .postgres:
            type = "jsonb_typeof(s.fields::jsonb -> ?::text)"
            text = "CASE WHEN jsonb_typeof(s.fields::jsonb -> ?::text) = 'string' THEN s.fields::jsonb ->> ?::text END"
            number =
                "CASE WHEN jsonb_typeof(s.fields::jsonb -> ?::text) = 'number' THEN (s.fields::jsonb ->> ?::text)::numeric END"
        }
        let numberMark = dialect == .sqlite ? "?" : "?::numeric"
        let textMark = dialect == .sqlite ? "?" : "?::text"
        switch (c.op, c.operand) {
        case (.exists, _):
            p.append(key)
            return "COALESCE(\(type), 'null') <> 'null'"
        case (.notExists, _):
            p.append(key)
            return "COALESCE(\(type), 'null') = 'null'"
        case (_, .bool(let flag)):
            p.append(key)
            let want = (c.op == .eq) == flag ? "true" : "false"
            return dialect == .sqlite ? "\(type) = '\(want)'" : "(s.fields::jsonb -> ?::text) = '\(want)'::jsonb"
        case (_, .text(let value)):
            p += [key, key, value]
            return "\(text) \(symbol(c.op)) \(textMark)"
        case (.in, .texts(let values)):
            p += [key, key] + values.map { $0 as any SQLiteBindable }
            return "\(text) IN (" + Array(repeating: textMark, count: values.count).joined(separator: ", ") + ")"
        case (.in, .numbers(let values)):
            p += [key, key] + values.map { $0 as any SQLiteBindable }
            return "\(number) IN (" + Array(repeating: numberMark, count: values.count).joined(separator: ", ") + ")"
        case (_, .number(let value)):
            p += [key, key, value]
            return "\(number) \(symbol(c.op)) \(numberMark)"
        case (_, .time(let at)):
            p += [key, key, Double(at)]
            return "\(number) \(symbol(c.op)) \(numberMark)"
        case (.withinDays, .days(let days)):
            p += [key, key, Double(AudienceCondition.since(days, now: now))]
            return "\(number) >= \(numberMark)"
        default: return "1 = 0"
        }
    }
}
