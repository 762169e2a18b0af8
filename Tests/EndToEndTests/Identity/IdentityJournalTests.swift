import Foundation
import Synchronization
import TernCore
import TernCrypto
import TernProtocol
import TernPush
import TernSDKTestKit
import TernTestSupport
import Testing

/// The identity binding journal of `003_…` against a real `tern serve`: logins and logouts
/// confirmed, a changed policy revision reconciled, a mode changed under a login halting it, and
/// bad proofs refused with the field and the reason.
@Suite(.serialized) struct IdentityJournalTests {
    static let token = "e2e-identity-apns-token-5e6f"

    /// An identity JWT for `externalId` signed with the server's registered key (or `key`), living
    /// `lifetime` seconds from `issued` seconds ago.
    static func identityJWT(
        _ server: RealServer, _ externalId: String, key: JWTSigningKey? = nil, issuedAgo: Int = 0, lifetime: Int = 300
    ) throws -> String {
        let now = Int(Date().timeIntervalSince1970) - issuedAgo
        let claims: [String: Any] = [
            "aud": "tern:\(server.process.projectId)", "iat": now, "exp": now + lifetime,
            "identity": ["external_id": externalId],
        ]
        return try JWT.sign(
            claims: try JSONSerialization.data(withJSONObject: claims), key: key ?? server.signingKey,
            algorithm: .es256, header: ["kid": server.kid])
    }

