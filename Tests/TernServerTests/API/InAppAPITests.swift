import Foundation
import TernProtocol
import TernTestSupport
import Testing

/// A real `tern serve` on loopback over one backend (SQLite, or PostgreSQL when the tests have one),
/// with the calls the in-app tests make.
struct InAppServer: Sendable {
    let server: ServerProcess
    let client = JSONHTTPClient()

    /// The backends the in-app API runs on here.
    static let backends: [String] = PostgresTestDatabase.url == nil ? ["sqlite"] : ["sqlite", "postgresql"]

    static func start(_ backend: String) async throws -> InAppServer {
        let arguments = backend == "postgresql" ? ["--database", try PostgresTestDatabase.freshSchemaURL()] : []
        return InAppServer(server: try await ServerProcess.start(arguments: arguments))
    }

    func stop() async { await server.stop() }

    /// An SDK call with the bootstrap rToken.
    func sdk(_ endpoint: Endpoint, _ json: [String: Any], key: String? = nil) async throws -> JSONHTTPClient.Answer {
        var headers = [Wire.rTokenHeader: server.rToken]
        if let key { headers[Wire.idempotencyKeyHeader] = key }
        return try await client.post(server.rootURL(endpoint.path), json: json, headers: headers)
    }

    /// A management call with the admin key.
    func admin(_ method: String, _ path: String, json: Any? = nil) async throws -> JSONHTTPClient.Answer {
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) }
        var headers = ["Authorization": "Bearer \(server.adminKey)"]
        if body != nil { headers["Content-Type"] = "application/json" }
        return try await client.send(method, server.rootURL("/api/v1/admin" + path), body: body, headers: headers)
    }

    /// Creates a campaign from `fields` over a minimal valid one; starts it unless `start` is false.
    func campaign(_ fields: [String: Any], start: Bool = true) async throws -> String {
        var body: [String: Any] = [
            "project_id": server.projectId, "resource_id": server.resourceId, "name": "c",
            "display_type": "modal", "triggers": [["type": "open_app"]],
            "content": ["kind": "template", "template": ["title": "Hello"]],
        ]
        body.merge(fields) { _, new in new }
        let created = try await admin("POST", "/inapp/campaigns", json: body)
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(created.json?["id"] as? String, "\(created.text)")
        if start {
            let started = try await admin("POST", "/inapp/campaigns/\(id)/start")
            #expect(started.status == 200 && started.json?["status"] as? String == "active", "\(started.text)")
        }
        return id
    }

    /// `inapp/placements`, decoded with TernProtocol's types.
    func placements(_ identity: [String: Any], screen: String? = nil, max: Int? = nil) async throws
        -> InAppPlacementsAnswer
    {
        var body = identity
        if let screen { body["screen"] = screen }
        if let max { body["max_placements"] = max }
        let answer = try await sdk(.inAppPlacements, body)
        #expect(answer.status == 200, "\(answer.text)")
        let decoded = try answer.decode(InAppPlacementsResponse.self)
        #expect(decoded.error == 0)
        return try #require(decoded.data)
    }

    func stats(_ id: String) async throws -> [String: Any] {
        let answer = try await admin("GET", "/inapp/campaigns/\(id)/stats")
        #expect(answer.status == 200, "\(answer.text)")
        return answer.json ?? [:]
    }
}

/// The in-app server through its HTTP API on each backend: campaigns created and started through the
/// management API, placements filtered and ordered, events counted once into statistics, refusals.
@Suite(.serialized) struct InAppAPITests {
    static var deviceA: [String: Any] { ["provider": "ios-apns", "subscription_id": "token-a"] }
    static var deviceB: [String: Any] { ["provider": "ios-apns", "subscription_id": "token-b"] }

