import Foundation
import TernTestSupport
import Testing

/// The `tern` management subcommands against a running server.
@Suite(.serialized) struct AdminCommandTests {
    /// Runs `tern <arguments>` with the server's bootstrap directory; returns exit status, stdout, stderr.
    static func tern(_ arguments: [String], server: ServerProcess) async throws -> (Int32, String, String) {
        try await TernCommand.run(arguments + ["--data", server.dataDirectory.path("data")])
    }

    @Test func subcommandsManageCategoriesPixelsAndLookUpSubscriptions() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let resource = "\(server.resourceId)"
        let project = "\(server.projectId)"

        let (setStatus, setOutput, _) = try await Self.tern(
            ["categories", "set", resource, "news", "--title", "News"], server: server)
        #expect(setStatus == 0)
        #expect(setOutput.contains("\"title\" : \"News\""))
        let (_, shown, _) = try await Self.tern(["resources", "show", resource], server: server)
        #expect(shown.contains("\"news\""))
        let (pixelStatus, pixel, _) = try await Self.tern(
            ["pixels", "create", project, "--sid", "app-pixel"], server: server)
        #expect(pixelStatus == 0)
        #expect(pixel.contains("app-pixel"))

        _ = try await JSONHTTPClient().post(
            server.url("push/subscribe"), json: ["time": 1, "provider": "ios-apns", "subscription_id": "cli-token"],
            headers: ["X-Tern-RToken": server.rToken])
        let (findStatus, found, _) = try await Self.tern(
            ["subscriptions", "find", resource, "cli-token"], server: server)
        #expect(findStatus == 0)
        #expect(found.contains("\"subscription_id\" : \"cli-token\""))

