import Foundation
import TernProtocol
import Testing

@testable import TernPush

/// A small seeded generator (SplitMix64): a failing case reproduces from its seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Builds random JSON and mutates valid payloads.
struct PayloadFuzzer {
    var random: SeededGenerator
    let keys = [
        "v", "message_id", "media_url", "buttons", "click_url", "track", "id", "title", "action", "url",
        "delivery", "open", "aps", "alert", "tern", "x",
    ]
    let strings = [
        "", " ", "m-1", "https://cdn.example.com/a.jpg", "http://127.0.0.1/a.png", "myapp://x", "open",
        "url", "dismiss", "a b", "é", "tern.m", "com.apple.UNNotificationDefaultActionIdentifier", "\u{0}",
        String(repeating: "z", count: 300), "https://", "javascript:alert(1)", "//cdn.example.com/a.jpg",
    ]

    mutating func value(depth: Int) -> JSONValue {
        switch Int.random(in: 0..<(depth > 2 ? 6 : 8), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .int(Int64.random(in: -5...5, using: &random))
        case 3: return .double([0.5, -1e300, 1e-9, 3.0][Int.random(in: 0..<4, using: &random)])
        case 4, 5: return .string(strings.randomElement(using: &random)!)
        case 6: return .array((0..<Int.random(in: 0..<5, using: &random)).map { _ in value(depth: depth + 1) })
        default:
            var object: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0..<5, using: &random) {
                object[keys.randomElement(using: &random)!] = value(depth: depth + 1)
            }
            return .object(object)
        }
    }

    static let valid: JSONValue = [
        "aps": ["alert": ["title": "T", "body": "B"], "mutable-content": 1],
        "tern": [
            "v": 1, "message_id": "m-42", "media_url": "https://cdn.example.com/a.jpg",
            "buttons": [
                ["id": "shop", "title": "Shop", "action": "url", "url": "https://example.com"],
                ["id": "later", "title": "Later", "action": "dismiss"],
                ["id": "app", "title": "App", "action": "open"],
            ],
            "click_url": "https://example.com", "track": ["delivery": true, "open": true],
        ],
        "order_id": "A-1",
    ]

    /// Replaces, removes or adds one value somewhere in `json`.
    mutating func mutate(_ json: JSONValue, depth: Int = 0) -> JSONValue {
        switch json {
        case .object(var object) where !object.isEmpty && Int.random(in: 0..<4, using: &random) > 0:
            let key = object.keys.sorted().randomElement(using: &random)!
            switch Int.random(in: 0..<4, using: &random) {
            case 0: object[key] = nil
            case 1: object[key] = value(depth: depth + 1)
            default: object[key] = mutate(object[key]!, depth: depth + 1)
            }
            return .object(object)
        case .array(var array) where !array.isEmpty && Int.random(in: 0..<4, using: &random) > 0:
            let index = Int.random(in: 0..<array.count, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: array.remove(at: index)
            case 1: array.append(array[index])
            default: array[index] = mutate(array[index], depth: depth + 1)
            }
            return .array(array)
        default:
            return value(depth: depth)
        }
    }
}

@Suite struct PayloadFuzzTests {
    static let parserKinds: Set<PushIssue.Kind> = [
        .errorHandleUserInfo, .uidIsNil, .errorMediaKeyMissing, .errorButtonsKeyMissing, .invalidButtonIdentifier,
        .outOfRangeForIdentifier,
    ]

    /// Every outcome is a checked message or one of the reference's events, whatever the input.
    @discardableResult
    func check(_ payload: JSONValue, parser: PushPayloadParser, seed: UInt64) -> PushParseOutcome? {
        guard let object = payload.objectValue else { return nil }
        let outcome = parser.parse(json: object)
        for issue in outcome.issues {
            #expect(Self.parserKinds.contains(issue.kind), "seed \(seed): \(issue)")
            #expect(!issue.reason.isEmpty, "seed \(seed)")
        }
        switch outcome {
        case .notTern:
            #expect(object["tern"] == nil, "seed \(seed)")
        case .malformed(let issues):
            #expect(!issues.isEmpty && object["tern"]?.objectValue == nil, "seed \(seed)")
        case .push(let message, let issues):
            #expect(message.buttons.count <= PushButton.maxCount, "seed \(seed)")
            #expect(Set(message.buttons.map(\.id)).count == message.buttons.count, "seed \(seed)")
            for button in message.buttons {
                #expect(PushButton.identifierProblem(button.id) == nil, "seed \(seed)")
                #expect(!button.title.trimmingCharacters(in: .whitespaces).isEmpty, "seed \(seed)")
                #expect(button.action != .url || button.url != nil, "seed \(seed)")
            }
            if let media = message.mediaURL { #expect(media.scheme == "https", "seed \(seed)") }
            #expect(message.version >= 1, "seed \(seed)")
            #expect((message.messageId == nil) == issues.contains { $0.kind == .uidIsNil }, "seed \(seed)")
            if let id = message.messageId {
                #expect(!id.isEmpty && id.count <= PushPayloadParser.maxMessageIdLength, "seed \(seed)")
            }
            if let category = MessageCategory.category(for: message) {
                #expect(MessageCategory.isTernCategory(category.identifier))
            }
            // The same payload handed over as an OS userInfo dictionary reads the same.
            let userInfo = (payload.anyValue as? [String: Any]).map {
                Dictionary(uniqueKeysWithValues: $0.map { (AnyHashable($0.key), $0.value) })
            }
            if let userInfo {
                #expect(parser.parse(userInfo: userInfo).message == message, "seed \(seed)")
            }
        }
        return outcome
    }

    @Test func mutatedValidPayloadsAlwaysGiveAMessageOrAnEvent() {
        let parser = PushPayloadParser()
        var seen: Set<PushIssue.Kind> = []
        var messages = 0
        for seed in UInt64(0)..<4000 {
            var fuzzer = PayloadFuzzer(random: SeededGenerator(seed: seed))
            var payload = PayloadFuzzer.valid
            for _ in 0..<Int.random(in: 1...4, using: &fuzzer.random) { payload = fuzzer.mutate(payload) }
            let outcome = check(payload, parser: parser, seed: seed)
            seen.formUnion(outcome?.issues.map(\.kind) ?? [])
            if outcome?.message != nil { messages += 1 }
        }
        // The mutations reach every rule, and a good share of payloads still give a message.
        #expect(seen == Self.parserKinds)
        #expect(messages > 1000)
    }

    @Test func randomPayloadsAlwaysGiveAMessageOrAnEvent() {
        let parser = PushPayloadParser()
        for seed in UInt64(10_000)..<13_000 {
            var fuzzer = PayloadFuzzer(random: SeededGenerator(seed: seed))
            var tern: [String: JSONValue] = [:]
            for key in ["v", "message_id", "media_url", "buttons", "click_url", "track"]
            where Bool.random(using: &fuzzer.random) {
                tern[key] = fuzzer.value(depth: 1)
            }
            let payload: JSONValue =
                Bool.random(using: &fuzzer.random) ? ["tern": .object(tern)] : fuzzer.value(depth: 0)
            check(payload, parser: parser, seed: seed)
        }
    }

    @Test func randomBytesNeverCrashTheParser() {
        let parser = PushPayloadParser()
        var random = SeededGenerator(seed: 99)
        let valid = Array((try? JSONEncoder().encode(PayloadFuzzer.valid)) ?? Data())
        for _ in 0..<2000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            let outcome = parser.parse(data: Data(bytes))
            #expect(outcome.issues.allSatisfy { Self.parserKinds.contains($0.kind) })
        }
    }
}