    @Test(arguments: InAppServer.backends)
    func placementsFollowStatusScheduleScreenAudienceAnonymityAndPriority(backend: String) async throws {
        let app = try await InAppServer.start(backend)
        defer { Task { await app.stop() } }
        let category = try await app.admin(
            "PUT", "/resources/\(app.server.resourceId)/categories/news", json: ["title": "News"])
        #expect(category.status == 200, "\(category.text)")

        // Device A: push-subscribed, in-app subscribed with category news and tier gold, tagged vip.
        for device in [Self.deviceA, Self.deviceB] {
            var push = device
            push["time"] = 1000
            let subscribed = try await app.sdk(.pushSubscribe, push)
            #expect(subscribed.status == 200, "\(subscribed.text)")
        }
        var inApp = Self.deviceA
        inApp["time"] = 1000
        inApp["cats"] = [["name": "news"]]
        inApp["custom_fields"] = ["tier": "gold"]
        let joined = try await app.sdk(.inAppSubscribe, inApp, key: "sub-a")
        #expect(joined.status == 200, "\(joined.text)")
        let subscription = joined.json?["profile"].flatMap { ($0 as? [String: Any])?["subscription"] } as? [String: Any]
        #expect(subscription?["provider"] as? String == "inapp")
        #expect(subscription?["status"] as? String == "subscribed")
        var tags = Self.deviceA
        tags["tags"] = ["vip": "yes"]
        #expect(try await app.sdk(.profileTagsSet, tags).status == 200)

        let hour = 3_600_000.0
        let now = Date().timeIntervalSince1970 * 1000
        func iso(_ ms: Double) -> String { InAppWire.format(Date(timeIntervalSince1970: (ms / 1000).rounded())) }
        let anonAny = try await app.campaign(["name": "anon-any", "anonymous": true, "priority": 0])
        let members = try await app.campaign(["name": "members", "priority": 5])
        let home = try await app.campaign([
            "name": "home", "anonymous": true, "priority": 1,
            "triggers": [["type": "open_page", "screens": ["home"]]],
        ])
        let audience = try await app.campaign([
            "name": "news-gold", "priority": 2, "audience": ["categories": ["news"], "fields": ["tier": "gold"]],
        ])
        let tagged = try await app.campaign([
            "name": "vip", "anonymous": true, "priority": 3, "audience": ["tags": ["vip": "yes"]],
        ])
        _ = try await app.campaign(["name": "future", "anonymous": true, "starts_at": iso(now + hour)])
        _ = try await app.campaign([
            "name": "past", "anonymous": true, "starts_at": iso(now - 2 * hour), "ends_at": iso(now - hour),
        ])
        let paused = try await app.campaign(["name": "paused", "anonymous": true, "priority": 9])
        #expect(try await app.admin("POST", "/inapp/campaigns/\(paused)/pause").status == 200)
        _ = try await app.campaign(["name": "draft", "anonymous": true], start: false)
        let ended = try await app.campaign(["name": "ended", "anonymous": true])
        #expect(try await app.admin("POST", "/inapp/campaigns/\(ended)/end").status == 200)
        #expect(try await app.admin("POST", "/inapp/campaigns/\(ended)/start").status == 409)

        // The campaigns that target an audience say so (the SDK shows them only with collection on).
        var onHomeBody = Self.deviceA
        onHomeBody["screen"] = "home"
        let raw = try await app.sdk(.inAppPlacements, onHomeBody)
        let onHome = try #require(try raw.decode(InAppPlacementsResponse.self).data)
        #expect(onHome.placements.map(\.campaignId) == [members, tagged, audience, home, anonAny])
        #expect(onHome.inAppStatus == .subscribed)
        #expect(onHome.placements.allSatisfy { $0.smid?.hasPrefix("\($0.campaignId).") == true })
        let listed = ((raw.json?["data"] as? [String: Any])?["placements"] as? [[String: Any]]) ?? []
        #expect(
            listed.map { "\($0["campaign_id"] as? String ?? "?"):\($0["audience"] as? Bool ?? false)" }
                == ["\(members):false", "\(tagged):true", "\(audience):true", "\(home):false", "\(anonAny):false"])
        let onCart = try await app.placements(Self.deviceA, screen: "cart")
        #expect(onCart.placements.map(\.campaignId) == [members, tagged, audience, anonAny])
        let limited = try await app.placements(Self.deviceA, max: 2)
        #expect(limited.placements.map(\.campaignId) == [members, tagged])
        // The same profile and campaign keep their smid.
        #expect(limited.placements.first?.smid == onHome.placements.first?.smid)

