import Foundation
import Testing

@testable import TernInApp

/// The display queue: one at a time, never in landscape, closed on rotation, slide-up geometry.
@Suite struct DisplayQueueTests {
    func presentation(_ id: String, campaign: String? = nil, slideup: Bool = false) -> InAppPresentation {
        let placement = Fixtures.placement(campaign ?? id, displayType: slideup ? "slideup" : "modal")
        let campaign = Fixtures.campaigns([placement])[0]
        return InAppPresentation(
            id: id, campaign: campaign, buttons: [InAppButton(id: "ok", text: "OK", action: InAppAction(type: .close))],
            layout: slideup ? .awaitingGeometry : .fullScreen)
    }

    @Test func oneAtATimeEachReportOnce() {
        var queue = DisplayQueue()
        let a = presentation("a")
        let b = presentation("b")
        #expect(queue.handle(.enqueue(a)) == [.present(a)])
        #expect(queue.handle(.enqueue(b)) == [])
        #expect(queue.handle(.shown("a")) == [.report(a, .shown)])
        #expect(queue.handle(.shown("a")) == [])
        #expect(
            queue.handle(.clicked("a", buttonId: "ok", action: nil))
                == [
                    .report(a, .clicked(buttonId: "ok")), .perform(InAppAction(type: .close)), .present(nil),
                    .report(a, .closed), .present(b),
                ])
        #expect(queue.handle(.clicked("a", buttonId: "ok", action: nil)) == [])
        #expect(queue.handle(.closed("a")) == [])
        #expect(queue.current?.id == "b")
    }

    @Test func theSameCampaignIsNotQueuedTwice() {
        var queue = DisplayQueue()
        _ = queue.handle(.enqueue(presentation("a", campaign: "c")))
        let again = presentation("a2", campaign: "c")
        #expect(queue.handle(.enqueue(again)) == [.dropped(again, "the campaign is already shown or waiting")])
    }

    @Test func landscapeShowsNothingAndARotationClosesWhatIsShown() {
        var queue = DisplayQueue()
        let a = presentation("a")
        let b = presentation("b")
        _ = queue.handle(.enqueue(a))
        _ = queue.handle(.enqueue(b))
        _ = queue.handle(.shown("a"))
        #expect(
            queue.handle(.orientation(landscape: true))
                == [.dropped(b, "the screen turned to landscape"), .present(nil), .report(a, .closed)])
        let c = presentation("c")
        #expect(queue.handle(.enqueue(c)) == [.dropped(c, "the screen is in landscape")])
        _ = queue.handle(.orientation(landscape: false))
        #expect(queue.handle(.enqueue(c)) == [.present(c)])
    }

    @Test func aTurnToPortraitUpsideDownClosesWhatIsShownAndTheNextComes() {
        var queue = DisplayQueue()
        let a = presentation("a")
        let b = presentation("b")
        _ = queue.handle(.enqueue(a))
        _ = queue.handle(.enqueue(b))
        _ = queue.handle(.shown("a"))
        #expect(queue.handle(.orientation(landscape: false)) == [.present(nil), .report(a, .closed), .present(b)])
    }

    @Test func aFailureIsReportedNothingStaysAndTheNextComes() {
        var queue = DisplayQueue()
        let a = presentation("a")
        let b = presentation("b")
        _ = queue.handle(.enqueue(a))
        _ = queue.handle(.enqueue(b))
        #expect(
            queue.handle(.failed("a", .staticResource("font.woff 404")))
                == [.report(a, .error(.staticResource("font.woff 404"))), .present(nil), .present(b)])
    }

    @Test func aSlideUpTakesItsGeometryOrCoversTheScreenAfterTheWait() {
        var queue = DisplayQueue()
        let a = presentation("a", slideup: true)
        #expect(queue.handle(.enqueue(a)) == [.present(a), .startGeometryTimer("a")])
        let geometry = InAppGeometry(edge: .bottom, height: 120)
        #expect(queue.handle(.geometry("a", geometry)) == [.layout("a", .sized(geometry))])
        #expect(queue.handle(.geometryTimeout("a")) == [])

        var late = DisplayQueue()
        let b = presentation("b", slideup: true)
        _ = late.handle(.enqueue(b))
        #expect(late.handle(.geometryTimeout("b")) == [.layout("b", .fullScreen)])
        #expect(late.handle(.geometry("b", geometry)) == [])
        #expect(
            InAppGeometry(message: ["edge": .string("top"), "height": .int(80)])
                == InAppGeometry(edge: .top, height: 80))
        #expect(InAppGeometry(message: ["edge": .string("left"), "height": .int(80)]) == nil)
        #expect(InAppGeometry(message: ["edge": .string("top"), "height": .int(-1)]) == nil)
    }
}

