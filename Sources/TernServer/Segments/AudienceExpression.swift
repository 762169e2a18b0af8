import Foundation
import TernProtocol

/// A checked audience filter: conditions on built-in fields, custom fields, tags and engagement
/// with earlier messages (``EngagementCondition``), combined with
/// `and` and `or` to any depth (up to `maxDepth`). Made from its JSON by ``parse(_:path:)``, which
/// refuses a malformed one with the path of the part to change and the reason; compiled to SQL by
/// `FilterSQL` and evaluated in memory by `matches(fields:tags:now:)` (in-app campaigns), with
/// the same meaning.
///
/// ```json
/// {"and": [{"field": "session_count", "op": ">=", "value": 3},
///          {"field": "app_version", "op": ">=", "value": "2.0"},
///          {"or": [{"field": "tags.interest", "op": "in", "value": ["travel", "food"]},
///                  {"field": "fields.plan", "op": "exists"}]}]}
/// ```
public indirect enum AudienceExpression: Sendable, Equatable {
    /// Every part must hold.
    case all([AudienceExpression])
    /// At least one part must hold.
    case any([AudienceExpression])
    /// One comparison on a built-in field, a custom field or a tag.
    case condition(AudienceCondition)
    /// What the person did with earlier messages (``EngagementCondition``).
    case engagement(EngagementCondition)

    /// How deep `and`/`or` may nest.
    static let maxDepth = 8
    /// Conditions in one filter.
    static let maxConditions = 100

    /// Checks `json` and builds the filter; throws a 400 naming the part (`path`, e.g.
    /// `filter.and[1].op`) and the reason.
    public static func parse(_ json: JSONValue, path: String = "filter") throws(APIError) -> AudienceExpression {
        var count = 0
        return try parse(json, path: path, depth: 1, count: &count)
    }

    private static func parse(_ json: JSONValue, path: String, depth: Int, count: inout Int) throws(APIError)
        -> AudienceExpression
    {
        guard case .object(let object) = json else {
            throw refuse(path, "must be an object: {\"and\": [...]}, {\"or\": [...]} or {\"field\": ..., \"op\": ...}")
        }
        for key in ["and", "or"] {
            guard let parts = object[key] else { continue }
            guard object.count == 1 else {
                throw refuse(
                    path, "an \(key) takes no other keys (found \(object.keys.sorted().joined(separator: ", ")))")
            }
            guard depth < maxDepth else { throw refuse(path, "nests deeper than \(maxDepth) levels of and/or") }
            guard case .array(let items) = parts, !items.isEmpty else {
                throw refuse("\(path).\(key)", "must be a non-empty array of conditions")
            }
            var checked: [AudienceExpression] = []
            for (index, item) in items.enumerated() {
                checked.append(try parse(item, path: "\(path).\(key)[\(index)]", depth: depth + 1, count: &count))
            }
            return key == "and" ? .all(checked) : .any(checked)
        }
        count += 1
        guard count <= maxConditions else { throw refuse(path, "a filter has at most \(maxConditions) conditions") }
        if object["message"] != nil || object["engagement"] != nil {
            return .engagement(try EngagementCondition(object, path: path))
        }
        return .condition(try AudienceCondition(object, path: path))
    }

    static func refuse(_ path: String, _ reason: String) -> APIError {
        .badRequest("\(path): \(reason)")
    }

    /// True when the subscription with these fields and tags is in the audience at `now` (ms).
    /// An engagement condition never holds here: it reads the store, and in-app audiences, the only
    /// ones evaluated in memory, refuse it (``refuseEngagement(path:)``).
    func matches(fields: [String: JSONValue], tags: [String: String], now: Int64) -> Bool {
        switch self {
        case .all(let parts): parts.allSatisfy { $0.matches(fields: fields, tags: tags, now: now) }
        case .any(let parts): parts.contains { $0.matches(fields: fields, tags: tags, now: now) }
        case .condition(let condition): condition.matches(fields: fields, tags: tags, now: now)
        case .engagement: false
        }
    }

    /// True when some condition reads tags.
    var readsTags: Bool {
        switch self {
        case .all(let parts), .any(let parts): parts.contains(where: \.readsTags)
        case .condition(let condition): if case .tag = condition.subject { true } else { false }
        case .engagement: false
        }
    }

    /// The engagement conditions, each with its path in the filter's JSON (`path` names the whole;
    /// parts keep the places ``parse(_:path:)`` read them from).
    func engagements(path: String) -> [(path: String, condition: EngagementCondition)] {
        switch self {
        case .all(let parts):
            parts.enumerated().flatMap { $0.element.engagements(path: "\(path).and[\($0.offset)]") }
        case .any(let parts):
            parts.enumerated().flatMap { $0.element.engagements(path: "\(path).or[\($0.offset)]") }
        case .condition: []
        case .engagement(let condition): [(path, condition)]
        }
    }

    /// Refuses a filter with an engagement condition where filters are evaluated on the device's own
    /// data (in-app campaigns), with the path of the first.
    func refuseEngagement(path: String) throws(APIError) {
        guard let first = engagements(path: path).first else { return }
        throw Self.refuse(
            first.path,
            "an in-app audience is matched on the device's own fields and tags, which do not hold what the "
                + "person did with messages: engagement conditions go in push audiences and segments only")
    }
}

/// The comparisons a condition can make, by name or by symbol.
enum FilterOperator: String, Sendable, CaseIterable {
    case eq, ne, lt, lte, gt, gte, exists
    case notExists = "not_exists"
    case before, after
    case withinDays = "within_days"
    case `in`

    /// The symbols taken for the same operators.
    static let symbols: [String: FilterOperator] = [
        "=": .eq, "==": .eq, "≠": .ne, "!=": .ne, "<": .lt, "≤": .lte, "<=": .lte, ">": .gt, "≥": .gte, ">=": .gte,
    ]

    /// The operator named `text`, by name or symbol.
    static func named(_ text: String) -> FilterOperator? {
        FilterOperator(rawValue: text) ?? symbols[text]
    }

    var isOrdering: Bool { [.lt, .lte, .gt, .gte].contains(self) }

    /// Everything a refusal lists.
    static var described: String {
        "eq (=), ne (≠, !=), lt (<), lte (≤, <=), gt (>), gte (≥, >=), exists, not_exists, before, after, "
            + "within_days, in"
    }
}
