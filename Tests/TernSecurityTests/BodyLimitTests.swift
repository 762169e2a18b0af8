import Foundation
import Testing

/// Every body meets one table of limits (BodyLimits.standard, listed in the API document), checked
/// before decoding; NUL is refused in every string; a number of the wrong type says so.
@Suite struct BodyLimitTests {
    @Test func aBodyOf70000KeysIsRefusedNamingTheLimitAndNothingIsWritten() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        var fields: [String: Int] = [:]
        for index in 0..<70_000 { fields["k\(index)"] = 0 }
        let reply = try await server.sdk(
            "push/subscribe", subscription("big-device", fields: fields), rToken: server.first.rToken)
        #expect(reply.status == 413)
        let text = reply.json?["error_text"] as? String ?? ""
        #expect(text.contains("the limit for this route is 65536 bytes"), "\(text)")
        // Within the route's size, the member count is what refuses it.
        var members: [String: Int] = [:]
        for index in 0..<300 { members["k\(index)"] = index }
        let many = try await server.sdk(
            "push/subscribe", subscription("big-device", fields: members), rToken: server.first.rToken)
        #expect(many.status == 400)
        let manyText = many.json?["error_text"] as? String ?? ""
        #expect(manyText.contains("field \"custom_fields\" has more than 256 members"), "\(manyText)")
        #expect(manyText.contains("Limits in docs/api/openapi.yaml"))
        let status = try await server.sdk(
            "push/status", ["provider": "ios-apns", "subscription_id": "big-device", "mode": "current"],
            rToken: server.first.rToken)
        #expect(status.json?["profile"] is NSNull, "\(status.text)")
    }

    @Test func theLargestBodyTheLimitsAllowIsAccepted() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        var fields: [String: String] = [:]
        for index in 0..<256 { fields["k\(index)"] = String(repeating: "v", count: 64) }
        let reply = try await server.sdk(
            "push/subscribe", subscription("full", fields: fields), rToken: server.first.rToken)
        #expect(reply.status == 200, "\(reply.text)")
    }

    @Test func depthKeyLengthStringLengthAndArrayLengthAreLimited() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        let rToken = server.first.rToken
        var nested: Any = 1
        for _ in 0..<9 { nested = ["a": nested] }
        let deep = try await server.sdk("push/subscribe", subscription("d", fields: ["n": nested]), rToken: rToken)
        #expect((deep.json?["error_text"] as? String)?.contains("deeper than 8 levels") == true, "\(deep.text)")
        let longKey = try await server.sdk(
            "push/subscribe", subscription("d", fields: [String(repeating: "k", count: 300): 1]), rToken: rToken)
        #expect((longKey.json?["error_text"] as? String)?.contains("the limit for a key is 256 characters") == true)
        let longString = try await server.sdk(
            "event/push",
            ["events": [["message_id": String(repeating: "x", count: 70_000), "type": "delivery", "time": 1]]],
            rToken: rToken)
        #expect(
            (longString.json?["error_text"] as? String)?.contains("field \"events[0].message_id\" is a string") == true,
            "\(longString.text)")
        var wide: [String: Any] = [:]
        for index in 0..<200 { wide["f\(index)"] = Array(repeating: 1, count: 12) }
        var body = subscription("d")
        body["profile_fields"] = wide
        let manyValues = try await server.sdk("push/subscribe", body, rToken: rToken)
        #expect((manyValues.json?["error_text"] as? String)?.contains("more than 2000 values") == true)
        let events = (0..<1001).map { ["message_id": "m.\($0 + 1)", "type": "delivery", "time": 1] as [String: Any] }
        let many = try await server.sdk("event/push", ["events": events], rToken: rToken)
        #expect(many.status == 400)
        #expect((many.json?["error_text"] as? String)?.contains("more than 1000 items") == true, "\(many.text)")
    }

    @Test func nulIsRefusedInStringsAndKeys() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        let rToken = server.first.rToken
        let inValue = Data(
            #"{"time":1,"provider":"ios-apns","subscription_id":"a\u0000b","sync":true}"#.utf8)
        let value = try await server.sdk("push/subscribe", body: inValue, rToken: rToken)
        #expect(value.status == 400)
        #expect((value.json?["error_text"] as? String)?.contains("\"subscription_id\" contains the NUL") == true)
        let inKey = Data(
            #"{"time":1,"provider":"ios-apns","subscription_id":"a","sync":true,"custom_fields":{"x\u0000":1}}"#.utf8)
        let key = try await server.sdk("push/subscribe", body: inKey, rToken: rToken)
        #expect(key.status == 400)
        #expect((key.json?["error_text"] as? String)?.contains("NUL") == true)
        // Nothing was stored under the truncated token either.
        let status = try await server.sdk(
            "push/status", ["provider": "ios-apns", "subscription_id": "a", "mode": "current"], rToken: rToken)
        #expect(status.json?["profile"] is NSNull, "\(status.text)")
    }

    @Test func aNumberOfTheWrongTypeSaysSo() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        for time in ["1.5", "1e30", "99999999999999999999999"] {
            let body = Data(#"{"time":\#(time),"provider":"ios-apns","subscription_id":"a","sync":true}"#.utf8)
            let reply = try await server.sdk("push/subscribe", body: body, rToken: server.first.rToken)
            #expect(reply.status == 400)
            let text = reply.json?["error_text"] as? String ?? ""
            #expect(text.contains("field \"time\"") && text.contains("wrong type"), "\(time): \(text)")
        }
    }
}

/// Lengths count code points, as the API document's `maxLength` does: combining characters that
/// make one grapheme still count one each.
@Suite struct TextLengthTests {
    @Test func aProjectAudienceOfCombiningCharactersOverItsMaxLengthIsRefused() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        // "a" and 200 combining acute accents: one grapheme, 201 code points (maxLength is 128).
        let long = "a" + String(repeating: "\u{301}", count: 200)
        #expect(long.count == 1)
        let audience = try await server.admin("POST", "/projects", json: ["name": "p", "audience": long])
        #expect(audience.status == 400, "\(audience.text)")
        #expect(audience.text.contains("audience must be 1 to 128 characters"), "\(audience.text)")
        let name = try await server.admin("POST", "/projects", json: ["name": long])
        #expect(name.status == 400, "\(name.text)")
        // 128 two-byte characters are 128 characters, not 256 bytes: accepted.
        let accented = try await server.admin(
            "POST", "/projects", json: ["name": String(repeating: "é", count: 128), "audience": "aud-é"])
        #expect(accented.status == 201, "\(accented.text)")
        // The same count on the SDK side: a 256-code-point event name of two-byte characters fits.
        let goal: [String: Any] = [
            "events": [["sid": "s", "event_name": String(repeating: "é", count: 256), "time": 1]]
        ]
        let event = try await server.sdk("event/post", goal, rToken: server.first.rToken)
        #expect(event.status != 400 || !event.text.contains("longer than"), "\(event.text)")
    }
}
