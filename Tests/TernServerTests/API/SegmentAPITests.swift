import Foundation
import TernProtocol
import TernTestSupport
import Testing

/// `device/report`, segments and filtered audiences through a real `tern serve` on each backend:
/// reports merge into the binding, segments are kept per project with unique names, a message's
/// filter reaches exactly the matching devices, and an in-app campaign's filter is evaluated on the
/// device's push binding.
@Suite(.serialized) struct SegmentAPITests {
    static func device(_ token: String) -> [String: Any] { ["provider": "ios-apns", "subscription_id": token] }

    static func report(_ token: String, sessions: Int, version: String) -> [String: Any] {
        var body = device(token)
        body["time"] = 2000
        body["session_count"] = sessions
        body["app_version"] = version
        body["language"] = "en"
        return body
    }

    /// Subscribes `token` with a custom field, then reports its built-in fields.
    static func seed(_ app: InAppServer, _ token: String, sessions: Int, version: String) async throws {
        var push = device(token)
        push["time"] = 1000
        push["custom_fields"] = ["plan": "gold"]
        let subscribed = try await app.sdk(.pushSubscribe, push)
        try #require(subscribed.status == 200, "\(subscribed.text)")
        let reported = try await app.sdk(.deviceReport, report(token, sessions: sessions, version: version))
        try #require(reported.status == 200, "\(reported.text)")
    }