        // B is push-subscribed but has no in-app subscription: anonymous campaigns without an audience it fails.
        let deviceB = try await app.placements(Self.deviceB, screen: "home")
        #expect(deviceB.placements.map(\.campaignId) == [home, anonAny])
        #expect(deviceB.inAppStatus == nil)
        // No identity at all.
        let anonymous = try await app.placements([:])
        #expect(anonymous.placements.map(\.campaignId) == [home, anonAny])

        // A unsubscribes from in-app: the non-anonymous campaigns go.
        var leave = Self.deviceA
        leave["time"] = 2000
        #expect(try await app.sdk(.inAppUnsubscribe, leave).status == 200)
        let after = try await app.placements(Self.deviceA, screen: "home")
        #expect(after.placements.map(\.campaignId) == [tagged, home, anonAny])
        #expect(after.inAppStatus == .unsubscribed)
        let status = try await app.sdk(.inAppStatus, Self.deviceA)
        let statusSubscription =
            (status.json?["profile"] as? [String: Any])?["subscription"] as? [String: Any]
        #expect(statusSubscription?["status"] as? String == "unsubscribed", "\(status.text)")

        // placed counts each campaign in each answer: members was in 3 of A's answers.
        #expect(try await app.stats(members)["placed"] as? Int == 3)
        // home: A on home (twice), B on home, the anonymous device; not A on cart nor A's first two.
        #expect(try await app.stats(home)["placed"] as? Int == 4)
    }

    @Test(arguments: InAppServer.backends)
    func eventsCountOncePerKeyIntoTheCampaignsStatistics(backend: String) async throws {
        let app = try await InAppServer.start(backend)
        defer { Task { await app.stop() } }
        let id = try await app.campaign([
            "anonymous": true,
            "content": [
                "kind": "template",
                "template": [
                    "title": "Sale", "body": "Half price",
                    "buttons": [
                        ["id": "buy", "text": "Buy", "action": ["type": "deep_link", "value": "shop://sale"]],
                        ["id": "no", "text": "Later", "action": ["type": "close"]],
                    ],
                ],
            ],
        ])
        let placement = try #require(try await app.placements([:]).placements.first)
        let smid = try #require(placement.smid)
        #expect(placement.content.template?.buttons?.map(\.id) == ["buy", "no"])
        func event(_ type: String, _ extra: [String: Any] = [:], key: String?) async throws -> JSONHTTPClient.Answer {
            var body: [String: Any] = ["smid": smid, "campaign_id": id, "type": type, "at": "2026-12-01T08:30:00Z"]
            body.merge(extra) { _, new in new }
            return try await app.sdk(.inAppEvent, body, key: key)
        }
        #expect(try await event("shown", key: "e1").status == 200)
        let repeated = try await event("shown", key: "e1")
        #expect(repeated.status == 200 && repeated.header("Idempotent-Replayed") == "true")
        #expect(try await event("shown", key: "e2").status == 200)
        #expect(try await event("clicked", ["button_id": "buy"], key: "e3").status == 200)
        #expect(try await event("clicked", ["button_id": "buy"], key: "e3").status == 200)
        #expect(try await event("clicked", ["button_id": "no"], key: "e4").status == 200)
        #expect(try await event("closed", key: "e5").status == 200)
        #expect(try await event("error", ["reason": "image failed"], key: "e6").status == 200)

        let unknownButton = try await event("clicked", ["button_id": "gone"], key: "e7")
        #expect(unknownButton.status == 400 && unknownButton.text.contains("button_id"), "\(unknownButton.text)")
        let noReason = try await event("error", key: "e8")
        #expect(noReason.status == 400 && noReason.text.contains("reason"), "\(noReason.text)")
        let wrongSmid = try await app.sdk(
            .inAppEvent, ["smid": "999.abc", "campaign_id": id, "type": "shown", "at": "2026-12-01T08:30:00Z"])
        #expect(wrongSmid.status == 400 && wrongSmid.text.contains("smid"), "\(wrongSmid.text)")
        let unknown = try await app.sdk(
            .inAppEvent, ["smid": "999.abc", "campaign_id": "999", "type": "shown", "at": "2026-12-01T08:30:00Z"])
        #expect(unknown.status == 404, "\(unknown.text)")
        let badTime = try await app.sdk(
            .inAppEvent, ["smid": smid, "campaign_id": id, "type": "shown", "at": "yesterday"])
        #expect(badTime.status == 400 && badTime.text.contains("at"), "\(badTime.text)")

        let stats = try await app.stats(id)
        #expect(stats["placed"] as? Int == 1)
        #expect(stats["shown"] as? Int == 2)
        #expect(stats["clicked"] as? Int == 2)
        #expect(stats["clicks_by_button"] as? [String: Int] == ["buy": 1, "no": 1])
        #expect(stats["closed"] as? Int == 1)
        #expect(stats["errors"] as? Int == 1)
        #expect(stats["errors_by_reason"] as? [String: Int] == ["image failed": 1])
    }

    @Test func malformedCampaignsAreRefusedWithTheFieldAndTheReason() async throws {
        let app = try await InAppServer.start("sqlite")
        defer { Task { await app.stop() } }
        let base: [String: Any] = [
            "project_id": app.server.projectId, "resource_id": app.server.resourceId, "name": "c",
            "display_type": "modal", "triggers": [["type": "open_app"]],
            "content": ["kind": "template", "template": ["title": "Hello"]],
        ]
        let button: [String: Any] = ["id": "b", "text": "B", "action": ["type": "close"]]
        func buttons(_ list: [[String: Any]]) -> [String: Any] {
            ["kind": "template", "template": ["title": "T", "buttons": list]]
        }
        let cases: [([String: Any], Int, String)] = [
            (["display_type": "popup"], 400, "display_type"),
            (["name": ""], 400, "name"),
            (["priority": 5000], 400, "priority"),
            (["triggers": []], 400, "triggers"),
            (["triggers": [["type": "custom"]]], 400, "triggers[0].name"),
            (["triggers": [["type": "open_page", "screens": [""]]]], 400, "triggers[0].screens[0]"),
            (
                [
                    "triggers": [
                        ["type": "custom", "name": "buy", "conditions": [["property": "p", "op": "in", "value": 1]]]
                    ]
                ],
                400, "triggers[0].conditions[0].value"
            ),
            (["caps": ["per_day": 0]], 400, "caps.per_day"),
            (["starts_at": "tomorrow"], 400, "starts_at"),
            (["starts_at": "2026-12-02T00:00:00Z", "ends_at": "2026-12-01T00:00:00Z"], 400, "ends_at"),
            (["content": ["kind": "html"]], 400, "content.html"),
            (["content": ["kind": "html", "html": "<p>", "base_url": "ftp://x/"]], 400, "content.base_url"),
            (["content": ["kind": "template"]], 400, "content.template"),
            (["content": buttons([button, button])], 400, "content.template.buttons[1].id"),
            (
                [
                    "content": buttons(
                        (1...4).map { ["id": "b\($0)", "text": "B", "action": ["type": "close"]] })
                ], 400, "at most 3 buttons"
            ),
            (
                ["content": buttons([["id": "b", "text": "B", "action": ["type": "url", "value": "not a url"]]])],
                400, "content.template.buttons[0].action.value"
            ),
            (
                ["content": buttons([["id": "b", "text": "B", "action": ["type": "custom"]]])],
                400, "content.template.buttons[0].action.name"
            ),
            (
                ["content": buttons([["id": "b", "text": "B", "action": ["type": "teleport"]]])],
                400, "content.template.buttons[0].action.type"
            ),
            (["audience": ["categories": ["nope"]]], 400, "audience.categories[0]"),
            (["resource_id": 424242], 404, "resource 424242"),
            (["project_id": 424242], 404, "project 424242"),
        ]
        for (change, status, field) in cases {
            var body = base
            body.merge(change) { _, new in new }
            let answer = try await app.admin("POST", "/inapp/campaigns", json: body)
            #expect(answer.status == status, "\(change): \(answer.text)")
            #expect(answer.json?["error"] as? Int == status, "\(change): \(answer.text)")
            #expect(answer.text.contains(field), "\(change): expected \(field) in \(answer.text)")
        }
        let missing = try await app.admin("POST", "/inapp/campaigns", json: ["name": "x"])
        #expect(missing.status == 400 && missing.text.contains("is required"), "\(missing.text)")
        let listed = try await app.admin("GET", "/inapp/campaigns")
        #expect(listed.status == 200 && listed.jsonArray?.count == 0, "nothing refused was stored: \(listed.text)")

        // Edits are checked the same way, and an ended campaign cannot be edited.
        let id = try await app.campaign([:], start: false)
        let badEdit = try await app.admin("PATCH", "/inapp/campaigns/\(id)", json: ["priority": -2000])
        #expect(badEdit.status == 400 && badEdit.text.contains("priority"), "\(badEdit.text)")
        let edit = try await app.admin(
            "PATCH", "/inapp/campaigns/\(id)", json: ["priority": 7, "name": "renamed", "caps": ["per_session": 1]])
        #expect(edit.status == 200, "\(edit.text)")
        #expect(edit.json?["priority"] as? Int == 7 && edit.json?["name"] as? String == "renamed")
        #expect((edit.json?["caps"] as? [String: Any])?["per_session"] as? Int == 1)
        #expect(try await app.admin("POST", "/inapp/campaigns/\(id)/end").status == 200)
        #expect(try await app.admin("PATCH", "/inapp/campaigns/\(id)", json: ["priority": 1]).status == 409)

        // Device requests: max_placements outside 1...100, half an identity.
        let tooMany = try await app.sdk(.inAppPlacements, ["max_placements": 101])
        #expect(tooMany.status == 400 && tooMany.text.contains("max_placements"), "\(tooMany.text)")
        let half = try await app.sdk(.inAppPlacements, ["provider": "ios-apns"])
        #expect(half.status == 400 && half.text.contains("subscription_id"), "\(half.text)")
        let nobody = try await app.sdk(.inAppSubscribe, ["time": 1])
        #expect(nobody.status == 404 && nobody.text.contains("no profile for this device"), "\(nobody.text)")
    }

    @Test func previewCapsAndStaticResourcesServedByTern() async throws {
        let app = try await InAppServer.start("sqlite")
        defer { Task { await app.stop() } }
        let id = try await app.campaign(
            ["anonymous": true, "content": ["kind": "html", "html": "<img src=\"logo.png\">"]], start: false)
        let png = Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
        let stored = try await app.client.send(
            "PUT", app.server.rootURL("/api/v1/admin/inapp/campaigns/\(id)/static/logo.png"), body: png,
            headers: ["Authorization": "Bearer \(app.server.adminKey)", "Content-Type": "image/png"])
        #expect(stored.status == 200, "\(stored.text)")
        #expect(stored.json?["static"] as? [String] == ["logo.png"])
        let served = try await app.client.get(app.server.rootURL("/api/v1/inapp/static/\(id)/logo.png"))
        #expect(served.status == 200 && served.body == png && served.header("Content-Type") == "image/png")
        #expect(try await app.client.get(app.server.rootURL("/api/v1/inapp/static/\(id)/none.png")).status == 404)

        let preview = try await app.admin("GET", "/inapp/campaigns/\(id)/preview")
        #expect(preview.status == 200, "\(preview.text)")
        let placement = try preview.decode(InAppPlacement.self)
        #expect(placement.smid == "\(id).preview")
        #expect(placement.content.baseURL == "/api/v1/inapp/static/\(id)/")

        let projectCaps = "/projects/\(app.server.projectId)/inapp-caps"
        #expect(try await app.admin("GET", projectCaps).json?["per_day"] is NSNull)
        let set = try await app.admin("PUT", projectCaps, json: ["per_day": 3, "min_interval_seconds": 60])
        #expect(set.status == 200, "\(set.text)")
        let refused = try await app.admin("PUT", projectCaps, json: ["per_session": -1])
        #expect(refused.status == 400 && refused.text.contains("caps.per_session"), "\(refused.text)")
        #expect(try await app.admin("POST", "/inapp/campaigns/\(id)/start").status == 200)
        let answer = try await app.placements([:])
        #expect(answer.projectCaps == InAppCaps(perDay: 3, minIntervalSeconds: 60))
        #expect(answer.placements.first?.content.baseURL == "/api/v1/inapp/static/\(id)/")
    }
}

