import Foundation
import Testing

@testable import TernServer

/// The management API: admin key, tenancy, categories, pixels, keys, lookups.
@Suite struct AdminAPITests {
    @Test func adminKeyIsRequired() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let none = await server.send("GET", "/api/v1/admin/projects")
        #expect(none.status == 401)
        #expect(none.errorText.contains("key missing"))
        let wrong = await server.send("GET", "/api/v1/admin/projects", headers: ["Authorization": "Bearer ak_wrong"])
        #expect(wrong.status == 401)
        let rToken = await server.send(
            "GET", "/api/v1/admin/projects", headers: ["Authorization": "Bearer \(server.bootstrap.rToken)"])
        #expect(rToken.status == 401)
    }

    @Test func projectsDatabasesAndResourcesAreCreatedAndListed() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let project = try await server.admin("POST", "/projects", json: ["name": "shop"])
        #expect(project.status == 201)
        let projectId = try #require(project.json["id"] as? Int)
        #expect(project.json["audience"] as? String == "tern:\(projectId)")
        let noDatabase = try await server.admin("POST", "/resources", json: ["project_id": projectId, "name": "app"])
        #expect(noDatabase.status == 400)
        #expect(noDatabase.errorText.contains("create one first"))
        let database = try await server.admin("POST", "/projects/\(projectId)/databases", json: ["name": "main"])
        #expect(database.status == 201)
        let duplicate = try await server.admin("POST", "/projects/\(projectId)/databases", json: ["name": "main"])
        #expect(duplicate.status == 409)
        let resource = try await server.admin(
            "POST", "/resources", json: ["project_id": projectId, "name": "app", "channels": ["push", "email"]])
        #expect(resource.status == 201)
        #expect((resource.json["rtoken"] as? String)?.hasPrefix("rt_") == true)
        #expect(resource.json["channels"] as? [String] == ["email", "push"])
        let listed = try await server.admin("GET", "/resources", query: ["project_id": "\(projectId)"])
        #expect(listed.array.count == 1)
        let badChannel = try await server.admin(
            "POST", "/resources", json: ["project_id": projectId, "name": "x", "channels": ["fax"]])
        #expect(badChannel.status == 400)
        let missing = try await server.admin("GET", "/resources/999")
        #expect(missing.status == 404)
        #expect(missing.errorText == "resource 999 does not exist")
    }

    @Test func categoriesArePutListedAndDeleted() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let resource = server.bootstrap.resourceId
        let put = try await server.admin("PUT", "/resources/\(resource)/categories/news", json: ["title": "News"])
        #expect(put.status == 200)
        #expect(put.json["steady"] as? Bool == false)
        let list = try await server.admin("GET", "/resources/\(resource)/categories")
        #expect(list.array.map { $0["name"] as? String } == ["news"])
        let deleted = try await server.admin("DELETE", "/resources/\(resource)/categories/news")
        #expect(deleted.status == 204)
        #expect(deleted.body.isEmpty)
        let again = try await server.admin("DELETE", "/resources/\(resource)/categories/news")
        #expect(again.status == 404)
        let badName = try await server.admin("PUT", "/resources/\(resource)/categories/bad%20name", json: [:])
        #expect(badName.status == 400)
    }

    @Test func pixelsAndKeysAreManagedAndSecretsStayHidden() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let project = server.bootstrap.projectId
        let pixel = try await server.admin("POST", "/projects/\(project)/pixels", json: [:])
        #expect(pixel.status == 201)
        let sid = try #require(pixel.json["sid"] as? String)
        let duplicate = try await server.admin("POST", "/projects/\(project)/pixels", json: ["sid": sid])
        #expect(duplicate.status == 409)
        #expect(try await server.admin("DELETE", "/projects/\(project)/pixels/\(sid)").status == 204)

        let secret = String(repeating: "s", count: 40)
        let hs = try await server.admin(
            "POST", "/projects/\(project)/jwt-keys", json: ["kid": "h", "algorithm": "HS256", "key": secret])
        #expect(hs.status == 201)
        #expect(hs.json["public_key"] == nil)
        #expect(!String(decoding: hs.body, as: UTF8.self).contains(secret))
        let short = try await server.admin(
            "POST", "/projects/\(project)/jwt-keys", json: ["kid": "s", "algorithm": "HS256", "key": "short"])
        #expect(short.status == 400)
        #expect(short.errorText.contains("at least 32 bytes"))
        let badPEM = try await server.admin(
            "POST", "/projects/\(project)/jwt-keys", json: ["kid": "e", "algorithm": "ES256", "key": "not a pem"])
        #expect(badPEM.status == 400)
        #expect(badPEM.errorText.contains("not usable"))
        let listed = try await server.admin("GET", "/projects/\(project)/jwt-keys")
        #expect(listed.array.map { $0["kid"] as? String } == ["h"])
        #expect(try await server.admin("DELETE", "/projects/\(project)/jwt-keys/h").status == 204)
    }

    @Test func profilesAreFoundByEmailPhoneAndField() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let reply = try await server.sdk(
            .pushSubscribe,
            InProcessServer.subscription(extra: [
                "profile_fields": ["_email": "f@example.com", "_phone": "+1555", "crm_id": 7]
            ]))
        let id = try #require(reply.profile?.id)
        let db = try await JWTAuthTests.databaseId(server)
        for query in [["email": "f@example.com"], ["phone": "+1555"], ["field": "crm_id", "value": "7"]] {
            let found = try await server.admin("GET", "/profiles", query: query.merging(["db_id": "\(db)"]) { $1 })
            #expect(found.array.map { $0["id"] as? String } == [id], "\(query)")
        }
        let needsQuery = try await server.admin("GET", "/profiles", query: ["db_id": "\(db)"])
        #expect(needsQuery.status == 400)
        let shown = try await server.admin("GET", "/profiles/\(id)")
        #expect((shown.json["subscriptions"] as? [[String: Any]])?.first?["subscription_id"] as? String == "token-1")
    }

    /// A subscription lookup names its resource, whatever the channel: without it the answer is a
    /// 400 that says so, not an empty list (schemathesis found the unknown channel's answer first).
    @Test func aSubscriptionLookupWithoutItsResourceIs400ForEveryChannel() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        for channel in ["push", "email", "no-such-channel"] {
            let answer = try await server.admin(
                "GET", "/subscriptions",
                query: ["subscription_id": "token-1", "provider": "ios-apns", "channel": channel])
            #expect(answer.status == 400 && answer.errorText.contains("resource_id"), "\(channel): \(answer.errorText)")
        }
    }
}