    @Test(arguments: InAppServer.backends)
    func aReportMergesIntoTheBindingAndIsRefusedBeforeItOrWithBadValues(backend: String) async throws {
        let app = try await InAppServer.start(backend)
        defer { Task { await app.stop() } }
        let early = try await app.sdk(.deviceReport, Self.report("tok-r", sessions: 1, version: "1.0"))
        #expect(early.status == 404, "\(early.text)")
        #expect(early.text.contains("subscribe the device (push/subscribe)"), "\(early.text)")
        var negative = Self.report("tok-r", sessions: 1, version: "1.0")
        negative["foreground_time"] = -5
        let refused = try await app.sdk(.deviceReport, negative)
        #expect(refused.status == 400 && refused.text.contains("foreground_time must be 0 or more"), "\(refused.text)")

        try await Self.seed(app, "tok-r", sessions: 4, version: "2.3")
        let found = try await app.admin(
            "GET", "/subscriptions?resource_id=\(app.server.resourceId)&provider=ios-apns&subscription_id=tok-r")
        let fields = (found.jsonArray?.first as? [String: Any])?["fields"] as? [String: Any] ?? [:]
        #expect(fields["_session_count"] as? Int == 4 && fields["_app_ver"] as? String == "2.3", "\(found.text)")
        #expect(fields["plan"] as? String == "gold", "a report keeps the other fields: \(found.text)")

        // The device's offset from UTC: kept as _os_tz (a local-time message reads it), checked.
        var travelled = Self.report("tok-r", sessions: 5, version: "2.3")
        travelled["time_zone"] = "-0500"
        let moved = try await app.sdk(.deviceReport, travelled)
        #expect(moved.status == 200, "\(moved.text)")
        let after = try await app.admin(
            "GET", "/subscriptions?resource_id=\(app.server.resourceId)&provider=ios-apns&subscription_id=tok-r")
        let zone = ((after.jsonArray?.first as? [String: Any])?["fields"] as? [String: Any])?["_os_tz"]
        #expect(zone as? String == "-0500", "\(after.text)")
        for bad in ["Europe/Moscow", "+1500", "+03:00", ""] {
            var wrong = Self.report("tok-r", sessions: 5, version: "2.3")
            wrong["time_zone"] = bad
            let answer = try await app.sdk(.deviceReport, wrong)
            #expect(
                answer.status == 400 && answer.text.contains("time_zone must be the offset from UTC as ±HHMM"),
                "\(bad): \(answer.text)")
        }
    }

    @Test(arguments: InAppServer.backends)
    func segmentsAreKeptPerProjectEditedPreviewedAndDeleted(backend: String) async throws {
        let app = try await InAppServer.start(backend)
        defer { Task { await app.stop() } }
        for (token, sessions, version) in [("t1", 5, "2.0"), ("t2", 1, "2.0"), ("t3", 9, "1.2")] {
            try await Self.seed(app, token, sessions: sessions, version: version)
        }
        let project = app.server.projectId
        let filter: [String: Any] = ["field": "session_count", "op": ">=", "value": 3]
        let made = try await app.admin(
            "POST", "/segments", json: ["project_id": project, "name": "engaged", "filter": filter])
        #expect(made.status == 201, "\(made.text)")
        let id = try #require(made.json?["id"] as? Int)
        let again = try await app.admin(
            "POST", "/segments", json: ["project_id": project, "name": "engaged", "filter": filter])
        #expect(again.status == 409 && again.text.contains("already has a segment named engaged"), "\(again.text)")
        let unknownResource = try await app.admin(
            "POST", "/segments", json: ["project_id": project, "name": "x", "resource_id": 999, "filter": filter])
        #expect(
            unknownResource.status == 404 && unknownResource.text.contains("resource_id"), "\(unknownResource.text)")

        #expect(try await app.admin("GET", "/segments/\(id)/preview").json?["count"] as? Int == 2)
        let edited = try await app.admin(
            "PATCH", "/segments/\(id)",
            json: [
                "name": "engaged on 2.x",
                "filter": ["and": [filter, ["field": "app_version", "op": "≥", "value": "2.0"]]],
            ])
        #expect(edited.status == 200 && edited.json?["name"] as? String == "engaged on 2.x", "\(edited.text)")
        let preview = try await app.admin("GET", "/segments/\(id)/preview?sample=5")
        #expect(preview.json?["count"] as? Int == 1, "\(preview.text)")
        let sample = preview.json?["sample"] as? [[String: Any]] ?? []
        #expect(sample.map { $0["subscription_id"] as? String } == ["t1"], "\(preview.text)")
        let listed = try await app.admin("GET", "/segments?project_id=\(project)")
        #expect((listed.jsonArray as? [[String: Any]])?.map { $0["name"] as? String } == ["engaged on 2.x"])

        // A filtered resource audience reaches exactly its matches; one that matches nobody is refused.
        let sent = try await app.admin(
            "POST", "/messages",
            json: [
                "title": "Hi",
                "audience": [
                    "type": "resource", "resource_id": app.server.resourceId,
                    "filter": ["field": "app_version", "op": "<", "value": "2.0"],
                ],
            ])
        #expect(sent.status == 201, "\(sent.text)")
        #expect((sent.json?["counts"] as? [String: Any])?["total"] as? Int == 1, "\(sent.text)")
        let nobody = try await app.admin(
            "POST", "/messages",
            json: [
                "title": "Hi",
                "audience": [
                    "type": "resource", "resource_id": app.server.resourceId,
                    "filter": ["field": "tags.none", "op": "exists"],
                ],
            ])
        #expect(nobody.status == 409 && nobody.text.contains("matches no push subscription"), "\(nobody.text)")
        let missing = try await app.admin(
            "POST", "/messages", json: ["title": "Hi", "audience": ["type": "segment", "segment_id": 999]])
        #expect(missing.status == 404 && missing.text.contains("segment 999 does not exist"), "\(missing.text)")

        #expect(try await app.admin("DELETE", "/segments/\(id)").status == 204)
        #expect(try await app.admin("GET", "/segments/\(id)").status == 404)
    }

    @Test(arguments: InAppServer.backends)
    func anInAppFilterIsEvaluatedOnTheDevicesPushBinding(backend: String) async throws {
        let app = try await InAppServer.start(backend)
        defer { Task { await app.stop() } }
        try await Self.seed(app, "tok-a", sessions: 5, version: "2.1")
        try await Self.seed(app, "tok-b", sessions: 1, version: "2.1")
        let bad = try await app.admin(
            "POST", "/inapp/campaigns",
            json: [
                "project_id": app.server.projectId, "resource_id": app.server.resourceId, "name": "bad",
                "display_type": "modal", "triggers": [["type": "open_app"]],
                "content": ["kind": "template", "template": ["title": "Hello"]],
                "audience": ["filter": ["field": "language", "op": ">", "value": "en"]],
            ])
        #expect(bad.status == 400 && bad.text.contains("audience.filter: gt does not fit language"), "\(bad.text)")
        let engaged = try await app.campaign([
            "name": "engaged", "anonymous": true,
            "audience": ["filter": ["field": "session_count", "op": ">=", "value": 3]],
        ])
        #expect(try await app.placements(Self.device("tok-a")).placements.map(\.campaignId) == [engaged])
        #expect(try await app.placements(Self.device("tok-b")).placements.isEmpty)
        #expect(try await app.placements([:]).placements.isEmpty, "a device nobody knows has no binding to match")
    }
}
