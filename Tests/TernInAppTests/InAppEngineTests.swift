import Foundation
import Synchronization
import TernHTTP
import TernSDKTestKit
import TernTestSupport
import Testing

@testable import TernInApp

/// The engine in a real SDK (its SQLite database, its outbox) against a scripted loopback API.
@Suite(.serialized) struct InAppEngineTests {
    func placementsRequests(_ api: ScriptedServer) async -> [HTTPRequest] {
        await api.requests.filter { $0.path.hasSuffix("/inapp/placements") }
    }

    func eventRequests(_ api: ScriptedServer) async -> [[String: Any]] {
        await api.requests.filter { $0.path.hasSuffix("/inapp/event") }.map { jsonObject($0.body) }
    }

    @Test func aCampaignShowsOnceThenItsCapHoldsAcrossARestart() async throws {
        let api = try ScriptedServer(
            fallback: Fixtures.response([Fixtures.placement("c1", caps: ["per_day": 1])]))
        let device = try InAppDevice()
        device.start(apiUrl: api.apiUrl)
        device.inApp.trigger(name: "go")
        await device.settle()
        #expect(await device.presenter.waitForShown(1))
        let first = try #require(device.presenter.shown.first)
        #expect(first.campaign.campaignId == "c1")
        #expect(await placementsRequests(api).count == 1)
        let body = jsonObject(try #require(await placementsRequests(api).first).body)
        #expect(body["max_placements"] as? Int == 10)

        device.presenter.channel?.clicked(first.id, buttonId: "ok")
        device.inApp.trigger(name: "go")
        await device.settle()
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(device.presenter.shown.count == 1)

        await device.restart()
        device.start(apiUrl: api.apiUrl)
        device.inApp.trigger(name: "go")
        await device.settle()
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(device.presenter.shown.count == 1, "the cap survived the restart")
        #expect(await placementsRequests(api).count == 1, "the cached placements were fresh: no request")

        device.clock.advance(86_400)
        device.inApp.trigger(name: "go")
        await device.settle()
        #expect(await device.presenter.waitForShown(2))

        await device.settle()
        let deadline = Date().addingTimeInterval(10)
        while await eventRequests(api).count < 4, Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
        let events = await eventRequests(api)
        #expect(events.map { $0["type"] as? String } == ["shown", "clicked", "closed", "shown"])
        #expect(events[1]["button_id"] as? String == "ok")
        #expect(events.allSatisfy { $0["smid"] as? String == "c1.0123456789abcdef" })
        let keys = await api.requests.filter { $0.path.hasSuffix("/inapp/event") }.compactMap {
            $0.header("Idempotency-Key")
        }
        #expect(Set(keys).count == 4)
        await device.close()
        api.stop()
    }

    @Test func automaticRequestsWaitForTheIntervalAcrossRestartsManualOnesNever() async throws {
        let api = try ScriptedServer(fallback: Fixtures.response([Fixtures.placement("c1")]))
        let device = try InAppDevice()
        device.start(apiUrl: api.apiUrl, autoRequest: true, interval: 600)
        _ = await device.events.first("inAppPlacementsRequestSuccessful")
        await device.settle()
        #expect(await placementsRequests(api).count == 1)

        await device.restart()
        device.start(apiUrl: api.apiUrl, autoRequest: true, interval: 600)
        await device.settle()
        #expect(await placementsRequests(api).count == 1, "the last success is saved: the automatic request skipped")
        device.inApp.getPlacements()
        await device.settle()
        #expect(await placementsRequests(api).count == 2)

        device.clock.advance(601)
        await device.restart()
        device.start(apiUrl: api.apiUrl, autoRequest: true, interval: 600)
        await device.settle()
        #expect(await placementsRequests(api).count == 3)
        await device.close()
        api.stop()
    }

    @Test func aSignInOrOutIsANewSessionThatDropsTheLastProfilesPlacements() async throws {
        let api = try ScriptedServer(
            fallback: Fixtures.response([Fixtures.placement("c1", anonymous: false, caps: ["per_session": 1])]))
        let device = try InAppDevice()
        device.start(apiUrl: api.apiUrl, jwt: "jwt-of-someone")
        device.inApp.trigger(name: "go")
        #expect(await device.presenter.waitForShown(1))
        device.presenter.channel?.closed(device.presenter.shown[0].id)
        device.inApp.trigger(name: "go")
        await device.settle()
        #expect(device.presenter.shown.count == 1, "capped in this session")

        await api.answer(Fixtures.response([Fixtures.placement("c1", anonymous: false)], status: nil))
        device.tern.authFunctions.authenticate()
        #expect(await device.events.first("authenticateSuccessful") != nil)
        device.inApp.trigger(name: "go")
        await device.settle()
        #expect(await placementsRequests(api).count == 2, "the trigger fetched the new profile's placements")
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(device.presenter.shown.count == 1, "not subscribed: the non-anonymous campaign is not shown")

        await api.answer(Fixtures.response([Fixtures.placement("c1", anonymous: false, caps: ["per_session": 1])]))
        device.tern.authFunctions.logOut()
        device.inApp.trigger(name: "go")
        #expect(await device.presenter.waitForShown(2), "a new session: the per-session cap starts again")
        #expect(await placementsRequests(api).count == 3)
        await device.close()
        api.stop()
    }

    @Test func theLaunchFiresOpenAppOnceAndScreensFireOpenPage() async throws {
        let api = try ScriptedServer(
            fallback: Fixtures.response([
                Fixtures.placement("launch", triggers: [["type": "open_app"]]),
                Fixtures.placement("cart", triggers: [["type": "open_page", "screens": ["cart"]]]),
            ]))
        let device = try InAppDevice()
        device.start(apiUrl: api.apiUrl)
        device.inApp.registerLifecycleTracking()
        await device.settle()
        await device.lifecycle.set(.foreground)
        try #require(await device.presenter.waitForShown(1))
        #expect(device.presenter.shown[0].campaign.campaignId == "launch")
        device.presenter.channel?.closed(device.presenter.shown[0].id)
        await device.lifecycle.set(.background)
        await device.lifecycle.set(.foreground)
        device.inApp.setScreen(screen: "home")
        device.inApp.setScreen(screen: "cart")
        #expect(await device.presenter.waitForShown(2))
        await device.settle()
        #expect(device.presenter.shown.map(\.campaign.campaignId) == ["launch", "cart"])
        await device.close()
        api.stop()
    }

    @Test func badInputIsAnEventNothingIsShownAndTheNextCampaignStillWorks() async throws {
        var noSmid = Fixtures.placement("nosmid")
        noSmid["smid"] = NSNull()
        let api = try ScriptedServer(
            fallback: Fixtures.response([
                noSmid,
                Fixtures.placement(
                    "broken-image", priority: 5, triggers: [["type": "custom", "name": "image"]],
                    content: Fixtures.template(imageURL: "/api/v1/inapp/static/broken-image/missing.png")),
                Fixtures.placement(
                    "empty-html", priority: 4, triggers: [["type": "custom", "name": "html"]],
                    content: ["kind": "html", "html": "  ", "base_url": NSNull()]),
                Fixtures.placement("fine", priority: 1, triggers: [["type": "custom", "name": "image"]]),
            ]))
        let device = try InAppDevice()
        device.start(apiUrl: api.apiUrl, maxPlacements: 0)
        #expect(await device.events.first("maxPlacementsInvalid") != nil)
        device.inApp.trigger(name: "image")
        #expect(await device.events.first("smidIsNil") != nil)
        let image = try #require(await device.events.first("errorInAppImageLoad"))
        #expect(image.isError)
        try #require(await device.presenter.waitForShown(1))
        #expect(device.presenter.shown.map(\.campaign.campaignId) == ["fine"], "the next matching campaign showed")
        device.presenter.channel?.closed(device.presenter.shown[0].id)
        device.inApp.trigger(name: "html")
        #expect(await device.events.first("inAppContentErrorLoad") != nil)
        await device.settle()
        #expect(device.presenter.shown.count == 1, "nothing of the empty page was shown")
        let deadline = Date().addingTimeInterval(10)
        while await eventRequests(api).filter({ $0["type"] as? String == "error" }).count < 2, Date() < deadline {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        let errors = await eventRequests(api).filter { $0["type"] as? String == "error" }
        #expect(errors.compactMap { $0["campaign_id"] as? String } == ["broken-image", "empty-html"])
        #expect((errors.first?["reason"] as? String)?.contains("missing.png") == true)
        device.inApp.trigger("", properties: [:])
        #expect(await device.events.first("invalidStaticField") != nil)
        await device.close()
        api.stop()
    }

    /// `inAppStaticErrorLoad` through the portable mapping: a base URL that cannot hold the page's
    /// resources (found before drawing), and a resource the drawing reports it could not load
    /// (what the iOS web view's bridge hands the channel). Each is an event and an `error` in the
    /// campaign's statistics; nothing stays on screen, the next campaign still shows.
    @Test func aStaticResourceThatFailsIsInAppStaticErrorLoadAndTheNextCampaignStillShows() async throws {
        let api = try ScriptedServer(
            fallback: Fixtures.response([
                Fixtures.placement(
                    "ftp-base", priority: 5, triggers: [["type": "custom", "name": "first"]],
                    content: ["kind": "html", "html": "<p>Hi</p>", "base_url": "ftp://cdn.example/assets/"]),
                Fixtures.placement(
                    "web", priority: 4, triggers: [["type": "custom", "name": "second"]],
                    content: ["kind": "html", "html": "<p>Hi</p>", "base_url": NSNull()]),
                Fixtures.placement("fine", priority: 1, triggers: [["type": "custom", "name": "first"]]),
            ]))
        let device = try InAppDevice(presenter: RecordingPresenter(confirms: false))
        device.start(apiUrl: api.apiUrl)
        device.inApp.trigger(name: "first")
        let builder = try #require(await device.events.first("inAppStaticErrorLoad"))
        #expect(builder.isError && builder.reason?.contains("ftp://cdn.example/assets/") == true)
        try #require(await device.presenter.waitForShown(1))
        let fine = device.presenter.shown[0]
        #expect(fine.campaign.campaignId == "fine", "the next matching campaign showed")
        device.presenter.channel?.shown(fine.id)
        device.presenter.channel?.closed(fine.id)

        device.inApp.trigger(name: "second")
        try #require(await device.presenter.waitForShown(2))
        let web = device.presenter.shown[1]
        #expect(web.campaign.campaignId == "web")
        device.presenter.channel?.failed(web.id, .staticResource("https://cdn.example/font.woff did not load"))
        let drawn = try #require(
            await device.events.first(where: { $0.name == "inAppStaticErrorLoad" }, after: builder.index + 1))
        #expect(drawn.isError && drawn.function == "inAppDisplay" && drawn.reason?.contains("font.woff") == true)
        await device.settle()
        #expect(device.presenter.state.withLock { $0.removals } >= 1, "the failed page was taken off")

        let deadline = Date().addingTimeInterval(10)
        while await eventRequests(api).filter({ $0["type"] as? String == "error" }).count < 2, Date() < deadline {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        let errors = await eventRequests(api).filter { $0["type"] as? String == "error" }
        #expect(errors.compactMap { $0["campaign_id"] as? String } == ["ftp-base", "web"])
        #expect((errors.last?["reason"] as? String)?.contains("font.woff") == true)
        #expect(
            await eventRequests(api).filter {
                $0["campaign_id"] as? String == "web" && $0["type"] as? String == "shown"
            }.isEmpty)
        await device.close()
        api.stop()
    }

    @Test func buttonsWithoutAHandlerAreNotDrawnAndHandlersGetTheirActions() async throws {
        let api = try ScriptedServer(
            fallback: Fixtures.response([
                Fixtures.placement(
                    "buttons",
                    content: Fixtures.template(buttons: [
                        Fixtures.button("coupon", "custom", value: "7", name: "coupon"),
                        Fixtures.button("link", "deep_link", value: "app://cart"),
                        Fixtures.button("push", "request_push"),
                    ]))
            ]))
        let custom = Mutex<[String]>([])
        let device = try InAppDevice()
        device.start(
            apiUrl: api.apiUrl,
            handlers: InAppHandlers(onCustom: { name, value in custom.withLock { $0.append("\(name)=\(value ?? "")") } }
            ))
        device.inApp.trigger(name: "go")
        #expect(await device.presenter.waitForShown(1))
        let shown = device.presenter.shown[0]
        #expect(shown.buttons.map(\.id) == ["coupon"], "no link or push default on Linux, no handler: not drawn")
        device.presenter.channel?.clicked(shown.id, buttonId: "coupon")
        await device.settle()
        let deadline = Date().addingTimeInterval(5)
        while custom.withLock({ $0.isEmpty }), Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(custom.withLock { $0 } == ["coupon=7"])
        await device.close()
        api.stop()
    }

    @Test func aCustomPresenterGetsEachPresentationAndNilWhenItMustGo() async throws {
        let api = try ScriptedServer(
            fallback: Fixtures.response([
                Fixtures.placement("first", priority: 2, triggers: [["type": "custom", "name": "a"]]),
                Fixtures.placement("second", priority: 1, triggers: [["type": "custom", "name": "b"]]),
            ]))
        let handed = Mutex<[String?]>([])
        let device = try InAppDevice()
        device.start(apiUrl: api.apiUrl)
        device.inApp.start { presentation in handed.withLock { $0.append(presentation?.campaign.campaignId) } }
        device.inApp.trigger(name: "a")
        device.inApp.trigger(name: "b")
        await device.settle()
        let deadline = Date().addingTimeInterval(5)
        while handed.withLock({ $0.isEmpty }), Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(handed.withLock { $0 } == ["first"], "one at a time")
        device.inApp.dismissed()
        await device.settle()
        while handed.withLock({ $0.count < 3 }), Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(handed.withLock { $0 } == ["first", nil, "second"])
        device.inApp.stop()
        await device.settle()
        while handed.withLock({ $0.count < 4 }), Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(handed.withLock { $0 } == ["first", nil, "second", nil])
        await device.close()
        api.stop()
    }

    /// The app's own presenter answers through `Tern.shared.inApp`: `clicked(_:)` reports the
    /// button and closes what is shown; `refresh()` asks for the placements again at once.
    @Test func aCustomPresentersClickIsReportedAndRefreshFetchesAgain() async throws {
        let api = try ScriptedServer(fallback: Fixtures.response([Fixtures.placement("c1")]))
        let handed = Mutex<[String?]>([])
        let device = try InAppDevice()
        device.start(apiUrl: api.apiUrl)
        device.inApp.start { presentation in handed.withLock { $0.append(presentation?.campaign.campaignId) } }
        device.inApp.trigger(name: "go")
        await device.settle()
        let deadline = Date().addingTimeInterval(10)
        while handed.withLock({ $0.isEmpty }), Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(handed.withLock { $0 } == ["c1"])
        #expect(await placementsRequests(api).count == 1)

        device.inApp.clicked("ok")
        await device.settle()
        while handed.withLock({ $0.count < 2 }), Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(handed.withLock { $0 } == ["c1", nil], "a click closes what is shown")
        while await eventRequests(api).count < 3, Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
        let events = await eventRequests(api)
        #expect(events.map { $0["type"] as? String } == ["shown", "clicked", "closed"])
        #expect(events.dropFirst().first?["button_id"] as? String == "ok")

        device.inApp.refresh()
        await device.settle()
        while await placementsRequests(api).count < 2, Date() < deadline {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        #expect(await placementsRequests(api).count == 2, "refresh asks again although the cache is fresh")
        await device.close()
        api.stop()
    }

    @Test func aSlideUpWithoutGeometryCoversTheScreenAfterASecond() async throws {
        let api = try ScriptedServer(
            fallback: Fixtures.response([
                Fixtures.placement(
                    "panel", displayType: "slideup",
                    content: ["kind": "html", "html": "<p>Hi</p>", "base_url": "/api/v1/inapp/static/panel/"])
            ]))
        let device = try InAppDevice(presenter: RecordingPresenter(confirms: false))
        device.start(apiUrl: api.apiUrl)
        device.inApp.trigger(name: "go")
        try #require(await device.presenter.waitForShown(1))
        let shown = device.presenter.shown[0]
        #expect(shown.layout == .awaitingGeometry)
        #expect(shown.baseURL?.absoluteString.hasSuffix("/api/v1/inapp/static/panel/") == true)
        #expect(shown.baseURL?.host == "127.0.0.1")
        try await Task.sleep(nanoseconds: 1_300_000_000)
        #expect(device.presenter.state.withLock { $0.layouts } == [.fullScreen])
        await device.close()
        api.stop()
    }

    @Test func aRefusedRequestAndTooManyPlacementsAreEvents() async throws {
        let api = try ScriptedServer(
            script: [ScriptedServer.failure(401, "unknown rToken")],
            fallback: Fixtures.response([Fixtures.placement("a", priority: 1), Fixtures.placement("b", priority: 2)]))
        let device = try InAppDevice()
        device.start(apiUrl: api.apiUrl, maxPlacements: 1)
        device.inApp.getPlacements()
        let refused = try #require(await device.events.first("inAppPlacementsRequestFailed"))
        #expect(refused.httpCode == 401)
        #expect(refused.errorText == "unknown rToken")
        device.inApp.getPlacements()
        #expect(await device.events.first("placementsLimitExceeded") != nil)
        let placed = try #require(await device.events.first("inAppPlacementsRequestSuccessful"))
        #expect(placed.count == 1)
        // The result itself: the placements kept, the higher priority.
        #expect(placed.placements == ["b"])
        // The value every request's success carries (sdk-core.md, "Events").
        #expect(placed.httpCode == 200 && placed.error == 0 && placed.errorText == "")
        device.inApp.trigger(name: "go")
        try #require(await device.presenter.waitForShown(1))
        #expect(device.presenter.shown[0].campaign.campaignId == "b")
        await device.close()
        api.stop()
    }
}
