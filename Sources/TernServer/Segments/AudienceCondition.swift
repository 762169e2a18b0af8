import Foundation
import TernProtocol

/// One condition of an ``AudienceExpression``: a field, an operator and the value it compares with,
/// checked against the field's kind (a `>` on a text field is refused).
public struct AudienceCondition: Sendable, Equatable {
    /// What the condition reads.
    enum Subject: Sendable, Equatable {
        /// A built-in field, by its name (`session_count`).
        case builtIn(BuiltInField)
        /// A custom subscription field (`fields.<name>`).
        case field(String)
        /// A tag of the binding (`tags.<key>`).
        case tag(String)
    }

    /// What it compares with, already in the form the field is stored in.
    enum Operand: Sendable, Equatable {
        /// `exists`, `not_exists`.
        case none
        case text(String)
        case number(Double)
        case bool(Bool)
        /// Milliseconds since 1970.
        case time(Int64)
        /// For `within_days`.
        case days(Double)
        case texts([String])
        case numbers([Double])
    }

    var subject: Subject
    var op: FilterOperator
    var operand: Operand

    /// Longest text value, tag key or field name.
    static let maxText = 256
    /// Longest list of `in`.
    static let maxList = 1000

    init(subject: Subject, op: FilterOperator, operand: Operand) {
        self.subject = subject
        self.op = op
        self.operand = operand
    }

    init(_ object: [String: JSONValue], path: String) throws(APIError) {
        let stray = Set(object.keys).subtracting(["field", "op", "value"])
        if let key = stray.sorted().first {
            throw AudienceExpression.refuse(
                "\(path).\(key)", "is not a key of a condition (field, op, value) nor and/or, message or engagement")
        }
        guard let field = object["field"]?.stringValue, !field.isEmpty else {
            throw AudienceExpression.refuse(
                "\(path).field", "is missing: a built-in field, fields.<name> or tags.<key>")
        }
        subject = try Self.subject(field, path: "\(path).field")
        guard let name = object["op"]?.stringValue else {
            throw AudienceExpression.refuse("\(path).op", "is missing: one of \(FilterOperator.described)")
        }
        guard let op = FilterOperator.named(name) else {
            throw AudienceExpression.refuse(
                "\(path).op", "unknown operator \"\(name.prefix(32))\": use one of \(FilterOperator.described)")
        }
        self.op = op
        operand = try Self.operand(subject, op, object["value"], path: path, field: field)
    }

    static func subject(_ field: String, path: String) throws(APIError) -> Subject {
        for (prefix, make) in [("fields.", Subject.field), ("tags.", Subject.tag)] where field.hasPrefix(prefix) {
            let name = String(field.dropFirst(prefix.count))
            guard !name.isEmpty, TextLength.fits(name, max: 128), !name.contains("\""), !name.contains("\\") else {
                throw AudienceExpression.refuse(
                    path, "\(prefix)<name> needs a name of 1 to 128 characters without \" or \\")
            }
            return make(name)
        }
        guard let builtIn = BuiltInField(rawValue: field) else {
            let known = BuiltInField.allCases.map(\.rawValue).joined(separator: ", ")
            throw AudienceExpression.refuse(
                path,
                "unknown built-in field \"\(field.prefix(64))\": built-ins are \(known); custom fields are "
                    + "fields.<name>, tags tags.<key>")
        }
        return .builtIn(builtIn)
    }

    /// The operand for `op` on `subject`, or a refusal saying which operators fit the field.
    static func operand(_ subject: Subject, _ op: FilterOperator, _ value: JSONValue?, path: String, field: String)
        throws(APIError) -> Operand
    {
        let valuePath = "\(path).value"
        if op == .exists || op == .notExists {
            guard value == nil || value == .null else {
                throw AudienceExpression.refuse(valuePath, "\(op.rawValue) takes no value")
            }
            return .none
        }
        guard let value, value != .null else {
            throw AudienceExpression.refuse(valuePath, "is missing: \(op.rawValue) compares with a value")
        }
        let kind = Self.kind(subject)
        guard kind.allows(op) else {
            throw AudienceExpression.refuse(
                path,
                "\(op.rawValue) does not fit \(field.prefix(64)), \(kind.label): use one of "
                    + kind.operators.map(\.rawValue).joined(separator: ", "))
        }
        if op == .in {
            guard case .array(let items) = value, !items.isEmpty, items.count <= maxList else {
                throw AudienceExpression.refuse(valuePath, "in takes a list of 1 to \(maxList) values")
            }
            var operands: [Operand] = []
            for (index, item) in items.enumerated() {
                operands.append(try scalar(kind, .eq, item, path: "\(valuePath)[\(index)]"))
            }
            if case .text = operands[0], case .text = operands.last {
                let texts = operands.compactMap { operand -> String? in
                    if case .text(let t) = operand { t } else { nil }
                }
                if texts.count == operands.count { return .texts(texts) }
            }
            let numbers = operands.compactMap { operand -> Double? in
                if case .number(let n) = operand { n } else { nil }
            }
            guard numbers.count == operands.count else {
                throw AudienceExpression.refuse(valuePath, "in takes values of one type: all text or all numbers")
            }
            return .numbers(numbers)
        }
        return try scalar(kind, op, value, path: valuePath)
    }

