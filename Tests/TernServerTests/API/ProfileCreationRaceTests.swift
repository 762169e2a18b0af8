import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// A person named by a key (a JWT's email, a log-in's external id, the backend's `create`) who has
/// no profile yet, named by several requests at once: each request finds no one, and each would
/// make a profile. On SQLite one writer orders them; on PostgreSQL requests run on several
/// connections at once, and on several nodes (here two servers on one database, the requests
/// taking turns), so the second must wait for the first to commit and then find its profile
/// (``ProfileResolver/findOrCreateIdentified(_:dbId:field:value:now:)``).
@Suite struct ProfileCreationRaceTests {
    static let callers = 16

    /// One server on SQLite; on PostgreSQL two, each with its own pool, on one schema. `prepare`
    /// runs on the first before the second starts (what the second should find kept).
    static func nodes<Prepared: Sendable>(
        _ factory: StoreFactory, prepare: (InProcessServer) async throws -> Prepared
    ) async throws -> ([InProcessServer], Prepared) {
        guard factory.name == StoreFactory.postgres.name else {
            let server = try await InProcessServer(factory)
            return ([server], try await prepare(server))
        }
        let url = try PostgresTestDatabase.freshSchemaURL()
        let shared = StoreFactory(name: factory.name) { _ in try PostgresStore(url: url, poolSize: 4) }
        let first = try await InProcessServer(shared)
        let prepared = try await prepare(first)
        return ([first, try await InProcessServer(shared)], prepared)
    }

    static func finish(_ servers: [InProcessServer]) {
        Task { for server in servers { await server.finish() } }
    }

    static func profiles(_ server: InProcessServer, field: String, value: String) async throws -> [Profile] {
        let db = Int64(try await JWTAuthTests.databaseId(server))
        return try await server.store.read { try $0.profiles(dbId: db, field: field, value: .string(value)) }
    }

    @Test(arguments: StoreFactory.all)
    func devicesSubscribingAtOnceWithOneNewEmailMakeOneProfile(factory: StoreFactory) async throws {
        let (servers, jwt) = try await Self.nodes(factory) { server in
            let signer = try await TestSigner.register(on: server)
            return try signer.token(["db_id": try await JWTAuthTests.databaseId(server), "email": "new@example.com"])
        }
        defer { Self.finish(servers) }
        let server = servers[0]
        let replies = try await withThrowingTaskGroup(of: InProcessServer.Reply.self) { group in
            for device in 0..<Self.callers {
                let node = servers[device % servers.count]
                group.addTask {
                    try await node.sdk(.pushSubscribe, InProcessServer.subscription(token: "race-\(device)"), jwt: jwt)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(replies.allSatisfy { $0.status == 200 }, "\(replies.map { "\($0.status) \($0.errorText)" })")
        #expect(Set(replies.compactMap { $0.profile?.id }).count == 1, "every device answered with one profile")
        #expect(try await Self.profiles(server, field: "_email", value: "new@example.com").count == 1)
    }

    @Test(arguments: StoreFactory.all)
    func devicesLoggingInAtOnceToOneNewPersonMakeOneProfile(factory: StoreFactory) async throws {
        let (servers, _) = try await Self.nodes(factory) { server in
            for device in 0..<Self.callers {
                let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription(token: "login-\(device)"))
                try #require(reply.status == 200, "\(reply.errorText)")
            }
        }
        defer { Self.finish(servers) }
        let server = servers[0]
        let replies = try await withThrowingTaskGroup(of: InProcessServer.Reply.self) { group in
            for device in 0..<Self.callers {
                let body: [String: Any] = [
                    "provider": "ios-apns", "subscription_id": "login-\(device)", "expected_binding_id": "initial",
                    "operation_id": UUID().uuidString, "operation": "login", "external_id": "user-new",
                ]
                let node = servers[device % servers.count]
                group.addTask { try await node.sdk(.identityChange, body) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(replies.allSatisfy { $0.status == 200 }, "\(replies.map { "\($0.status) \($0.errorText)" })")
        #expect(try await Self.profiles(server, field: "_external_id", value: "user-new").count == 1)
    }

    @Test(arguments: StoreFactory.all)
    func backendCreatesAtOnceForOneNewPersonMakeOneProfile(factory: StoreFactory) async throws {
        let (servers, dbId) = try await Self.nodes(factory) { try await JWTAuthTests.databaseId($0) }
        defer { Self.finish(servers) }
        let server = servers[0]
        let replies = try await withThrowingTaskGroup(of: InProcessServer.Reply.self) { group in
            for request in 0..<Self.callers {
                let entry: [String: Any] = [
                    "matching": ["email": "backend@example.com"], "create": true,
                    "profile_fields": ["plan": "gold", "request": request],
                ]
                let node = servers[request % servers.count]
                group.addTask { try await BackendProfileUpdateTests.update(node, dbId: dbId, [entry]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let results = try replies.map { try BackendProfileUpdateTests.results($0) }.flatMap { $0 }
        #expect(results.filter { $0["result"] as? String == "created" }.count == 1, "\(results)")
        #expect(results.allSatisfy { ["created", "updated"].contains($0["result"] as? String) }, "\(results)")
        #expect(try await Self.profiles(server, field: "_email", value: "backend@example.com").count == 1)
    }
}
