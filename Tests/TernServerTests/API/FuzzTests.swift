import Foundation
import TernProtocol
import TernServer
import TernTestSupport
import Testing

/// Thousands of generated bodies to every JSON endpoint: never a 5xx, always the envelope.
@Suite struct FuzzTests {
    static let bodiesPerEndpoint = 1000

    /// One valid body per SDK endpoint, for mutation.
    static let validBodies: [Endpoint: String] = [
        .profileAuthenticate: #"{"provider":"ios-apns","subscription_id":"t"}"#,
        .pushSubscribe:
            #"{"time":1,"provider":"ios-apns","subscription_id":"t","sync":true,"profile_fields":{"a":1,"n":{"action":"incr","value":1}},"custom_fields":{"_os":"IOS"},"cats":[{"name":"news","active":true}],"replace":false,"skip_triggers":false}"#,
        .pushSuspend: #"{"time":2,"provider":"ios-apns","subscription_id":"t","sync":false}"#,
        .pushUnsubscribe: #"{"time":3,"provider":"ios-firebase","subscription_id":"u","sync":true}"#,
        .pushUpdate:
            #"{"old_provider":"ios-apns","old_subscription_id":"t","provider":"ios-apns","subscription_id":"t2","custom_fields":{"a":true}}"#,
        .pushStatus: #"{"mode":"current","provider":"ios-apns","subscription_id":"t"}"#,
        .pushUnsuspend: #"{"provider":"ios-apns","subscription_id":"t"}"#,
        .profileUpdate: #"{"profile_fields":{"_fname":"A","tags":{"action":"add","value":"x"}},"skip_triggers":true}"#,
        .eventPost:
            #"{"events":[{"sid":"pixel","client_id":"c","event_name":"e","payload":{"a":1},"matching":{"email":"a@b"},"utm":{"campaign":"c"},"time":1}]}"#,
        .eventPush: #"{"events":[{"message_id":"m","type":"delivery","time":1}]}"#,
    ]

    static let adminBodies: [(String, String, String)] = [
        ("POST", "/api/v1/admin/projects", #"{"name":"p","audience":"a"}"#),
        ("POST", "/api/v1/admin/projects/1/databases", #"{"name":"d"}"#),
        ("POST", "/api/v1/admin/resources", #"{"project_id":1,"name":"r","channels":["push"]}"#),
        ("PUT", "/api/v1/admin/resources/1/categories/news", #"{"title":"News","steady":false}"#),
        ("POST", "/api/v1/admin/projects/1/pixels", #"{"sid":"s","name":"n"}"#),
        (
            "POST", "/api/v1/admin/projects/1/jwt-keys",
            #"{"kid":"k","algorithm":"HS256","key":"0123456789abcdef0123456789abcdef"}"#
        ),
    ]

    @Test func generatedBodiesToEverySDKEndpointNeverCauseA5xxAndAlwaysGetTheEnvelope() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        _ = try await server.admin("POST", "/projects/\(server.bootstrap.projectId)/pixels", json: ["sid": "pixel"])
        _ = try await server.admin("PUT", "/resources/\(server.bootstrap.resourceId)/categories/news", json: [:])
        let signer = try await TestSigner.register(on: server)
        let jwt = try signer.token(["db_id": try await JWTAuthTests.databaseId(server), "email": "fuzz@example.com"])
        var generator = JSONFuzzer(seed: 0x7E52)
        var statuses: [Int: Int] = [:]
        for (endpoint, valid) in Self.validBodies.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            for index in 0..<Self.bodiesPerEndpoint {
                let body = generator.body(mutating: valid)
                var headers = [Wire.rTokenHeader: server.bootstrap.rToken, "Content-Type": "application/json"]
                if index % 3 == 0 { headers[Wire.authorizationHeader] = "Bearer \(jwt)" }
                if index % 5 == 0 { headers[Wire.idempotencyKeyHeader] = "fuzz-\(index % 7)" }
                let reply = await server.send("POST", endpoint.path, body: body, headers: headers)
                statuses[reply.status, default: 0] += 1
                Self.check(
                    reply, "\(endpoint.rawValue) #\(index): \(String(decoding: body.prefix(300), as: UTF8.self))")
            }
        }
        #expect(statuses.keys.allSatisfy { $0 < 500 })
        #expect(statuses[200, default: 0] > 0, "no generated body was accepted: \(statuses)")
        #expect(statuses[400, default: 0] > 0)
    }

    @Test func generatedBodiesToEveryAdminEndpointNeverCauseA5xx() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        var generator = JSONFuzzer(seed: 0xAD31)
        for (method, path, valid) in Self.adminBodies {
            for index in 0..<(Self.bodiesPerEndpoint / 4) {
                let body = generator.body(mutating: valid)
                let reply = await server.send(
                    method, path, body: body,
                    headers: [
                        "Authorization": "Bearer \(server.bootstrap.adminKey)", "Content-Type": "application/json",
                    ])
                #expect(reply.status < 500, "\(method) \(path) #\(index): \(reply.errorText)")
                if reply.status >= 400 { Self.check(reply, "\(method) \(path) #\(index)") }
            }
        }
    }

    @Test func generatedBodiesOverRealHTTPNeverCauseA5xx() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let client = JSONHTTPClient()
        var generator = JSONFuzzer(seed: 0x4177)
        for (endpoint, valid) in Self.validBodies.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            for index in 0..<50 {
                let body = generator.body(mutating: valid)
                let answer = try await client.post(
                    server.url(endpoint.rawValue), body: body, headers: [Wire.rTokenHeader: server.rToken])
                #expect(answer.status < 500, "\(endpoint.rawValue) #\(index)")
                let envelope = try? answer.decode(ResponseEnvelope.self)
                #expect(envelope != nil, "\(endpoint.rawValue) #\(index) answered no envelope: \(answer.text)")
            }
        }
        #expect(await server.isRunning)
    }

