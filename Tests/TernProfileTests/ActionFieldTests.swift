import Foundation
import TernProfile
import TernPush
import TernSDKTestKit
import Testing

/// The action-field builder: one builder for push's `subscribe` and the profile's update, each
/// operation in the wire's `{"action": …, "value": …}` form.
@Suite struct ActionFieldTests {
    static func wire(_ fields: [String: Any?]) throws -> [String: JSONValue] {
        try #require(try FieldValues.json(fields).get())
    }

    @Test func eachOperationHasTheWiresShape() throws {
        let builder = ActionFieldBuilder(key: "orders")
        #expect(try Self.wire(builder.set(3)) == ["orders": ActionFieldOperation.set.encoded(3)])
        #expect(try Self.wire(builder.unset()) == ["orders": ["action": "unset"]])
        #expect(try Self.wire(builder.incr()) == ["orders": ["action": "incr", "value": 1]])
        #expect(try Self.wire(builder.incr(2.5)) == ["orders": ["action": "incr", "value": 2.5]])
        #expect(try Self.wire(builder.add(["a", "b"])) == ["orders": ["action": "add", "value": ["a", "b"]]])
        #expect(try Self.wire(builder.delete("a")) == ["orders": ["action": "delete", "value": "a"]])
        let upsert = try Self.wire(builder.upsert(["city": "Lisbon", "zip": 1000] as [String: Any?]))
        #expect(upsert == ["orders": ["action": "upsert", "value": ["city": "Lisbon", "zip": 1000]]])
        for (_, value) in upsert { #expect(ActionFieldOperation.parse(value)?.0 == .upsert) }
    }

    @Test func pushAndProfileHandOutTheSameBuilder() throws {
        let sdk = try TestSDK()
        let push = sdk.tern.push.subscription.actionField("visits").incr(1)
        let labelled = sdk.tern.push.subscription.actionField(key: "visits").incr(1)
        let profile = sdk.tern.profile.update.actionField("visits").incr(1)
        #expect(try Self.wire(push) == Self.wire(profile))
        #expect(try Self.wire(labelled) == Self.wire(profile))
    }

    @Test func aValueJSONCannotCarryIsNamedWhenConverted() {
        let fields = ActionFieldBuilder(key: "born").set(Date())
        guard case .failure(let problem) = FieldValues.json(fields) else {
            Issue.record("a Date was converted")
            return
        }
        #expect(problem.field == "born")
        #expect(problem.reason(in: "profileFields").contains("Date"))
    }
}