/// `tern inapp …` against a real server.
@Suite struct InAppCommandTests {
    @Test func campaignsAreCreatedStartedCappedAndCountedFromTheCommandLine() async throws {
        let app = try await InAppServer.start("sqlite")
        defer { Task { await app.stop() } }
        let directory = app.server.dataDirectory
        let keyFile = directory.path("admin.key")
        try app.server.adminKey.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let connection = ["--url", app.server.apiURL.absoluteString, "--admin-key-file", keyFile]
        let campaign: [String: Any] = [
            "project_id": app.server.projectId, "resource_id": app.server.resourceId, "name": "cli",
            "display_type": "slideup", "anonymous": true, "triggers": [["type": "custom", "name": "purchase"]],
            "content": ["kind": "html", "html": "<p>Thanks</p>"],
        ]
        let file = directory.path("campaign.json")
        try JSONSerialization.data(withJSONObject: campaign).write(to: URL(fileURLWithPath: file))
        let created = try await TernCommand.run(["inapp", "create", file] + connection)
        #expect(created.status == 0, "\(created.error)")
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(created.output.utf8)) as? [String: Any])?["id"] as? String)
        #expect(try await TernCommand.run(["inapp", "start", id] + connection).status == 0)
        let caps = try await TernCommand.run(
            ["inapp", "caps", "\(app.server.projectId)", "--per-day", "2"] + connection)
        #expect(caps.status == 0 && caps.output.contains("\"per_day\" : 2"), "\(caps.output) \(caps.error)")
        let placed = try await app.placements([:])
        #expect(placed.placements.map(\.campaignId) == [id] && placed.projectCaps.perDay == 2)
        let stats = try await TernCommand.run(["inapp", "stats", id] + connection)
        #expect(stats.status == 0 && stats.output.contains("\"placed\" : 1"), "\(stats.output)")
        let refused = try await TernCommand.run(["inapp", "pause", "424242"] + connection)
        #expect(refused.status == 1 && refused.error.contains("campaign 424242 not found"), "\(refused.error)")
        let edit = directory.path("edit.json")
        try Data(#"{"triggers": []}"#.utf8).write(to: URL(fileURLWithPath: edit))
        let badEdit = try await TernCommand.run(["inapp", "edit", id, edit] + connection)
        #expect(badEdit.status == 1 && badEdit.error.contains("triggers"), "\(badEdit.error)")
    }
}
