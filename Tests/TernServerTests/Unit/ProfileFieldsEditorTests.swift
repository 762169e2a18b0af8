import TernProtocol
import Testing

@testable import TernServer

/// Action-field operations and plain values, as a table.
@Suite struct ProfileFieldsEditorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let current: JSONValue?
        let requested: JSONValue
        let expected: JSONValue??
        var testDescription: String { "\(String(describing: current)) ← \(requested)" }
    }

    static let applied: [Case] = [
        Case(current: nil, requested: "Ada", expected: .some("Ada")),
        Case(current: 1, requested: ["a": 1], expected: .some(["a": 1])),
        Case(current: nil, requested: [["id": 1], ["id": 2]], expected: .some([["id": 1], ["id": 2]])),
        Case(current: "x", requested: ["action": "set", "value": 5], expected: .some(5)),
        Case(current: "x", requested: ["action": "unset"], expected: .some(nil)),
        Case(current: 2, requested: ["action": "incr", "value": 3], expected: .some(5)),
        Case(current: nil, requested: ["action": "incr"], expected: .some(1)),
        Case(current: 1.5, requested: ["action": "incr", "value": 1], expected: .some(2.5)),
        Case(
            current: .int(Int64.max), requested: ["action": "incr", "value": 1],
            expected: .some(.double(9.223372036854775808e18))),
        Case(current: ["a"], requested: ["action": "add", "value": "b"], expected: .some(["a", "b"])),
        Case(current: nil, requested: ["action": "add", "value": ["b", "c"]], expected: .some(["b", "c"])),
        Case(current: ["a", "b", "a"], requested: ["action": "delete", "value": "a"], expected: .some(["b"])),
        Case(
            current: ["x": 1], requested: ["action": "upsert", "value": ["y": 2]], expected: .some(["x": 1, "y": 2])),
        Case(current: nil, requested: ["action": "upsert", "value": ["y": 2]], expected: .some(["y": 2])),
        Case(
            current: nil, requested: ["action": "incr", "value": 1, "other": 2],
            expected: .some(["action": "incr", "value": 1, "other": 2])),
    ]

    static let refused: [Case] = [
        Case(current: "x", requested: ["action": "incr", "value": 1], expected: nil),
        Case(current: nil, requested: ["action": "incr", "value": "one"], expected: nil),
        Case(current: 1, requested: ["action": "add", "value": 2], expected: nil),
        Case(current: nil, requested: ["action": "set"], expected: nil),
        Case(current: ["a"], requested: ["action": "upsert", "value": 1], expected: nil),
        Case(current: nil, requested: ["action": "explode", "value": 1], expected: nil),
    ]

    @Test(arguments: applied)
    func operationGivesTheExpectedValue(_ testCase: Case) throws {
        let current: [String: JSONValue] = testCase.current.map { ["f": $0] } ?? [:]
        let changes = try ProfileFieldsEditor.changes(["f": testCase.requested], current: current)
        #expect(changes["f"] == testCase.expected)
    }

    @Test(arguments: refused)
    func operationThatDoesNotFitIsAnIncorrectField(_ testCase: Case) {
        let current: [String: JSONValue] = testCase.current.map { ["f": $0] } ?? [:]
        #expect(throws: APIError.incorrectProfileField("f")) {
            try ProfileFieldsEditor.changes(["f": testCase.requested], current: current)
        }
    }

    @Test(arguments: ["", " ", "1abc", "a b", "a.b", String(repeating: "x", count: 65)])
    func invalidFieldNameIsAnIncorrectField(_ name: String) {
        #expect(throws: APIError.incorrectProfileField(name)) {
            try ProfileFieldsEditor.changes([name: 1], current: [:])
        }
    }

    @Test func customFieldsTakeScalarsOnlyAndNullRemoves() throws {
        try CustomFields.validate(["a": 1, "b": "x", "c": true, "d": nil, "e": 1.5])
        #expect(throws: APIError.invalidCustomField("o")) { try CustomFields.validate(["o": ["k": 1]]) }
        #expect(throws: APIError.invalidCustomField("l")) { try CustomFields.validate(["l": [1]]) }
        #expect(CustomFields.merge(["a": 1, "b": 2], ["b": nil, "c": 3]) == ["a": 1, "c": 3])
    }
}