/// Which buttons are drawn.
@Suite struct ButtonRulesTests {
    struct Apple: InAppSystemActions {
        var opensLinks: Bool { true }
        var requestsPush: Bool { true }
        func open(_ url: URL) {}
        func requestPush() {}
    }

    @Test func aButtonWithNoHandlerAndNoDefaultIsNotDrawn() {
        let none = InAppHandlers()
        let link = InAppAction(type: .deepLink, value: "app://cart")
        let custom = InAppAction(type: .custom, value: "7", name: "coupon")
        let push = InAppAction(type: .requestPush)
        #expect(ButtonRules.drawable(InAppAction(type: .close), handlers: none, system: NoSystemActions()))
        #expect(!ButtonRules.drawable(link, handlers: none, system: NoSystemActions()))
        #expect(ButtonRules.drawable(link, handlers: none, system: Apple()))
        #expect(!ButtonRules.drawable(custom, handlers: none, system: Apple()))
        #expect(ButtonRules.drawable(custom, handlers: InAppHandlers(onCustom: { _, _ in }), system: NoSystemActions()))
        #expect(!ButtonRules.drawable(push, handlers: none, system: NoSystemActions()))
        #expect(ButtonRules.drawable(push, handlers: InAppHandlers(onRequestPush: {}), system: NoSystemActions()))
        #expect(!ButtonRules.drawable(InAppAction(type: .url, value: "ftp://x"), handlers: none, system: Apple()))
    }
}

/// Placements read one by one.
@Suite struct PlacementsAnswerTests {
    @Test func aMalformedPlacementIsLeftOutWithItsEventAndTheOthersKept() throws {
        var noSmid = Fixtures.placement("a")
        noSmid["smid"] = NSNull()
        var badContent = Fixtures.placement("b")
        badContent["content"] = ["kind": "video"]
        let answer = try #require(
            PlacementsAnswer.read(
                Fixtures.answer([noSmid, badContent, Fixtures.placement("c")], projectCaps: ["per_day": 3]),
                maxPlacements: 10))
        #expect(answer.campaigns.map(\.campaignId) == ["c"])
        #expect(answer.problems.map(\.event) == [.smidIsNil, .inAppContentErrorLoad])
        #expect(answer.problems[1].reason.contains("content.kind"))
        #expect(answer.projectCaps == InAppCaps(perDay: 3))
        #expect(answer.status == "subscribed")
        #expect(PlacementsAnswer.read(Data("{\"error\":0}".utf8), maxPlacements: 10) == nil)
    }

    @Test func moreThanMaxPlacementsKeepsTheHighestPriority() throws {
        let answer = try #require(
            PlacementsAnswer.read(
                Fixtures.answer([
                    Fixtures.placement("a", priority: 1), Fixtures.placement("b", priority: 3),
                    Fixtures.placement("c", priority: 2),
                ]), maxPlacements: 2))
        #expect(answer.limitExceeded)
        #expect(answer.campaigns.map(\.campaignId) == ["b", "c"])
    }
}

/// Where a campaign's served resources are.
@Suite struct PresentationBuilderTests {
    func builder(_ apiUrl: String) -> PresentationBuilder {
        PresentationBuilder(
            apiUrl: apiUrl, transport: URLSessionTransport(), handlers: InAppHandlers(), system: NoSystemActions())
    }

    @Test func servedPathsResolveAgainstTheServerBehindItsPrefix() {
        #expect(
            builder("https://x.example/tern/api/v1").resolve("/api/v1/inapp/static/c1/a.png")?.absoluteString
                == "https://x.example/tern/api/v1/inapp/static/c1/a.png")
        #expect(
            builder("http://127.0.0.1:8080/api/v1/").resolve("/api/v1/inapp/static/c1/")?.absoluteString
                == "http://127.0.0.1:8080/api/v1/inapp/static/c1/")
        #expect(
            builder("https://x.example/api/v1").resolve("/other/a.png")?.absoluteString
                == "https://x.example/other/a.png")
        #expect(builder("https://x.example/api/v1").resolve("https://cdn.example/a.png")?.host == "cdn.example")
        #expect(builder("https://x.example/api/v1").resolve("javascript:alert(1)") == nil)
        #expect(builder("https://x.example/api/v1").resolve("a.png") == nil)
    }
}