    /// An SDK subscribed on `server` in `mode`, with `transport` in front of the network when given.
    static func subscribedSDK(
        _ server: RealServer, mode: IdentityMode, directory: TemporaryDirectory? = nil,
        transport: (any HTTPTransport)? = nil
    ) async throws -> TestSDK {
        let sdk = try TestSDK(directory: directory, transport: transport)
        sdk.tern.setAppGroup(groupName: "group.tern.identity")
        sdk.tern.initialization(
            configuration: TernConfiguration.Builder(apiUrl: server.apiUrl).setRToken(server.rToken)
                .setIdentityMode(mode).build())
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: token)
        sdk.tern.push.subscription.subscribe()
        #expect(await sdk.events.first("pushSubscribeRequestSuccessful") != nil, "the device subscribes first")
        return sdk
    }

    /// Sets the project's identity mode through the management API (a new revision each time).
    static func setPolicy(_ server: RealServer, _ mode: String) -> @Sendable () async -> Void {
        let url = server.process.rootURL("/api/v1/admin/projects/\(server.process.projectId)/identity-policy")
        let key = server.process.adminKey
        return {
            let body = try? JSONSerialization.data(withJSONObject: ["mode": mode])
            _ = try? await JSONHTTPClient().send("PUT", url, body: body, headers: ["Authorization": "Bearer \(key)"])
        }
    }

    /// The installation's binding and operation count as the management API shows them.
    static func installation(_ server: RealServer) async throws -> (binding: [String: Any], operations: Int)? {
        let answer = try await server.admin(
            "GET", "/resources/\(server.process.resourceId)/identity?provider=ios-apns&subscription_id=\(token)")
        guard answer.status == 200, let binding = answer.json?["binding"] as? [String: Any] else { return nil }
        return (binding, answer.json?["operations"] as? Int ?? -1)
    }

    @Test func aLoginAndALogoutAreConfirmedAndAQueuedLogoutIsNotOne() async throws {
        let server = try await RealServer.start()
        let sdk = try await Self.subscribedSDK(server, mode: .basic)
        let anonymous = try #require(try await server.statuses(token: Self.token).keys.first)
        sdk.tern.identity.login(externalId: "ada")
        let confirmed = try #require(await sdk.events.first("identityLoginConfirmed"), "\(sdk.events.names)")
        #expect(!confirmed.isError)
        var state = await sdk.tern.identity.identityState
        #expect(state.confirmedExternalId == "ada" && state.pending.isEmpty && state.confirmed?.mode == .basic)
        let (binding, operations) = try #require(try await Self.installation(server))
        #expect(binding["external_id"] as? String == "ada" && operations == 1)
        // The device's subscription moved to ada's profile; the anonymous one is suspended.
        let moved = try await server.statuses(token: Self.token)
        #expect(moved[anonymous] == "suspended" && moved.filter { $0.value == "subscribed" }.count == 1)

        sdk.tern.identity.logout()
        #expect(await sdk.events.first("identityLogoutConfirmed") != nil, "\(sdk.events.names)")
        state = await sdk.tern.identity.identityState
        #expect(state.confirmedExternalId == nil && state.confirmed?.version == 2)
        #expect(try await server.statuses(token: Self.token)[anonymous] == "subscribed")

        // With the server gone, a logout stays queued: the state still says who is confirmed.
        let seen = sdk.events.count
        sdk.tern.identity.login(externalId: "bob")
        #expect(await sdk.events.first(where: { $0.name == "identityLoginConfirmed" }, after: seen) != nil)
        await server.stop()
        sdk.tern.identity.logout()
        #expect(await sdk.events.first("identityOperationRetry") != nil)
        state = await sdk.tern.identity.identityState
        #expect(state.confirmedExternalId == "bob", "a queued logout is not a confirmed one")
        #expect(state.pending.map(\.kind) == [.logout])
        await sdk.close()
    }

    @Test func ternIdentitySetsThePolicyAndShowsTheBinding() async throws {
        let server = try await RealServer.start()
        let connection = ["--url", server.apiUrl, "--admin-key", server.process.adminKey]
        let project = String(server.process.projectId)
        let initial = try await TernCommand.run(["identity", "policy", project] + connection)
        #expect(initial.status == 0 && initial.output.contains(#""mode" : "basic""#), "\(initial.output)")
        let set = try await TernCommand.run(["identity", "policy", project, "verified"] + connection)
        #expect(set.status == 0 && set.output.contains(#""revision" : 2"#), "\(set.output)")
        let bad = try await TernCommand.run(["identity", "policy", project, "auto"] + connection)
        #expect(bad.status == 2 && bad.error.contains("basic or verified"), "\(bad.error)")
        let missing = try await TernCommand.run(
            ["identity", "show", String(server.process.resourceId), Self.token] + connection)
        #expect(missing.status == 1 && missing.error.contains("never changed"), "\(missing.error)")
        let sdk = try await Self.subscribedSDK(server, mode: .verified)
        sdk.tern.identity.setIdentityTokenProvider(StaticIdentity(try Self.identityJWT(server, "ada")))
        sdk.tern.identity.login(externalId: "ada")
        #expect(await sdk.events.first("identityLoginConfirmed") != nil, "\(sdk.events.names)")
        let shown = try await TernCommand.run(
            ["identity", "show", String(server.process.resourceId), Self.token] + connection)
        #expect(shown.output.contains(#""external_id" : "ada""#) && shown.output.contains(#""operations" : 1"#))
        await sdk.close()
        await server.stop()
    }

    @Test func aChangedPolicyRevisionAnswers409AndTheSDKReconcilesAndConfirms() async throws {
        let server = try await RealServer.start()
        // Between the SDK's read of the policy and its login, the operator saves the policy again.
        let hook = BeforeFirstChange(Self.setPolicy(server, "basic"))
        let sdk = try await Self.subscribedSDK(server, mode: .auto, transport: hook)
        sdk.tern.identity.login(externalId: "ada")
        let conflict = try #require(await sdk.events.first("identityRebindConflict"), "\(sdk.events.names)")
        #expect(conflict.field == "expected_policy_revision")
        #expect(await sdk.events.first("identityLoginConfirmed") != nil, "\(sdk.events.names)")
        let state = await sdk.tern.identity.identityState
        #expect(state.confirmedExternalId == "ada" && state.halted == nil)
        #expect(try await Self.installation(server)?.operations == 1)
        await sdk.close()
        await server.stop()
    }

    @Test func aModeChangedUnderAnUnfinishedLoginHaltsItUntilTheNextLogin() async throws {
        let server = try await RealServer.start()
        let hook = BeforeFirstChange(Self.setPolicy(server, "verified"))
        let sdk = try await Self.subscribedSDK(server, mode: .auto, transport: hook)
        sdk.tern.identity.login(externalId: "ada")
        let halted = try #require(await sdk.events.first("identityAuthModeChanged"), "\(sdk.events.names)")
        #expect(halted.isError && halted.reason?.contains("basic to verified") == true)
        var state = await sdk.tern.identity.identityState
        #expect(state.halted?.code == IdentityWire.authModeChanged && state.halted?.toMode == .verified)
        #expect(state.pending.isEmpty && state.confirmedExternalId == nil)
        #expect(try await Self.installation(server) == nil, "nothing was bound")
        // Logging in again makes a new operation in the mode in force, with the backend's JWT.
        sdk.tern.identity.setIdentityTokenProvider(StaticIdentity(try Self.identityJWT(server, "ada")))
        sdk.tern.identity.login(externalId: "ada")
        #expect(await sdk.events.first("identityLoginConfirmed") != nil, "\(sdk.events.names)")
        state = await sdk.tern.identity.identityState
        #expect(state.confirmed?.mode == .verified && state.halted == nil && state.confirmedExternalId == "ada")
        await sdk.close()
        await server.stop()
    }

    @Test func aRestartInAnotherModeHaltsTheUnfinishedLogin() async throws {
        let server = try await RealServer.start()
        let directory = try TemporaryDirectory(prefix: "tern-identity-restart")
        let first = try await Self.subscribedSDK(server, mode: .basic, directory: directory)
        await first.tern.flushQueues()
        // The login is queued while the server cannot be reached, then the app restarts in VERIFIED.
        let offline = try TestSDK(directory: directory)
        await first.close()
        offline.tern.setAppGroup(groupName: "group.tern.identity")
        offline.tern.initialization(
            configuration: TernConfiguration.Builder(apiUrl: "http://127.0.0.1:9/api/v1").setRToken(server.rToken)
                .setIdentityMode(.basic).build())
        offline.tern.identity.login(externalId: "ada")
        #expect(await offline.events.first("identityOperationRetry") != nil)
        await offline.close()
        let restarted = try TestSDK(directory: directory)
        restarted.tern.setAppGroup(groupName: "group.tern.identity")
        restarted.tern.initialization(
            configuration: TernConfiguration.Builder(apiUrl: server.apiUrl).setRToken(server.rToken)
                .setIdentityMode(.verified).build())
        let halted = try #require(await restarted.events.first("identityAuthModeChanged"), "\(restarted.events.names)")
        #expect(halted.reason?.contains("basic") == true)
        #expect(await restarted.tern.identity.identityState.halted?.fromMode == .basic)
        #expect(try await Self.installation(server) == nil)
        await restarted.close()
        await server.stop()
    }

    @Test func forgedAndExpiredJWTsAndBasicInVerifiedAreRefusedWithTheFieldAndTheReason() async throws {
        let server = try await RealServer.start()
        let sdk = try await Self.subscribedSDK(server, mode: .verified)
        let other = try JWTSigningKey.generate(.es256)
        // Through the SDK: a forged proof fails the login with the field and the reason.
        sdk.tern.identity.setIdentityTokenProvider(StaticIdentity(try Self.identityJWT(server, "ada", key: other)))
        sdk.tern.identity.login(externalId: "ada")
        let failed = try #require(await sdk.events.first("identityOperationFailed"), "\(sdk.events.names)")
        #expect(failed.isError && failed.httpCode == 401 && failed.field == "token")
        #expect(failed.reason?.contains("JWT rejected") == true)
        #expect(await sdk.tern.identity.identityState.pending.isEmpty)
        await sdk.close()

        // On the wire.
        func change(_ body: [String: Any]) async throws -> JSONHTTPClient.Answer {
            var body = body
            body["provider"] = "ios-apns"
            body["subscription_id"] = Self.token
            body["expected_binding_id"] = body["expected_binding_id"] ?? IdentityWire.initialBindingId
            body["operation_id"] = body["operation_id"] ?? UUID().uuidString
            return try await server.sdk("identity/change", json: body, jwt: nil)
        }
        let expired = try await change([
            "operation": "login", "token": try Self.identityJWT(server, "ada", issuedAgo: 900, lifetime: 300),
        ])
        #expect(expired.status == 401 && expired.json?["field"] as? String == "token")
        #expect((expired.json?["error_text"] as? String)?.contains("expired") == true, "\(expired.text)")
        let tooLong = try await change([
            "operation": "login", "token": try Self.identityJWT(server, "ada", lifetime: 7200),
        ])
        #expect(tooLong.status == 401 && (tooLong.json?["error_text"] as? String)?.contains("3600") == true)
        let policy = try await server.admin(
            "PUT", "/projects/\(server.process.projectId)/identity-policy", json: ["mode": "verified"])
        #expect(policy.status == 200 && policy.json?["revision"] as? Int == 2)
        let basic = try await change(["operation": "login", "external_id": "ada"])
        #expect(basic.status == 403 && basic.json?["code"] as? String == IdentityWire.modeMismatch)
        #expect(basic.json?["field"] as? String == "external_id")
        let both = try await change(["operation": "logout", "external_id": "ada"])
        #expect(both.status == 400 && both.json?["field"] as? String == "external_id")
        let noOperation = try await server.sdk(
            "identity/change",
            json: [
                "provider": "ios-apns", "subscription_id": Self.token, "operation": "login", "external_id": "a",
                "expected_binding_id": "initial",
            ], jwt: nil)
        #expect(noOperation.status == 400 && noOperation.json?["field"] as? String == "operation_id")
        let unknown = try await server.sdk(
            "identity/status", json: ["provider": "ios-apns", "subscription_id": "never-subscribed"], jwt: nil)
        #expect(unknown.status == 404 && unknown.json?["field"] as? String == "subscription_id")
        let auto = try await server.admin(
            "PUT", "/projects/\(server.process.projectId)/identity-policy", json: ["mode": "auto"])
        #expect(auto.status == 400)
        // A good proof binds, and its repeat answers the same result without applying it again.
        let good = try Self.identityJWT(server, "ada")
        let operation = UUID().uuidString
        let applied = try await change(["operation": "login", "token": good, "operation_id": operation])
        let repeated = try await change(["operation": "login", "token": good, "operation_id": operation])
        #expect(applied.status == 200 && repeated.status == 200 && applied.text == repeated.text, "\(applied.text)")
        #expect(try await Self.installation(server)?.operations == 1)
        await server.stop()
    }
}

/// The network, with `before` run once ahead of the first `identity/change`.
final class BeforeFirstChange: HTTPTransport {
    private let network = URLSessionTransport()
    private let done = Mutex(false)
    private let before: @Sendable () async -> Void

    init(_ before: @escaping @Sendable () async -> Void) {
        self.before = before
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if request.url.path.hasSuffix(Endpoint.identityChange.rawValue),
            done.withLock({ ran in
                defer { ran = true }
                return !ran
            })
        {
            await before()
        }
        return try await network.send(request)
    }
}

/// The app backend's identity JWT, whoever logs in.
struct StaticIdentity: IdentityTokenProvider {
    let token: String
    init(_ token: String) { self.token = token }
    func identityToken(externalId: String) async -> String? { token }
}
