import Foundation
import TernTestSupport
import Testing

/// `tern send` against a real `tern serve`: the message id, progress until done, the funnel, and
/// refusals with their reasons. No provider credentials are configured here, so every delivery
/// fails with the reason the sender gives; the real sending paths are the provider clients' tests.
@Suite(.serialized) struct SendCommandTests {
    static func tern(_ arguments: [String], server: ServerProcess) async throws -> (Int32, String, String) {
        try await TernCommand.run(["send"] + arguments + ["--data", server.dataDirectory.path("data")])
    }

    static func subscribe(_ server: ServerProcess, _ token: String, provider: String = "ios-apns") async throws {
        let answer = try await JSONHTTPClient().post(
            server.url("push/subscribe"), json: ["time": 1, "provider": provider, "subscription_id": token],
            headers: ["X-Tern-RToken": server.rToken])
        try #require(answer.status == 200)
    }

    @Test func sendPrintsTheIdFollowsProgressAndEndsWithTheFunnel() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        try await Self.subscribe(server, "cli-1")
        try await Self.subscribe(server, "cli-2")
        try await Self.subscribe(server, "cli-3", provider: "ios-huawei")

        let (status, output, error) = try await Self.tern(
            [
                "--title", "Sale", "--body", "30% off", "--resource", "\(server.resourceId)",
                "--button", "shop:Shop now:url:https://example.com/sale", "--custom-field", "order=7",
                "--ttl", "600", "--interval", "0.05", "--json",
            ], server: server)
        #expect(status == 0, "\(error)")
        let lines = output.split(separator: "\n").map(String.init)
        let id = try #require(lines.first?.split(separator: " ").last.map(String.init))
        #expect(lines.first == "message \(id)")
        #expect(id.hasPrefix("m_"))
        #expect(lines.contains { $0.hasPrefix("[") && $0.contains("3/3") })
        let stats = try #require(
            try JSONSerialization.jsonObject(with: Data((lines.last ?? "").utf8)) as? [String: Any])
        #expect(stats["message_id"] as? String == id)
        #expect(stats["targeted"] as? Int == 3)
        #expect(stats["done"] as? Bool == true)
        #expect((stats["sent"] as? Int ?? 0) + (stats["failed"] as? Int ?? 0) == 3)
        let reasons = stats["failed_by_reason"] as? [String: Int] ?? [:]
        #expect(reasons.values.reduce(0, +) == stats["failed"] as? Int)

        let (tableStatus, table, _) = try await Self.tern(
            ["--body", "again", "--token", "cli-1", "--interval", "0.05"], server: server)
        #expect(tableStatus == 0)
        #expect(table.contains("funnel of m_"))
        #expect(table.contains("targeted"))
        #expect(table.contains("delivered"))

        // With a cap of one a day, the second message is held back and the funnel says so.
        let (capStatus, _, capError) = try await TernCommand.run(
            ["projects", "cap", "\(server.projectId)", "1", "24", "--data", server.dataDirectory.path("data")])
        #expect(capStatus == 0, "\(capError)")
        for expected in [false, true] {
            let (_, capped, _) = try await Self.tern(
                ["--body", "capped", "--token", "cli-1", "--interval", "0.05"], server: server)
            #expect(capped.contains("skipped, cap") == expected, "\(capped)")
        }

        let metrics = try await JSONHTTPClient().get(server.rootURL("/metrics"))
        #expect(
            String(decoding: metrics.body, as: UTF8.self).contains("tern_push_deliveries_total{provider=\"ios-apns\""))
    }

    @Test func noWaitPrintsOnlyTheId() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        try await Self.subscribe(server, "quiet")
        let (status, output, _) = try await Self.tern(
            ["--title", "Hi", "--token", "quiet", "--no-wait"], server: server)
        #expect(status == 0)
        #expect(output.hasPrefix("message m_"))
        #expect(output.split(separator: "\n").count == 1)
    }

    @Test func aLiveActivityUpdateGoesToTheActivitysDevices() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        try await Self.subscribe(server, "phone")
        let token = try await JSONHTTPClient().post(
            server.url("live-activity/token"),
            json: [
                "time": 1, "provider": "ios-apns", "subscription_id": "phone", "activity_type": "OrderAttributes",
                "activity_id": "order-1", "token": String(repeating: "ab", count: 40),
            ], headers: ["X-Tern-RToken": server.rToken])
        try #require(token.status == 200)
        let (status, output, error) = try await Self.tern(
            [
                "--live-activity", "update", "--content-state", #"{"status": "On its way"}"#, "--activity", "order-1",
                "--title", "Order 1", "--relevance-score", "40", "--interval", "0.05", "--json",
            ], server: server)
        #expect(status == 0, "\(error)")
        // No credentials here: the one device's delivery fails with the sender's reason, counted.
        let last = output.split(separator: "\n").last.map(String.init) ?? ""
        let funnel = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        #expect((funnel["targeted"] as? Int) == 1, "\(output)")
        let (missing, _, why) = try await Self.tern(
            ["--live-activity", "update", "--activity", "order-1"], server: server)
        #expect(missing == 1 && why.contains("content_state is required for update"), "\(why)")
        let (stray, _, alone) = try await Self.tern(
            ["--title", "Hi", "--token", "t", "--content-state", "{}"], server: server)
        #expect(stray == 2 && alone.contains("--content-state goes with --live-activity"), "\(alone)")
    }

    @Test func presentationOptionsReachTheMessage() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let (status, output, error) = try await Self.tern(
            [
                "--title", "Smoke detected", "--token", "t", "--interruption-level", "critical", "--relevance-score",
                "0.9", "--target-content-id", "alarms", "--filter-criteria", "home", "--body-loc-key", "SMOKE_IN",
                "--body-loc-arg", "Kitchen", "--body-loc-arg", "2, floor", "--localizations",
                #"{"es": {"title": "Humo detectado"}}"#, "--no-wait",
            ], server: server)
        #expect(status == 0, "\(error)")
        let id = try #require(output.split(separator: " ").last.map { String($0.dropLast()) })
        let shown = try await JSONHTTPClient().get(
            server.url("admin/messages/\(id)"), headers: ["Authorization": "Bearer \(server.adminKey)"])
        for fragment in [
            #""interruption_level":"critical""#, #""relevance_score":0.9"#, #""target_content_id":"alarms""#,
            #""filter_criteria":"home""#, #""body_loc_key":"SMOKE_IN""#, #""body_loc_args":["Kitchen","2, floor"]"#,
            #""localizations":{"es":{"title":"Humo detectado"}}"#,
        ] {
            #expect(shown.text.contains(fragment), "\(fragment) in \(shown.text)")
        }
        let (refused, _, why) = try await Self.tern(
            ["--title", "Hi", "--token", "t", "--interruption-level", "loud"], server: server)
        #expect(refused == 1 && why.contains("interruption_level must be"), "\(why)")
    }

    @Test func aRecurringMessageIsSentFromTheCommandLine() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let (status, output, error) = try await Self.tern(
            [
                "--title", "Weekly picks", "--resource", "\(server.resourceId)", "--repeat-every-days", "7",
                "--repeat-until", "2099-01-01T00:00:00Z", "--no-wait",
            ], server: server)
        #expect(status == 0, "\(error)")
        let id = try #require(output.split(separator: " ").last.map { String($0.dropLast()) })
        let shown = try await JSONHTTPClient().get(
            server.url("admin/messages/\(id)"), headers: ["Authorization": "Bearer \(server.adminKey)"])
        #expect(shown.text.contains(#""repeat":{"#) && shown.text.contains(#""every_days":7"#), "\(shown.text)")
        #expect(shown.text.contains(#""until":4070908800000"#), "\(shown.text)")
        #expect(shown.json?["next_copy_at"] != nil, "\(shown.text)")
        let (alone, _, why) = try await Self.tern(
            ["--title", "Hi", "--token", "t", "--repeat-until", "2099-01-01T00:00:00Z"], server: server)
        #expect(alone == 2 && why.contains("--repeat-until goes with --repeat-every-days"), "\(why)")
    }

    @Test func aControlGroupIsSentAndComparedFromTheCommandLine() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        for index in 0..<20 { try await Self.subscribe(server, "held-\(index)") }
        let (status, output, error) = try await Self.tern(
            [
                "--title", "Sale", "--resource", "\(server.resourceId)", "--control-percent", "50",
                "--conversion-goal", "purchase", "--conversion-window-hours", "48", "--interval", "0.05",
            ], server: server)
        #expect(status == 0, "\(error)")
        #expect(output.contains("control group   50% held out, goal purchase within 48 h"), "\(output)")
        #expect(output.contains("held out") && output.contains("not yet (nobody held out has converted)"), "\(output)")
        let id = try #require(output.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        let (statsStatus, json, lines) = try await TernCommand.run(
            ["messages", "stats", id, "--data", server.dataDirectory.path("data")])
        #expect(statsStatus == 0, "\(lines)")
        let stats = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let control = try #require(stats["control_group"] as? [String: Any], "\(json)")
        #expect(control["percent"] as? Int == 50 && control["window_hours"] as? Int == 48, "\(control)")
        #expect(lines.contains("control group") && lines.contains("uplift"), "\(lines)")
        let (refused, _, why) = try await Self.tern(
            ["--title", "Hi", "--token", "held-0", "--conversion-goal", "purchase"], server: server)
        #expect(refused != 0 && why.contains("conversion_goal goes with control_percent"), "\(why)")
    }

    @Test func aMessageRepeatsOnWeekdaysFromTheCommandLine() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let (status, output, error) = try await Self.tern(
            [
                "--title", "Weekly digest", "--resource", "\(server.resourceId)", "--repeat-weekdays", "mon, thu",
                "--local-time", "09:00", "--no-wait",
            ], server: server)
        #expect(status == 0, "\(error)")
        let id = try #require(output.split(separator: " ").last.map { String($0.dropLast()) })
        let shown = try await JSONHTTPClient().get(
            server.url("admin/messages/\(id)"), headers: ["Authorization": "Bearer \(server.adminKey)"])
        #expect(shown.text.contains(#""repeat":{"weekdays":["mon","thu"]}"#), "\(shown.text)")
        let next = try #require((shown.json?["next_copy_at"] as? NSNumber)?.int64Value, "\(shown.text)")
        // With a local time, each device's own Monday or Thursday: the copy is made when the day
        // begins at UTC+14, 10:00 UTC on the Sunday or Wednesday before (1 January 1970, day 0, was a
        // Thursday).
        #expect([3, 6].contains((next / 86_400_000) % 7) && next % 86_400_000 == 36_000_000, "\(next)")
        for (arguments, code, fragment) in [
            (["--repeat-weekdays", "mon,funday"], 2, "--repeat-weekdays takes days of the week, mon to sun"),
            (
                ["--repeat-weekdays", "mon", "--repeat-every-days", "7"], 2,
                "--repeat-every-days and --repeat-weekdays do not go together"
            ),
            (["--repeat-weekdays", "mon,mon"], 1, "repeat.weekdays names mon twice"),
        ] {
            let (refused, _, why) = try await Self.tern(["--title", "Hi", "--token", "t"] + arguments, server: server)
            #expect(refused == code && why.contains(fragment), "\(arguments): \(refused) \(why)")
        }
    }

    @Test func aTriggerAPersonGetsAgainIsSentFromTheCommandLine() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let (status, output, error) = try await Self.tern(
            [
                "--title", "Your cart is waiting", "--resource", "\(server.resourceId)", "--trigger", "cart_abandoned",
                "--trigger-delay", "60", "--trigger-reentry-minutes", "1440",
            ], server: server)
        #expect(status == 0, "\(error)")
        #expect(output.contains("again 1440 minutes after it last went to them"), "\(output)")
        let id = try #require(output.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        let shown = try await JSONHTTPClient().get(
            server.url("admin/messages/\(id)"), headers: ["Authorization": "Bearer \(server.adminKey)"])
        #expect(shown.text.contains(#""reentry_after_minutes":1440"#), "\(shown.text)")
        #expect(shown.json?["trigger_rounds"] as? Int == 1, "\(shown.text)")
        let (alone, _, why) = try await Self.tern(
            ["--title", "Hi", "--token", "t", "--trigger-reentry-minutes", "5"], server: server)
        #expect(alone == 2 && why.contains("--trigger-reentry-minutes goes with --trigger"), "\(why)")
        let (tooLong, _, year) = try await Self.tern(
            [
                "--title", "Hi", "--resource", "\(server.resourceId)", "--trigger", "cart",
                "--trigger-reentry-minutes", "600000",
            ], server: server)
        #expect(
            tooLong == 1 && year.contains("HTTP 400: trigger.reentry_after_minutes must be 1 to 525600"), "\(year)")
    }

    @Test func aWelcomeIsSentFromTheCommandLine() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let (status, output, error) = try await Self.tern(
            [
                "--title", "Welcome!", "--resource", "\(server.resourceId)", "--trigger", "$subscribed",
                "--trigger-delay", "10",
            ], server: server)
        #expect(status == 0, "\(error)")
        #expect(output.contains("sent to each person whose device subscribes until tern messages cancel"), "\(output)")
        let (refused, _, why) = try await Self.tern(
            ["--title", "Hi", "--resource", "\(server.resourceId)", "--trigger", "$opened"], server: server)
        #expect(refused == 1 && why.contains("it supports $subscribed (when a device subscribes)"), "\(why)")
    }

    @Test func aSetTagsMessageIsSentFromTheCommandLine() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let resource = ["--title", "Welcome to Premium", "--resource", "\(server.resourceId)"]
        let (status, output, error) = try await Self.tern(
            resource + [
                "--trigger", "$tag_set", "--trigger-tag", "plan", "--trigger-tag-value", "premium", "--trigger-delay",
                "10",
            ], server: server)
        #expect(status == 0, "\(error)")
        #expect(output.contains("sent to each person whose device's tag plan is set to premium until"), "\(output)")
        let id = try #require(output.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        let shown = try await JSONHTTPClient().get(
            server.url("admin/messages/\(id)"), headers: ["Authorization": "Bearer \(server.adminKey)"])
        #expect(
            shown.text.contains(#""tag":"plan""#) && shown.text.contains(#""tag_value":"premium""#), "\(shown.text)")
        for (arguments, fragment) in [
            (["--trigger", "$tag_set"], "--trigger '$tag_set' needs --trigger-tag NAME"),
            (["--trigger", "cart", "--trigger-tag", "plan"], "--trigger-tag goes with --trigger '$tag_set'"),
            (["--trigger-tag", "plan"], "--trigger-tag goes with --trigger"),
        ] {
            let (refused, _, why) = try await Self.tern(resource + arguments, server: server)
            #expect(refused == 2 && why.contains(fragment), "\(arguments): \(refused) \(why)")
        }
    }

    @Test func aSetFieldMessageIsSentFromTheCommandLine() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let resource = ["--title", "Welcome to Premium", "--resource", "\(server.resourceId)"]
        for (value, said, stored) in [
            ("premium", "is set to premium", #""field_value":"premium""#), ("3", "is set to 3", #""field_value":3"#),
            ("true", "is set to true", #""field_value":true"#),
        ] {
            let (status, output, error) = try await Self.tern(
                resource + [
                    "--trigger", "$field_set", "--trigger-field", "plan", "--trigger-field-value", value,
                    "--trigger-delay", "10",
                ], server: server)
            #expect(status == 0, "\(error)")
            #expect(output.contains("sent to each person whose profile field plan \(said) until"), "\(output)")
            let id = try #require(output.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
            let shown = try await JSONHTTPClient().get(
                server.url("admin/messages/\(id)"), headers: ["Authorization": "Bearer \(server.adminKey)"])
            #expect(shown.text.contains(#""field":"plan""#) && shown.text.contains(stored), "\(shown.text)")
        }
        let (status, output, error) = try await Self.tern(
            resource + ["--trigger", "$field_set", "--trigger-field", "plan"], server: server)
        #expect(status == 0 && output.contains("whose profile field plan takes a new value"), "\(output) \(error)")
        for (arguments, fragment) in [
            (["--trigger", "$field_set"], "--trigger '$field_set' needs --trigger-field NAME"),
            (["--trigger", "cart", "--trigger-field", "plan"], "--trigger-field goes with --trigger '$field_set'"),
            (
                ["--trigger", "$field_set", "--trigger-field", "plan", "--trigger-tag", "plan"],
                "--trigger-tag goes with --trigger '$tag_set'"
            ),
            (["--trigger-field-value", "premium"], "--trigger-field-value goes with --trigger"),
            (["--trigger", "$field_set", "--trigger-field", "9lives"], "trigger.field: field name \"9lives\""),
        ] {
            let (refused, _, why) = try await Self.tern(resource + arguments, server: server)
            #expect(refused != 0 && why.contains(fragment), "\(arguments): \(refused) \(why)")
        }
    }

    @Test func anInAppEventMessageIsSentFromTheCommandLine() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let campaign = try await InAppServer(server: server).campaign([
            "content": [
                "kind": "template",
                "template": [
                    "title": "Go Premium",
                    "buttons": [
                        [
                            "id": "upgrade", "text": "Upgrade",
                            "action": ["type": "deep_link", "value": "shop://premium"],
                        ]
                    ],
                ],
            ]
        ])
        let resource = ["--title", "Still thinking about Premium?", "--resource", "\(server.resourceId)"]
        for (arguments, said, stored) in [
            (
                ["--trigger", "$inapp_clicked", "--trigger-campaign", campaign, "--trigger-button", "upgrade"],
                "who taps the button upgrade of in-app campaign \(campaign) until", #""button":"upgrade""#
            ),
            (
                ["--trigger", "$inapp_shown", "--trigger-campaign", campaign],
                "who sees in-app campaign \(campaign) until",
                #""event_name":"$inapp_shown""#
            ),
        ] {
            let (status, output, error) = try await Self.tern(
                resource + arguments + ["--trigger-delay", "1440", "--trigger-cancel", "purchase"], server: server)
            #expect(status == 0, "\(error)")
            #expect(output.contains("sent to each person \(said)"), "\(output)")
            let id = try #require(output.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
            let shown = try await JSONHTTPClient().get(
                server.url("admin/messages/\(id)"), headers: ["Authorization": "Bearer \(server.adminKey)"])
            #expect(
                shown.text.contains(#""campaign_id":"\#(campaign)""#) && shown.text.contains(stored), "\(shown.text)")
        }
        for (arguments, fragment) in [
            (["--trigger", "$inapp_clicked"], "--trigger '$inapp_clicked' needs --trigger-campaign ID"),
            (["--trigger", "$inapp_shown"], "--trigger '$inapp_shown' needs --trigger-campaign ID"),
            (
                ["--trigger", "cart", "--trigger-campaign", campaign],
                "--trigger-campaign goes with --trigger '$inapp_clicked' or '$inapp_shown'"
            ),
            (
                ["--trigger", "$inapp_shown", "--trigger-campaign", campaign, "--trigger-button", "upgrade"],
                "--trigger-button goes with --trigger '$inapp_clicked'"
            ),
            (["--trigger-campaign", campaign], "--trigger-campaign goes with --trigger"),
            (
                ["--trigger", "$inapp_clicked", "--trigger-campaign", campaign, "--trigger-button", "gone"],
                "trigger.button: campaign \(campaign) has no button \"gone\""
            ),
        ] {
            let (refused, _, why) = try await Self.tern(resource + arguments, server: server)
            #expect(refused != 0 && why.contains(fragment), "\(arguments): \(refused) \(why)")
        }
    }

    @Test func refusalsSayWhy() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let (noAudience, _, why) = try await Self.tern(["--title", "Hi"], server: server)
        #expect(noAudience == 2)
        #expect(
            why.contains(
                "say who gets it: --profile, --profiles, --token, --resource, --to-topic, --segment or --activity"))
        let (twoAudiences, _, both) = try await Self.tern(
            ["--title", "Hi", "--token", "t", "--resource", "1"], server: server)
        #expect(twoAudiences == 2)
        #expect(both.contains("pick one audience"))
        let (badPriority, _, server400) = try await Self.tern(
            ["--title", "Hi", "--token", "t", "--priority", "7"], server: server)
        #expect(badPriority == 1)
        #expect(server400.contains("HTTP 400: priority must be 10"))
        let (badButton, _, button) = try await Self.tern(
            ["--title", "Hi", "--token", "t", "--button", "x"], server: server)
        #expect(badButton == 2)
        #expect(button.contains("should be ID:TITLE:ACTION[:URL]"))
        let (metric, _, alone) = try await Self.tern(
            ["--title", "Hi", "--token", "t", "--winner-by", "conversions", "--winner-goal", "purchase"], server: server
        )
        #expect(metric == 1 && alone.contains("winner_by goes with winner_after_minutes"), "\(alone)")
        let (delay, _, delayAlone) = try await Self.tern(
            ["--title", "Hi", "--token", "t", "--trigger-delay", "5"], server: server)
        #expect(delay == 2 && delayAlone.contains("--trigger-delay goes with --trigger"), "\(delayAlone)")
        let (standing, made, _) = try await Self.tern(
            ["--title", "Hi", "--resource", "\(server.resourceId)", "--trigger", "cart", "--trigger-delay", "60"],
            server: server)
        #expect(standing == 0 && made.contains("until tern messages cancel m_"), "\(made)")
        let (typo, _, unknown) = try await Self.tern(
            ["--title", "Hi", "--token", "t", "--colour", "red"], server: server)
        #expect(typo == 2)
        #expect(unknown.contains("unknown option --colour"))
    }
}
