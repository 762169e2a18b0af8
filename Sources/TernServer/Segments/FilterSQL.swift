import Foundation
import TernProtocol
import TernSQLite

/// Which SQL a backend speaks where the two differ (JSON access, casts).
enum SQLDialect: Sendable {
    case sqlite, postgres
}

/// An ``AudienceExpression`` as a SQL condition on `subscriptions s`, with every value a `?`
/// parameter (never spliced into the text). Built-in fields are columns with indexes; tags go
/// through `subscription_tags`' `(name, value)` index; custom fields are read from the JSON text;
/// engagement conditions read the message's deliveries and reports (`FilterSQL+Engagement.swift`).
/// Means what ``AudienceExpression/matches(fields:tags:now:)`` means, engagement conditions apart
/// (they have no in-memory meaning: they read the store).
struct FilterSQL {
    var sql: String
    var parameters: [any SQLiteBindable]

    /// How a tag condition reads `subscription_tags`; both admit the same subscriptions.
    enum TagLookup: Sendable {
        /// `s.id IN (the tag's subscriptions)`: the tag's index range read once, for a count.
        case list
        /// `EXISTS (the row's tag)`: one probe per subscription looked at, for a sample or a chunk
        /// that stops at its limit without reading every tagged subscription first.
        case probe
    }

    /// The built-in fields the `audience_counts` table groups pushable subscriptions by.
    static let groupedFields: Set<BuiltInField> = [.sessionCount, .appVersion, .language]

    /// Compiles `expression` for `dialect`; `now` (ms) anchors `within_days`.
    ///
    /// - Parameters:
    ///   - table: the alias of the rows the condition reads (`s`, the subscriptions; `r`, the
    ///     groups of `audience_counts`, for an expression ``countsByGroup(_:)`` admits).
    ///   - tags: how tag conditions are read (default ``TagLookup/list``).
    static func compile(
        _ expression: AudienceExpression, dialect: SQLDialect, now: Int64, table: String = "s",
        tags: TagLookup = .list
    ) -> FilterSQL {
        var parameters: [any SQLiteBindable] = []
        let context = Context(dialect: dialect, now: now, table: table, tags: tags)
        // PostgreSQL hashes every `EXISTS` of an `or` whole (a sample of 20 read all of them), so
        // it gets one `in`; SQLite, given one list, drives from it (a probe per tagged
        // subscription) where several keep it walking the built-in index: measured slower there.
        let merged = dialect == .postgres ? mergingTagAlternatives(expression) : expression
        let sql = condition(merged, context, &parameters)
        return FilterSQL(sql: sql, parameters: parameters)
    }

    /// True when every condition of `expression` is on a field of ``groupedFields``: its count is
    /// the sum of the matching groups of `audience_counts`.
    static func countsByGroup(_ expression: AudienceExpression) -> Bool {
        switch expression {
        case .all(let parts), .any(let parts): return parts.allSatisfy(countsByGroup)
        case .condition(let c):
            if case .builtIn(let field) = c.subject { return groupedFields.contains(field) }
            return false
        case .engagement: return false
        }
    }

    /// For an expression that is one tag condition (`eq`, `ne`, `in`, `exists`), alone or joined by
    /// `and` to conditions on built-in fields only, the expression as a condition on the rows of
    /// `subscription_tags t`, which carry their subscription's `resource_id`, `pushable` and
    /// built-in field columns: a subscription has one row per tag name, so counting the rows counts
    /// the subscriptions, and the tag's index range holds all the condition reads. Nil for any other
    /// expression.
    static func tagRows(_ expression: AudienceExpression, dialect: SQLDialect, now: Int64) -> FilterSQL? {
        var tag: FilterSQL?
        var builtIns: [AudienceExpression] = []
        for part in conjuncts(mergingTagAlternatives(expression)) {
            if tag == nil, let lone = tagRow(part) {
                tag = lone
            } else if readsBuiltInsOnly(part) {
                builtIns.append(part)
            } else {
                return nil
            }
        }
        guard var tag else { return nil }
        if !builtIns.isEmpty {
            let compiled = compile(.all(builtIns), dialect: dialect, now: now, table: "t")
            tag.sql += " AND " + compiled.sql
            tag.parameters += compiled.parameters
        }
        return tag
    }

    /// The parts `expression` requires all of: the parts of its `and`s, however nested.
    private static func conjuncts(_ expression: AudienceExpression) -> [AudienceExpression] {
        switch expression {
        case .all(let parts): parts.flatMap(conjuncts)
        case .any(let parts) where parts.count == 1: conjuncts(parts[0])
        default: [expression]
        }
    }

    private static func readsBuiltInsOnly(_ expression: AudienceExpression) -> Bool {
        switch expression {
        case .all(let parts), .any(let parts): parts.allSatisfy(readsBuiltInsOnly)
        case .condition(let c): if case .builtIn = c.subject { true } else { false }
        case .engagement: false
        }
    }