/// Router behaviour shared by every route.
@Suite struct RouterTests {
    @Test func unknownPathIs404AndWrongMethodIs405WithAllow() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let missing = await server.send("GET", "/api/v1/nothing")
        #expect(missing.status == 404)
        #expect(missing.error == 404)
        let method = await server.send("GET", "/api/v1/push/subscribe")
        #expect(method.status == 405)
        #expect(method.header("Allow") == "POST")
        #expect(method.errorText.contains("use POST"))
    }

    @Test func nonJSONContentTypeIs415() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let reply = await server.send(
            "POST", "/api/v1/push/subscribe", body: Data("time=1".utf8),
            headers: ["Content-Type": "application/x-www-form-urlencoded", "X-Tern-RToken": server.bootstrap.rToken])
        #expect(reply.status == 415)
        #expect(reply.errorText.contains("application/json"))
    }

    @Test func everyAnswerCarriesARequestIdAndIsCounted() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let reply = await server.send("GET", "/healthz", headers: ["X-Request-Id": "abc-123"])
        #expect(reply.status == 200)
        #expect(reply.header("X-Request-Id") == "abc-123")
        let generated = await server.send("GET", "/healthz")
        #expect(generated.header("X-Request-Id")?.count == 16)
        #expect(server.metrics.requestCount(route: "/healthz", status: 200) == 2)
        let metrics = await server.send("GET", "/metrics")
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(text.contains(#"tern_http_requests_total{route="/healthz",status="200"} 2"#))
        #expect(text.contains(#"tern_http_request_duration_seconds_bucket{route="/healthz",le="+Inf"} 2"#))
        #expect(text.contains(#"tern_store_errors_total{kind="busy"} 0"#))
    }

    @Test func storeFailureIs503ForBusyAnd500OtherwiseAndCounted() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        await server.store.close()
        let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription())
        #expect(reply.status == 503)
        #expect(reply.header("Retry-After") == "1")
        #expect(server.metrics.render().contains(#"tern_store_errors_total{kind="closed"} 1"#))
        let health = await server.send("GET", "/healthz")
        #expect(health.status == 503)
    }
}
