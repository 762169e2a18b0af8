import Foundation
import TernProtocol

/// The short text form of a filter that `tern` takes (`--where`), read into the JSON the API takes:
///
/// ```
/// session_count >= 3 and app_version >= 2.0
/// (tags.interest in (travel, food) or fields.plan = "gold") and last_session within 7 days
/// language not exists or first_session before 2026-01-01T00:00:00Z
/// not opened m_0123456789abcdef and tags.interest = travel
/// received m_0123456789abcdef or opened_any within 30 days
/// ```
///
/// Engagement conditions (``EngagementCondition``) read `opened M`, `not opened M`, `delivered M`
/// (or `received M`), `sent M` for a message's id `M`, and `opened_any within N days`.
///
/// `and` binds tighter than `or`; parentheses group. Operators are those of `FilterOperator`
/// (names or symbols); a value is a number, `true`/`false`, a quoted or a bare word (versions of
/// `app_version` stay text, so `2.10` is not `2.1`).
public enum FilterText {
    /// Reads `text`; throws a reason naming the word where it went wrong.
    public static func parse(_ text: String) throws(APIError) -> JSONValue {
        var reader = Reader(tokens: try tokens(text))
        let expression = try reader.or()
        if let extra = reader.peek { throw .badRequest("filter: unexpected \"\(extra)\" after a complete filter") }
        return expression
    }

    static func tokens(_ text: String) throws(APIError) -> [String] {
        var tokens: [String] = []
        var index = text.startIndex
        let symbols: Set<Character> = ["(", ")", ","]
        let operatorCharacters: Set<Character> = ["<", ">", "=", "!", "≤", "≥", "≠"]
        while index < text.endIndex {
            let character = text[index]
            if character.isWhitespace {
                index = text.index(after: index)
            } else if symbols.contains(character) {
                tokens.append(String(character))
                index = text.index(after: index)
            } else if character == "\"" || character == "'" {
                var end = text.index(after: index)
                while end < text.endIndex, text[end] != character { end = text.index(after: end) }
                guard end < text.endIndex else { throw .badRequest("filter: a quote \(character) is not closed") }
                // A leading quote marks text: kept so the reader does not take it for a number.
                tokens.append("\"" + text[text.index(after: index)..<end])
                index = text.index(after: end)
            } else if operatorCharacters.contains(character) {
                var end = index
                while end < text.endIndex, operatorCharacters.contains(text[end]) { end = text.index(after: end) }
                tokens.append(String(text[index..<end]))
                index = end
            } else {
                var end = index
                while end < text.endIndex, !text[end].isWhitespace, !symbols.contains(text[end]),
                    !operatorCharacters.contains(text[end])
                {
                    end = text.index(after: end)
                }
                tokens.append(String(text[index..<end]))
                index = end
            }
        }
        return tokens
    }

    struct Reader {
        var tokens: [String]
        var position = 0

        var peek: String? { position < tokens.count ? tokens[position] : nil }

        mutating func next(_ what: String) throws(APIError) -> String {
            guard let token = peek else { throw .badRequest("filter: ends where \(what) should be") }
            position += 1
            return token
        }

        mutating func or() throws(APIError) -> JSONValue {
            var parts = [try and()]
            while peek?.lowercased() == "or" {
                position += 1
                parts.append(try and())
            }
            return parts.count == 1 ? parts[0] : .object(["or": .array(parts)])
        }

        mutating func and() throws(APIError) -> JSONValue {
            var parts = [try factor()]
            while peek?.lowercased() == "and" {
                position += 1
                parts.append(try factor())
            }
            return parts.count == 1 ? parts[0] : .object(["and": .array(parts)])
        }

        mutating func factor() throws(APIError) -> JSONValue {
            if peek == "(" {
                position += 1
                let inner = try or()
                guard try next("a closing )") == ")" else { throw .badRequest("filter: a ( is not closed") }
                return inner
            }
            if let engagement = try engagement() { return engagement }
            let field = try next("a field")
            guard !["and", "or", ")", ","].contains(field.lowercased()) else {
                throw .badRequest("filter: expected a field, found \"\(field)\"")
            }
            var op = try next("an operator after \(field)").lowercased()
            if op == "not" {
                guard try next("exists").lowercased() == "exists" else {
                    throw .badRequest("filter: \(field) not … takes exists (not exists)")
                }
                op = "not_exists"
            }
            var condition: [String: JSONValue] = ["field": .string(field), "op": .string(op)]
            switch op {
            case "exists", "not_exists": break
            case "in":
                guard try next("(") == "(" else { throw .badRequest("filter: \(field) in takes a list: in (a, b)") }
                var values: [JSONValue] = []
                while true {
                    values.append(value(try next("a value"), field: field))
                    let separator = try next(", or )")
                    if separator == ")" { break }
                    guard separator == "," else { throw .badRequest("filter: expected , or ) in the list of \(field)") }
                }
                condition["value"] = .array(values)
            case "within", "within_days":
                condition["op"] = "within_days"
                condition["value"] = value(try next("a number of days"), field: field)
                if let unit = peek?.lowercased(), unit == "days" || unit == "day" { position += 1 }
            default:
                condition["value"] = value(try next("a value after \(op)"), field: field)
            }
            return .object(condition)
        }

        /// An engagement condition, when the next words start one (no field has these names).
        mutating func engagement() throws(APIError) -> JSONValue? {
            guard let word = peek?.lowercased() else { return nil }
            let kinds = ["opened": "opened", "delivered": "delivered", "received": "delivered", "sent": "sent"]
            if word == "opened_any" {
                position += 1
                guard ["within", "within_days"].contains(try next("within N days").lowercased()) else {
                    throw .badRequest("filter: opened_any takes within N days")
                }
                let days = value(try next("a number of days"), field: "opened_any")
                if let unit = peek?.lowercased(), unit == "days" || unit == "day" { position += 1 }
                return .object(["engagement": "opened_any", "op": "within_days", "value": days])
            }
            let op: String
            if word == "not", position + 1 < tokens.count, tokens[position + 1].lowercased() == "opened" {
                position += 2
                op = "not_opened"
            } else if let kind = kinds[word] {
                position += 1
                op = kind
            } else {
                return nil
            }
            let id = try next("a message's id after \(op.replacingOccurrences(of: "_", with: " "))")
            guard !["and", "or", "(", ")", ","].contains(id.lowercased()) else {
                throw .badRequest(
                    "filter: \(op.replacingOccurrences(of: "_", with: " ")) takes a message's id, found \"\(id)\"")
            }
            return .object(["message": .string(id.hasPrefix("\"") ? String(id.dropFirst()) : id), "op": .string(op)])
        }

        func value(_ token: String, field: String) -> JSONValue {
            if token.hasPrefix("\"") { return .string(String(token.dropFirst())) }
            if token == "true" { return .bool(true) }
            if token == "false" { return .bool(false) }
            if field != BuiltInField.appVersion.rawValue, let number = Int64(token) { return .int(number) }
            if field != BuiltInField.appVersion.rawValue, let number = Double(token) { return .double(number) }
            return .string(token)
        }
    }
}