    /// One tag condition (`eq`, `ne`, `in`, `exists`) on the tag's rows `t`; nil for any other part.
    private static func tagRow(_ expression: AudienceExpression) -> FilterSQL? {
        guard case .condition(let c) = expression, case .tag(let key) = c.subject else { return nil }
        var parameters: [any SQLiteBindable] = [key]
        switch (c.op, c.operand) {
        case (.exists, _): return FilterSQL(sql: "t.name = ?", parameters: parameters)
        case (.in, .texts(let texts)):
            parameters += texts.map { $0 as any SQLiteBindable }
            return FilterSQL(sql: "t.name = ? AND t.value IN \(marks(texts.count))", parameters: parameters)
        case (.eq, .text(let text)), (.ne, .text(let text)):
            parameters.append(text)
            return FilterSQL(sql: "t.name = ? AND t.value \(symbol(c.op)) ?", parameters: parameters)
        default: return nil
        }
    }

    /// `expression` with the `eq` and `in` conditions on one tag that an `or` joins merged into one
    /// `in` (the same subscriptions: a subscription has one value per tag): on PostgreSQL, so it
    /// joins the tag's rows (it hashes each of several `EXISTS` joined by `or` whole, even for a
    /// sample of 20), and on both for `tagRows(_:dialect:now:)`.
    static func mergingTagAlternatives(_ expression: AudienceExpression) -> AudienceExpression {
        switch expression {
        case .condition, .engagement: return expression
        case .all(let parts): return .all(parts.map(mergingTagAlternatives))
        case .any(let parts):
            var others: [AudienceExpression] = []
            var keys: [String] = []
            var values: [String: [String]] = [:]
            for part in parts.map(mergingTagAlternatives) {
                guard case .condition(let c) = part, case .tag(let key) = c.subject else {
                    others.append(part)
                    continue
                }
                let texts: [String]
                switch (c.op, c.operand) {
                case (.eq, .text(let text)): texts = [text]
                case (.in, .texts(let list)): texts = list
                default:
                    others.append(part)
                    continue
                }
                if values[key] == nil { keys.append(key) }
                values[key, default: []] += texts.filter { !(values[key] ?? []).contains($0) }
            }
            let merged = keys.map { key in
                let texts = values[key] ?? []
                return AudienceExpression.condition(
                    texts.count == 1
                        ? AudienceCondition(subject: .tag(key), op: .eq, operand: .text(texts[0]))
                        : AudienceCondition(subject: .tag(key), op: .in, operand: .texts(texts)))
            }
            let all = others + merged
            return all.count == 1 ? all[0] : .any(all)
        }
    }

    private struct Context {
        var dialect: SQLDialect
        var now: Int64
        var table: String
        var tags: TagLookup
    }

    /// The column of a built-in field, in the rows aliased `table`.
    static func column(_ field: BuiltInField, table: String = "s") -> String {
        let name =
            switch field {
            case .appVersion: "app_version_key"
            case .language: "language"
            case .firstSession: "first_session"
            case .lastSession: "last_session"
            case .sessionCount: "session_count"
            case .foregroundTime: "foreground_time"
            }
        return table + "." + name
    }

    private static func condition(
        _ expression: AudienceExpression, _ x: Context, _ p: inout [any SQLiteBindable]
    ) -> String {
        switch expression {
        case .all(let parts):
            return "(" + parts.map { condition($0, x, &p) }.joined(separator: " AND ") + ")"
        case .any(let parts): return "(" + parts.map { condition($0, x, &p) }.joined(separator: " OR ") + ")"
        case .condition(let c):
            switch c.subject {
            case .builtIn(let field): return builtIn(c, column(field, table: x.table), field.kind, x.now, &p)
            case .tag(let key): return tag(c, key, x, &p)
            case .field(let name): return custom(c, name, x.dialect, x.now, &p)
            }
        case .engagement(let c): return engagement(c, x.now, &p)
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

    private static func tag(
        _ c: AudienceCondition, _ key: String, _ x: Context, _ p: inout [any SQLiteBindable]
    ) -> String {
        let (has, hasNot, select) =
            switch x.tags {
            case .list:
                ("s.id IN", "s.id NOT IN", "SELECT t.subscription_id FROM subscription_tags t WHERE t.name = ?")
            case .probe:
                (
                    "EXISTS", "NOT EXISTS",
                    "SELECT 1 FROM subscription_tags t WHERE t.subscription_id = s.id AND t.name = ?"
                )
            }
        p.append(key)
        switch (c.op, c.operand) {
        case (.exists, _): return "\(has) (\(select))"
        case (.notExists, _): return "\(hasNot) (\(select))"
        case (.in, .texts(let texts)):
            p += texts.map { $0 as any SQLiteBindable }
            return "\(has) (\(select) AND t.value IN \(marks(texts.count)))"
        case (_, .text(let text)):
            p.append(text)
            return "\(has) (\(select) AND t.value \(symbol(c.op)) ?)"
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