        let (missingStatus, _, missing) = try await Self.tern(["resources", "show", "999"], server: server)
        #expect(missingStatus == 1)
        #expect(missing.contains("HTTP 404: resource 999 does not exist"))
        let (typoStatus, _, typo) = try await Self.tern(["pixels", "list", project, "--colour", "red"], server: server)
        #expect(typoStatus == 2)
        #expect(typo.contains("unknown option --colour"))
    }

    /// `tern messages timeline`: a row a bucket (UTC) and the totals, in columns; a bad bucket is
    /// the server's 400.
    @Test func aMessagesTimelineIsPrintedAsATable() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        _ = try await JSONHTTPClient().post(
            server.url("push/subscribe"), json: ["time": 1, "provider": "ios-apns", "subscription_id": "cli-token"],
            headers: ["X-Tern-RToken": server.rToken])
        let made = try await JSONHTTPClient().post(
            server.url("admin/messages"),
            json: ["title": "Hi", "audience": ["type": "resource", "resource_id": server.resourceId]],
            headers: ["Authorization": "Bearer \(server.adminKey)"])
        let id = try #require((try JSONSerialization.jsonObject(with: made.body) as? [String: Any])?["id"] as? String)
        // No APNs credentials: the delivery fails at once, in this hour.
        var table = ""
        for _ in 0..<100 {
            let (status, output, error) = try await Self.tern(
                ["messages", "timeline", id, "--bucket", "hour"], server: server)
            #expect(status == 0, "\(error)")
            table = output
            if table.contains("total") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let lines = table.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        let hour = String(Date().formatted(.iso8601).prefix(13)).replacingOccurrences(of: "T", with: " ")
        #expect(lines.count == 4, "\(table)")
        #expect(lines.first == [id, "per", "hour", "(UTC)"], "\(table)")
        #expect(lines.dropFirst().first == ["at", "sent", "failed", "delivered", "opened", "converted"], "\(table)")
        let row = lines.dropFirst(2).first ?? []
        #expect(
            row.count == 7 && "\(row[0]) \(row[1])".hasPrefix(hour) && row[1].hasSuffix(":00")
                && Array(row.dropFirst(2)) == ["0", "1", "0", "0", "0"], "\(table)")
        #expect(lines.last == ["total", "0", "1", "0", "0", "0"], "\(table)")

        let (badStatus, _, bad) = try await Self.tern(["messages", "timeline", id, "--bucket", "week"], server: server)
        #expect(badStatus == 1 && bad.contains("bucket must be minute, hour or day"), "\(bad)")
    }

    @Test func testDevicesAreMarkedListedAndUnmarkedFromTheCommandLine() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let resource = "\(server.resourceId)"
        var profileId = ""
        for token in ["phone-a", "phone-b"] {
            let answer = try await JSONHTTPClient().post(
                server.url("push/subscribe"),
                json: ["time": 1, "provider": "ios-apns", "subscription_id": token, "apns_environment": "sandbox"],
                headers: ["X-Tern-RToken": server.rToken])
            #expect(answer.status == 200, "\(answer.text)")
            let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
            profileId = (object?["profile"] as? [String: Any])?["id"] as? String ?? ""
        }
        let (markStatus, marked, _) = try await Self.tern(
            ["subscriptions", "test", resource, "phone-a"], server: server)
        #expect(markStatus == 0)
        #expect(
            marked.contains("\"is_test\" : true") && marked.contains("\"apns_environment\" : \"sandbox\""), "\(marked)")
        let (profileStatus, profile, _) = try await Self.tern(["profiles", "test", profileId], server: server)
        #expect(profileStatus == 0)
        #expect(profile.contains("\"is_test\" : true"), "\(profile)")
        let (_, listed, _) = try await Self.tern(["test-devices", "list"], server: server)
        #expect(listed.contains("phone-a") && listed.contains("phone-b"), "\(listed)")

        let (_, _, _) = try await Self.tern(["subscriptions", "test", resource, "phone-a", "--off"], server: server)
        let (_, _, _) = try await Self.tern(["profiles", "test", profileId, "--off"], server: server)
        let (_, empty, _) = try await Self.tern(
            ["test-devices", "list", "--project", "\(server.projectId)"], server: server)
        #expect(!empty.contains("phone"), "\(empty)")
        let (unknownStatus, _, unknown) = try await Self.tern(
            ["subscriptions", "test", resource, "nobody"], server: server)
        #expect(unknownStatus == 1)
        #expect(unknown.contains("HTTP 404") && unknown.contains("no push subscription"), "\(unknown)")

        // The person's export, then the erasure: told what went, then the profile is unknown.
        let (exportStatus, exported, _) = try await Self.tern(["profiles", "export", profileId], server: server)
        #expect(exportStatus == 0 && exported.contains("\"identity_bindings\""), "\(exported)")
        let (eraseStatus, erased, _) = try await Self.tern(["profiles", "erase", profileId], server: server)
        #expect(eraseStatus == 0)
        #expect(
            erased.contains("\"profile_id\" : \"\(profileId)\"") && erased.contains("\"subscriptions\" : 1"),
            "\(erased)")
        let (goneStatus, _, gone) = try await Self.tern(["profiles", "show", profileId], server: server)
        #expect(goneStatus == 1 && gone.contains("HTTP 404"), "\(gone)")

        let (cancelStatus, _, cancel) = try await Self.tern(["messages", "cancel", "m_none"], server: server)
        #expect(cancelStatus == 1 && cancel.contains("HTTP 404") && cancel.contains("m_none"), "\(cancel)")

        // A message scheduled an hour ahead: tern send says when and returns; then it is cancelled.
        let (sendStatus, sent, sendError) = try await Self.tern(
            [
                "send", "--title", "Later", "--resource", resource, "--at",
                "\(Int64(Date().timeIntervalSince1970 * 1000) + 3_600_000)",
            ],
            server: server)
        #expect(sendStatus == 0 && sent.contains("scheduled for "), "\(sent) \(sendError)")
        let scheduled = try #require(sent.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        // Edited from a file holding the whole request before it goes.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("edit-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let later = Int64(Date().timeIntervalSince1970 * 1000) + 7_200_000
        try Data(
            #"{"title":"Later still","send_at":\#(later),"audience":{"type":"resource","resource_id":\#(resource)}}"#
                .utf8
        ).write(to: file)
        let (editStatus, edited, editError) = try await Self.tern(
            ["messages", "edit", scheduled, "--file", file.path], server: server)
        #expect(
            editStatus == 0 && edited.contains("\"Later still\"") && edited.contains("\"edited_at\""), "\(editError)")
        let (stopStatus, stopped, _) = try await Self.tern(["messages", "cancel", scheduled], server: server)
        #expect(stopStatus == 0 && stopped.contains("\"cancelled_at\""), "\(stopped)")

        // A throttled message keeps its rate; a rate out of range is the server's refusal.
        let (slowStatus, slow, _) = try await Self.tern(
            ["send", "--title", "Drip", "--resource", resource, "--throttle", "30", "--no-wait"], server: server)
        let throttled = try #require(slow.split(separator: " ").last.map { String($0.dropLast()) })
        #expect(slowStatus == 0, "\(slow)")
        let (_, shown, _) = try await Self.tern(["messages", "show", throttled], server: server)
        #expect(shown.contains("\"throttle_per_minute\" : 30"), "\(shown)")
        let (zeroStatus, _, zero) = try await Self.tern(
            ["send", "--title", "Drip", "--resource", resource, "--throttle", "0"], server: server)
        #expect(zeroStatus == 1 && zero.contains("throttle_per_minute must be 1 to 1000000"), "\(zero)")
        let (localStatus, local, _) = try await Self.tern(
            ["send", "--title", "Morning", "--resource", resource, "--local-time", "09:00", "--no-wait"], server: server
        )
        let morning = try #require(local.split(separator: " ").last.map { String($0.dropLast()) })
        #expect(localStatus == 0, "\(local)")
        let (_, shownLocal, _) = try await Self.tern(["messages", "show", morning], server: server)
        let (quietStatus, quiet, _) = try await Self.tern(
            ["send", "--title", "Night", "--resource", resource, "--quiet-hours", "22:00-08:00", "--no-wait"],
            server: server)
        let night = try #require(quiet.split(separator: " ").last.map { String($0.dropLast()) })
        #expect(quietStatus == 0, "\(quiet)")
        let (_, shownQuiet, _) = try await Self.tern(["messages", "show", night], server: server)
        #expect(shownQuiet.contains("\"from\" : \"22:00\""), "\(shownQuiet)")
        let (newestStatus, newest, _) = try await Self.tern(["messages", "list", "--limit", "3"], server: server)
        #expect(
            newestStatus == 0 && newest.contains("\"id\" : \"\(morning)\"") && newest.contains(throttled)
                && newest.contains(night), "\(newest)")
        let (olderStatus, older, _) = try await Self.tern(
            ["messages", "list", "--before", throttled, "--limit", "200"], server: server)
        #expect(olderStatus == 0 && !older.contains(throttled) && older.contains(scheduled), "\(older)")
        let (foundStatus, found, _) = try await Self.tern(
            ["messages", "list", "--search", "MORNING", "--kind", "one_off", "--since", "2020-01-01"], server: server)
        #expect(
            foundStatus == 0 && found.contains(morning) && !found.contains(throttled) && !found.contains(night),
            "\(found)")
        let (pausedStatus, _, paused) = try await Self.tern(["messages", "list", "--state", "paused"], server: server)
        #expect(pausedStatus == 1 && paused.contains("state must be one of"), "\(paused)")
        #expect(shownLocal.contains("\"local_time_of_day\" : \"09:00\""), "\(shownLocal)")
        // A webhook: made with its secret shown once, listed without it, removed.
        let project = "\(server.projectId)"
        let (hookStatus, hook, _) = try await Self.tern(
            [
                "webhooks", "add", project, "https://hooks.example.com/tern", "--events",
                "push.opened,push.failed,inapp.clicked,inbox.read",
            ], server: server)
        #expect(hookStatus == 0 && hook.contains("\"secret\" : \"whsec_"), "\(hook)")
        let (_, hooks, _) = try await Self.tern(["webhooks", "list", project], server: server)
        #expect(
            hooks.contains("push.opened") && hooks.contains("inapp.clicked") && hooks.contains("inbox.read")
                && !hooks.contains("whsec_"), "\(hooks)")
        let (unknownHookStatus, _, unknownHook) = try await Self.tern(
            ["webhooks", "add", project, "https://hooks.example.com/tern", "--events", "inapp.opened"], server: server)
        #expect(
            unknownHookStatus == 1 && unknownHook.contains("inapp.opened, which is not an event"), "\(unknownHook)")
        let hookId = try #require(
            hook.split(separator: "\n").first { $0.contains("\"id\" :") }?.split(separator: ":").last?
                .trimmingCharacters(in: .whitespaces.union(.punctuationCharacters)))
        let (testStatus, pinged, _) = try await Self.tern(["webhooks", "test", project, hookId], server: server)
        #expect(testStatus == 0 && pinged.contains("webhook.test"), "\(pinged)")
        let (removeStatus, _, _) = try await Self.tern(["webhooks", "remove", project, hookId], server: server)
        #expect(removeStatus == 0)
        let (noEventsStatus, _, noEvents) = try await Self.tern(
            ["webhooks", "add", project, "https://hooks.example.com/tern"], server: server)
        #expect(noEventsStatus == 2 && noEvents.contains("needs --events"), "\(noEvents)")
        // An A/B test: each --variant a version; a misspelt field is named before anything is sent.
        let (abStatus, ab, _) = try await Self.tern(
            [
                "send", "--title", "Sale", "--resource", resource, "--variant", #"{"percent": 30}"#, "--variant",
                #"{"percent": 70, "title": "Last day"}"#, "--no-wait",
            ], server: server)
        let tested = try #require(ab.split(separator: " ").last.map { String($0.dropLast()) })
        #expect(abStatus == 0, "\(ab)")
        let (_, shownTest, _) = try await Self.tern(["messages", "show", tested], server: server)
        #expect(
            shownTest.contains("\"title\" : \"Last day\"") && shownTest.contains("\"percent\" : 70"), "\(shownTest)")
        let (partStatus, part, _) = try await Self.tern(
            [
                "send", "--title", "Sale", "--resource", resource, "--variant", "{}", "--variant",
                #"{"title": "Last day"}"#, "--test-percent", "20", "--winner-after", "120", "--no-wait",
            ], server: server)
        let partId = try #require(part.split(separator: " ").last.map { String($0.dropLast()) })
        #expect(partStatus == 0, "\(part)")
        let (_, shownPart, _) = try await Self.tern(["messages", "show", partId], server: server)
        #expect(
            shownPart.contains("\"winner_after_minutes\" : 120") && shownPart.contains("\"winner_due_at\""),
            "\(shownPart)")
        let (winnerStatus, winner, _) = try await Self.tern(["messages", "winner", partId, "b"], server: server)
        #expect(winnerStatus == 0 && winner.contains("\"winner_of\""), "\(winner)")
        let (typoStatus, _, typo) = try await Self.tern(
            ["send", "--title", "Sale", "--resource", resource, "--variant", #"{"titel": "B"}"#], server: server)
        #expect(typoStatus == 2 && typo.contains("titel, which is not a field of a version"), "\(typo)")
        let (oneStatus, _, one) = try await Self.tern(
            ["send", "--title", "Sale", "--resource", resource, "--variant", #"{"title": "B"}"#], server: server)
        #expect(oneStatus == 1 && one.contains("variants must list 2 to 10 versions, not 1"), "\(one)")
        let (badQuietStatus, _, badQuiet) = try await Self.tern(
            ["send", "--title", "Night", "--resource", resource, "--quiet-hours", "22:00"], server: server)
        #expect(badQuietStatus == 2 && badQuiet.contains("like 22:00-08:00"), "\(badQuiet)")

        // The project's frequency cap: set, refused out of range, removed.
        let (capStatus, capped, _) = try await Self.tern(
            ["projects", "cap", "\(server.projectId)", "3", "24"], server: server)
        #expect(capStatus == 0 && capped.contains("\"pushes\" : 3"), "\(capped)")
        let (badCapStatus, _, badCap) = try await Self.tern(
            ["projects", "cap", "\(server.projectId)", "0", "24"], server: server)
        #expect(badCapStatus == 1 && badCap.contains("pushes must be 1 to 100"), "\(badCap)")
        let (offStatus, off, _) = try await Self.tern(
            ["projects", "cap", "\(server.projectId)", "off"], server: server)
        #expect(offStatus == 0 && !off.contains("frequency_cap"), "\(off)")
    }
}