    /// One value checked against the field's kind and the operator.
    static func scalar(_ kind: FieldKind, _ op: FilterOperator, _ value: JSONValue, path: String) throws(APIError)
        -> Operand
    {
        switch op {
        case .before, .after:
            if let ms = value.intValue { return .time(ms) }
            guard let text = value.stringValue, let date = InAppWire.parse(text) else {
                throw AudienceExpression.refuse(
                    path, "\(op.rawValue) takes an ISO-8601 time with a zone (2026-12-01T08:30:00Z) or ms since 1970")
            }
            return .time(date.milliseconds)
        case .withinDays:
            guard let days = value.doubleValue, days > 0, days <= 36_500 else {
                throw AudienceExpression.refuse(path, "within_days takes a number of days above 0, up to 36500")
            }
            return .days(days)
        default: break
        }
        switch kind {
        case .version:
            let text = value.stringValue ?? value.doubleValue.map { String($0) }
            guard let text, let key = VersionKey.key(text) else {
                throw AudienceExpression.refuse(path, "app_version compares with a version like \"2.0\" or \"10.4.1\"")
            }
            return .text(key)
        case .text, .tag:
            guard let text = value.stringValue, TextLength.fits(text, max: maxText) else {
                throw AudienceExpression.refuse(path, "must be text of up to \(maxText) characters")
            }
            return .text(text)
        case .number, .time:
            guard let number = value.doubleValue, value.stringValue == nil else {
                throw AudienceExpression.refuse(path, "must be a number")
            }
            return .number(number)
        case .custom:
            switch value {
            case .string(let text):
                guard !op.isOrdering else {
                    throw AudienceExpression.refuse(
                        path, "\(op.rawValue) compares numbers: give a number (text takes eq, ne, in)")
                }
                guard TextLength.fits(text, max: maxText) else {
                    throw AudienceExpression.refuse(path, "must be text of up to \(maxText) characters")
                }
                return .text(text)
            case .bool(let flag):
                guard op == .eq || op == .ne else {
                    throw AudienceExpression.refuse(path, "true and false take eq and ne only")
                }
                return .bool(flag)
            case .int, .double: return .number(value.doubleValue ?? 0)
            default: throw AudienceExpression.refuse(path, "must be text, a number, true or false")
            }
        }
    }

    /// The kind of field a condition reads, and the operators that fit it.
    enum FieldKind {
        case version, text, number, time, tag, custom

        var operators: [FilterOperator] {
            let presence: [FilterOperator] = [.exists, .notExists]
            return switch self {
            case .version, .number: [.eq, .ne, .lt, .lte, .gt, .gte, .in] + presence
            case .text, .tag: [.eq, .ne, .in] + presence
            case .time: [.before, .after, .withinDays] + presence
            case .custom: FilterOperator.allCases
            }
        }

        func allows(_ op: FilterOperator) -> Bool { operators.contains(op) }

        var label: String {
            switch self {
            case .version: "a version field"
            case .text: "a text field"
            case .number: "a number field"
            case .time: "a time field"
            case .tag: "a tag (tags are text)"
            case .custom: "a custom field"
            }
        }
    }

    static func kind(_ subject: Subject) -> FieldKind {
        switch subject {
        case .builtIn(let field):
            switch field.kind {
            case .version: .version
            case .text: .text
            case .number: .number
            case .time: .time
            }
        case .field: .custom
        case .tag: .tag
        }
    }
}
