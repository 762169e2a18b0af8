import Foundation
import TernProtocol
import Testing

@testable import TernPush

@Suite struct PayloadButtonTests {
    let parser = PushPayloadParser()

    func parse(_ buttons: JSONValue) -> PushParseOutcome {
        parser.parse(json: ["tern": ["message_id": "m-1", "buttons": buttons]])
    }

    @Test func buttonsThatAreNotAnArrayAreErrorButtonsKeyMissing() {
        let outcome = parse(["id": "a"])
        #expect(outcome.message?.buttons == [])
        #expect(outcome.issues.map(\.kind) == [.errorButtonsKeyMissing])
    }

    @Test func onlyTheBrokenButtonIsDroppedAndEachBreakGetsItsEvent() {
        let outcome = parse([
            ["id": "ok", "title": "OK", "action": "open"],
            ["id": "bad id!", "title": "Bad", "action": "open"],
            ["id": "notitle", "action": "open"],
        ])
        #expect(outcome.message?.buttons.map(\.id) == ["ok"])
        #expect(outcome.issues.map(\.kind) == [.invalidButtonIdentifier, .errorButtonsKeyMissing])
        #expect(outcome.issues[0].value["identifier"] == "bad id!")
        #expect(outcome.issues[1].value["index"] == 2)
    }

    @Test func aRepeatedIdentifierIsInvalid() {
        let outcome = parse([
            ["id": "a", "title": "A", "action": "open"], ["id": "a", "title": "A again", "action": "dismiss"],
        ])
        #expect(outcome.message?.buttons.map(\.title) == ["A"])
        #expect(outcome.issues.map(\.kind) == [.invalidButtonIdentifier])
    }

    @Test func buttonsPastTheThirdAreOutOfRange() {
        let entries: [JSONValue] = (0..<5).map { .object(["id": .string("b\($0)"), "title": "B", "action": "open"]) }
        let outcome = parse(.array(entries))
        #expect(outcome.message?.buttons.map(\.id) == ["b0", "b1", "b2"])
        #expect(outcome.issues.map(\.kind) == [.outOfRangeForIdentifier, .outOfRangeForIdentifier])
        #expect(outcome.issues.map { $0.value["identifier"] } == ["b3", "b4"])
    }

    @Test(arguments: [
        JSONValue.object(["id": "x", "title": "X", "action": "launch"]),
        ["id": "x", "title": "X"],
        ["id": "x", "title": "X", "action": "url"],
        ["id": "x", "title": "X", "action": "url", "url": "no scheme"],
        ["id": "x", "title": "", "action": "open"],
        ["title": "X", "action": "open"],
        "x",
    ])
    func aButtonMissingWhatItNeedsIsErrorButtonsKeyMissing(entry: JSONValue) {
        let outcome = parse([entry])
        #expect(outcome.message?.buttons == [])
        #expect(outcome.issues.map(\.kind) == [.errorButtonsKeyMissing])
    }

    @Test(arguments: [JSONValue.int(3), "", .string(String(repeating: "a", count: 65)), "a b", "é"])
    func aBadIdentifierIsInvalidButtonIdentifier(id: JSONValue) {
        let outcome = parse([["id": id, "title": "X", "action": "open"]])
        #expect(outcome.message?.buttons == [])
        #expect(outcome.issues.map(\.kind) == [.invalidButtonIdentifier])
    }

    @Test func aURLButtonKeepsItsURLAndOthersDropOne() throws {
        let outcome = parse([
            ["id": "go", "title": "Go", "action": "url", "url": "myapp://cart"],
            ["id": "open", "title": "Open", "action": "open", "url": "https://ignored.example"],
        ])
        let buttons = try #require(outcome.message?.buttons)
        #expect(buttons[0].url == "myapp://cart")
        #expect(buttons[1].url == nil)
        #expect(outcome.issues.isEmpty)
    }
}