    static func check(_ reply: InProcessServer.Reply, _ context: @autoclosure () -> String) {
        #expect(reply.status < 500, "\(context()) → \(reply.status) \(reply.errorText)")
        guard let envelope = reply.envelope else {
            Issue.record("\(context()) answered no envelope: \(String(decoding: reply.body, as: UTF8.self))")
            return
        }
        if (200..<300).contains(reply.status) {
            #expect(envelope.error == 0, "\(context())")
        } else {
            #expect(envelope.error == reply.status, "\(context())")
            #expect(!(envelope.errorText ?? "").isEmpty, "\(context()) has no error_text")
            #expect(envelope.profile == nil, "\(context())")
        }
    }
}

/// Makes request bodies: valid ones mutated (fields dropped, retyped, added, values replaced with
/// odd ones), random JSON, broken JSON and random bytes. Seeded, so a failure can be replayed.
struct JSONFuzzer {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    mutating func body(mutating valid: String) -> Data {
        switch below(10) {
        case 0: return Data((0..<below(64)).map { _ in UInt8(truncatingIfNeeded: next()) })
        case 1: return Data(valid.utf8.prefix(below(valid.utf8.count)))
        case 2: return (try? JSONSerialization.data(withJSONObject: [randomValue(depth: 0)])) ?? Data("[]".utf8)
        default:
            guard var object = (try? JSONSerialization.jsonObject(with: Data(valid.utf8))) as? [String: Any] else {
                return Data(valid.utf8)
            }
            for _ in 0...below(3) { object = mutate(object, depth: 0) }
            return (try? JSONSerialization.data(withJSONObject: object)) ?? Data(valid.utf8)
        }
    }

    private mutating func mutate(_ object: [String: Any], depth: Int) -> [String: Any] {
        var object = object
        let keys = Array(object.keys).sorted()
        switch below(5) {
        case 0 where !keys.isEmpty: object.removeValue(forKey: keys[below(keys.count)])
        case 1: object[randomKey()] = randomValue(depth: depth)
        case 2 where !keys.isEmpty:
            let key = keys[below(keys.count)]
            if let nested = object[key] as? [String: Any], depth < 3 {
                object[key] = mutate(nested, depth: depth + 1)
            } else if let list = object[key] as? [Any], let first = list.first as? [String: Any], depth < 3 {
                object[key] = [mutate(first, depth: depth + 1)]
            } else {
                object[key] = randomValue(depth: depth)
            }
        default:
            if !keys.isEmpty { object[keys[below(keys.count)]] = randomValue(depth: depth) }
        }
        return object
    }

    private mutating func randomKey() -> String {
        let keys = [
            "", " ", "a b", "_os", "action", "value", "time", "sync", "cats", "é", "x\u{0}y", "__proto__",
            String(repeating: "k", count: 100),
        ]
        return keys[below(keys.count)]
    }

    private mutating func randomValue(depth: Int) -> Any {
        switch below(depth > 2 ? 8 : 11) {
        case 0: return NSNull()
        case 1: return below(2) == 0
        case 2: return [0, -1, 1, Int.max, Int.min, 1_000_000_000_000_000][below(6)]
        case 3: return [0.5, -1e300, 1e308, 3.14159][below(4)]
        case 4: return ""
        case 5:
            return ["ios-apns", "none", "delivery", "latest", "incr", "subscribed", "\u{1F600}", "\n\t\""][below(8)]
        case 6: return String(repeating: "x", count: below(5000))
        case 7: return ["action": ["set", "unset", "incr", "add", "delete", "upsert", "bogus"][below(7)]]
        case 8: return (0..<below(4)).map { _ in randomValue(depth: depth + 1) }
        case 9: return ["action": "incr", "value": randomValue(depth: depth + 1)]
        default:
            var object: [String: Any] = [:]
            for _ in 0..<below(4) { object[randomKey()] = randomValue(depth: depth + 1) }
            return object
        }
    }
}
