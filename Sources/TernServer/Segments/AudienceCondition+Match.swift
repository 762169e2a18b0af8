import Foundation
import TernProtocol

/// The condition evaluated on one subscription's fields and tags, meaning what ``FilterSQL`` makes
/// of it: a missing field matches only `not_exists`; `ne` needs the field with another value of
/// the same type; times are ms since 1970.
extension AudienceCondition {
    /// The value the condition reads, as the stored column or JSON holds it.
    enum Read: Equatable {
        case text(String)
        case number(Double)
        case bool(Bool)
    }

    func read(fields: [String: JSONValue], tags: [String: String]) -> Read? {
        switch subject {
        case .tag(let key): return tags[key].map(Read.text)
        case .builtIn(let field):
            let value = fields[field.key]
            switch field.kind {
            case .version: return value?.stringValue.flatMap(VersionKey.key).map(Read.text)
            case .text: return value?.stringValue.map(Read.text)
            case .number, .time: return value?.doubleValue.map(Read.number)
            }
        case .field(let name):
            switch fields[name] {
            case .string(let text)?: return .text(text)
            case .bool(let flag)?: return .bool(flag)
            case let number? where number.doubleValue != nil: return .number(number.doubleValue ?? 0)
            default: return nil
            }
        }
    }

    func matches(fields: [String: JSONValue], tags: [String: String], now: Int64) -> Bool {
        let value = read(fields: fields, tags: tags)
        switch op {
        case .exists: return value != nil
        case .notExists: return value == nil
        default: break
        }
        guard let value else { return false }
        switch (op, operand, value) {
        case (.eq, .text(let want), .text(let have)): return have == want
        case (.ne, .text(let want), .text(let have)): return have != want
        case (.eq, .number(let want), .number(let have)): return have == want
        case (.ne, .number(let want), .number(let have)): return have != want
        case (.eq, .bool(let want), .bool(let have)): return have == want
        case (.ne, .bool(let want), .bool(let have)): return have != want
        case (.in, .texts(let list), .text(let have)): return list.contains(have)
        case (.in, .numbers(let list), .number(let have)): return list.contains(have)
        case (.lt, .number(let want), .number(let have)): return have < want
        case (.lte, .number(let want), .number(let have)): return have <= want
        case (.gt, .number(let want), .number(let have)): return have > want
        case (.gte, .number(let want), .number(let have)): return have >= want
        case (.lt, .text(let want), .text(let have)): return have < want
        case (.lte, .text(let want), .text(let have)): return have <= want
        case (.gt, .text(let want), .text(let have)): return have > want
        case (.gte, .text(let want), .text(let have)): return have >= want
        case (.before, .time(let at), .number(let have)): return have < Double(at)
        case (.after, .time(let at), .number(let have)): return have > Double(at)
        case (.withinDays, .days(let days), .number(let have)): return have >= Double(Self.since(days, now: now))
        default: return false
        }
    }

    /// The earliest time (ms) `within_days` admits at `now`.
    static func since(_ days: Double, now: Int64) -> Int64 {
        now - Int64((days * 86_400_000).rounded())
    }
}
