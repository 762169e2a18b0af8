import Foundation
import Testing

@testable import TernInApp

/// Triggers and conditions, matched on the device.
@Suite struct TriggerMatchingTests {
    func holds(_ op: InAppCondition.Operator, _ value: JSONValue?, _ properties: [String: JSONValue]) -> Bool {
        InAppCondition(property: "p", op: op, value: value).holds(in: properties)
    }

    @Test func comparisonsTakeNumbersWhateverTheirSpellingAndStringsInOrder() {
        #expect(holds(.eq, .int(3), ["p": .double(3.0)]))
        #expect(!holds(.eq, .int(3), ["p": .string("3")]))
        #expect(holds(.ne, .string("a"), ["p": .string("b")]))
        #expect(holds(.ne, .string("a"), [:]))
        #expect(holds(.lt, .int(10), ["p": .int(9)]))
        #expect(!holds(.lt, .int(10), ["p": .int(10)]))
        #expect(holds(.le, .int(10), ["p": .int(10)]))
        #expect(holds(.gt, .double(1.5), ["p": .int(2)]))
        #expect(holds(.ge, .string("b"), ["p": .string("b")]))
        #expect(!holds(.gt, .int(1), ["p": .string("2")]))
        #expect(!holds(.lt, .int(1), [:]))
    }

    @Test func existsAndInLookAtPresenceAndAList() {
        #expect(holds(.exists, .bool(true), ["p": .int(0)]))
        #expect(!holds(.exists, .bool(true), ["p": .null]))
        #expect(holds(.exists, .bool(false), [:]))
        #expect(holds(.isIn, .array([.string("a"), .int(2)]), ["p": .double(2)]))
        #expect(!holds(.isIn, .array([.string("a")]), ["p": .string("b")]))
        #expect(!holds(.isIn, .string("a"), ["p": .string("a")]))
    }

    @Test func rulesMatchTheirOwnKindOfTrigger() {
        let page = InAppTriggerRule(InAppTrigger(type: .openPage, screens: ["home"]))
        #expect(page?.matches(.openPage("home")) == true)
        #expect(page?.matches(.openPage("cart")) == false)
        #expect(InAppTriggerRule(InAppTrigger(type: .openPage, screens: []))?.matches(.openPage("x")) == true)
        #expect(InAppTriggerRule(.openApp)?.matches(.openApp) == true)
        #expect(InAppTriggerRule(.openApp)?.matches(.openPage("home")) == false)
        let custom = InAppTriggerRule(
            InAppTrigger(
                type: .custom, name: "buy", conditions: [InAppCondition(property: "total", op: .ge, value: .int(100))]))
        #expect(custom?.matches(.custom("buy", properties: ["total": .int(120)])) == true)
        #expect(custom?.matches(.custom("buy", properties: ["total": .int(20)])) == false)
        #expect(custom?.matches(.custom("sell", properties: ["total": .int(120)])) == false)
        #expect(InAppTriggerRule(InAppTrigger(type: .custom, name: nil)) == nil)
    }
}

/// Which campaign a trigger shows.
@Suite struct CampaignSelectionTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func context(subscribed: Bool = true, consent: Bool = true, project: InAppCaps = InAppCaps()) -> SelectionContext {
        SelectionContext(now: now, subscribed: subscribed, consent: consent, projectCaps: project)
    }

    @Test func theHighestPriorityMatchingCampaignWinsWhateverTheServerOrder() {
        let campaigns = Fixtures.campaigns([
            Fixtures.placement("low", priority: 1),
            Fixtures.placement("other", priority: 9, triggers: [["type": "open_app"]]),
            Fixtures.placement("high", priority: 5), Fixtures.placement("high-too", priority: 5),
        ])
        #expect(campaigns.map(\.campaignId) == ["other", "high", "high-too", "low"])
        let chosen = CampaignSelection.select(
            .custom("go", properties: [:]), in: campaigns, context: context(), ledger: CapLedger())
        #expect(chosen?.campaignId == "high")
    }

    @Test func nonAnonymousCampaignsNeedASubscriptionAndAudienceCampaignsConsent() {
        let campaigns = Fixtures.campaigns([
            Fixtures.placement("members", priority: 3, anonymous: false),
            Fixtures.placement("audience", priority: 2, audience: true),
            Fixtures.placement("everyone", priority: 1),
        ])
        let trigger = InAppTriggerEvent.custom("go", properties: [:])
        #expect(
            CampaignSelection.select(trigger, in: campaigns, context: context(), ledger: CapLedger())?.campaignId
                == "members")
        #expect(
            CampaignSelection.select(trigger, in: campaigns, context: context(subscribed: false), ledger: CapLedger())?
                .campaignId == "audience")
        #expect(
            CampaignSelection.select(
                trigger, in: campaigns, context: context(subscribed: false, consent: false), ledger: CapLedger())?
                .campaignId == "everyone")
    }

    @Test func aCappedOrOutOfScheduleCampaignGivesWayToTheNext() {
        let campaigns = Fixtures.campaigns([
            Fixtures.placement("capped", priority: 3, caps: ["per_session": 1]),
            Fixtures.placement("later", priority: 2, startsAt: "2030-01-01T00:00:00Z"),
            Fixtures.placement("over", priority: 2, endsAt: "2020-01-01T00:00:00Z"),
            Fixtures.placement("open", priority: 1),
        ])
        var ledger = CapLedger()
        ledger.record("capped", now: now)
        let chosen = CampaignSelection.select(
            .custom("go", properties: [:]), in: campaigns, context: context(), ledger: ledger)
        #expect(chosen?.campaignId == "open")
        #expect(
            CampaignSelection.select(
                .custom("go", properties: [:]), in: campaigns, context: context(project: InAppCaps(perSession: 1)),
                ledger: ledger) == nil)
    }
}

/// The index by trigger picks what walking every campaign picks.
@Suite struct CampaignIndexTests {
    @Test func theIndexAgreesWithTheWalkOverEveryCampaign() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let placements = (0..<60).map { index -> [String: Any] in
            var triggers: [[String: Any]] = []
            if index % 3 == 0 {
                triggers.append(["type": "open_page", "screens": index % 9 == 0 ? [] : ["s\(index % 4)"]])
            }
            if index % 2 == 0 {
                triggers.append([
                    "type": "custom", "name": "e\(index % 5)",
                    "conditions": [["property": "n", "op": "lt", "value": index]],
                ])
            }
            if index % 7 == 0 { triggers.append(["type": "open_app"]) }
            if triggers.isEmpty { triggers.append(["type": "custom", "name": "e9"]) }
            return Fixtures.placement(
                "c\(index)", priority: index % 6, anonymous: index % 4 != 1, triggers: triggers,
                caps: ["per_session": 1])
        }
        let campaigns = Fixtures.campaigns(placements)
        let index = CampaignIndex(campaigns)
        var ledger = CapLedger()
        for campaign in campaigns.prefix(8) { ledger.record(campaign.campaignId, now: now) }
        let context = SelectionContext(now: now, subscribed: false, consent: true, projectCaps: InAppCaps())
        var events: [InAppTriggerEvent] = [.openApp, .openPage("s1"), .openPage("s3"), .openPage("none")]
        for name in 0..<10 {
            for n in [0, 20, 59] { events.append(.custom("e\(name)", properties: ["n": .int(Int64(n))])) }
        }
        var found = 0
        for event in events {
            let walked = CampaignSelection.select(event, in: campaigns, context: context, ledger: ledger)
            #expect(index.select(event, context: context, ledger: ledger)?.campaignId == walked?.campaignId)
            if walked != nil { found += 1 }
        }
        #expect(found > 10)
        let first = index.select(.openApp, context: context, ledger: ledger)?.campaignId
        let next = index.select(.openApp, context: context, ledger: ledger, excluding: Set([first].compactMap { $0 }))
        #expect(first != nil && next != nil && next?.campaignId != first)
    }
}

/// The caps ledger: per session, per day, least interval, the campaign's and the project's.
@Suite struct CapLedgerTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func perSessionCountsStartAgainWithASession() {
        var ledger = CapLedger()
        let caps = InAppCaps(perSession: 2)
        ledger.record("a", now: start)
        #expect(ledger.allows("a", caps: caps, project: InAppCaps(), now: start))
        ledger.record("a", now: start)
        #expect(!ledger.allows("a", caps: caps, project: InAppCaps(), now: start))
        #expect(ledger.allows("b", caps: caps, project: InAppCaps(), now: start))
        ledger.startSession()
        #expect(ledger.allows("a", caps: caps, project: InAppCaps(), now: start))
    }

    @Test func perDayIsTheLast24HoursAndTheIntervalMayBeLonger() {
        var ledger = CapLedger()
        ledger.record("a", now: start)
        let day = InAppCaps(perDay: 1)
        #expect(!ledger.allows("a", caps: day, project: InAppCaps(), now: start.addingTimeInterval(86_399)))
        #expect(ledger.allows("a", caps: day, project: InAppCaps(), now: start.addingTimeInterval(86_400)))
        let interval = InAppCaps(minIntervalSeconds: 200_000)
        ledger.prune(now: start.addingTimeInterval(100_000))
        #expect(!ledger.allows("a", caps: interval, project: InAppCaps(), now: start.addingTimeInterval(199_999)))
        #expect(ledger.allows("a", caps: interval, project: InAppCaps(), now: start.addingTimeInterval(200_000)))
    }

    @Test func theProjectsCapsCountEveryCampaign() {
        var ledger = CapLedger()
        ledger.record("a", now: start)
        ledger.record("b", now: start.addingTimeInterval(10))
        let project = InAppCaps(perDay: 2)
        #expect(!ledger.allows("c", caps: InAppCaps(), project: project, now: start.addingTimeInterval(20)))
        #expect(
            !ledger.allows(
                "c", caps: InAppCaps(), project: InAppCaps(minIntervalSeconds: 60), now: start.addingTimeInterval(30)))
        #expect(
            ledger.allows("c", caps: InAppCaps(), project: InAppCaps(perSession: 3), now: start.addingTimeInterval(30)))
    }
}

/// When placements are asked for, and when a session starts.
@Suite struct FetchScheduleTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func automaticAndTriggerRequestsWaitForTheIntervalManualOnesNever() {
        let recent = now.addingTimeInterval(-100)
        #expect(!FetchSchedule.isDue(.automatic, lastSuccess: recent, interval: 300, now: now))
        #expect(!FetchSchedule.isDue(.trigger, lastSuccess: recent, interval: 300, now: now))
        #expect(FetchSchedule.isDue(.manual, lastSuccess: recent, interval: 300, now: now))
        #expect(FetchSchedule.isDue(.identity, lastSuccess: recent, interval: 300, now: now))
        #expect(FetchSchedule.isDue(.automatic, lastSuccess: now.addingTimeInterval(-300), interval: 300, now: now))
        #expect(FetchSchedule.isDue(.automatic, lastSuccess: nil, interval: 300, now: now))
        #expect(FetchSchedule.isDue(.automatic, lastSuccess: now.addingTimeInterval(50), interval: 300, now: now))
        let failed = now.addingTimeInterval(-10)
        #expect(!FetchSchedule.isDue(.trigger, lastSuccess: nil, lastFailure: failed, interval: 300, now: now))
        #expect(FetchSchedule.isDue(.manual, lastSuccess: nil, lastFailure: failed, interval: 300, now: now))
        #expect(FetchSchedule.isDue(.automatic, lastSuccess: nil, lastFailure: failed, interval: 300, now: now))
        #expect(
            FetchSchedule.isDue(
                .trigger, lastSuccess: nil, lastFailure: now.addingTimeInterval(-60), interval: 300, now: now))
    }

    @Test func aSessionIsTheLaunchAndAReturnAfterTheTimeout() {
        var rule = SessionRule(timeout: 1800)
        var starts: [Bool] = []
        starts.append(rule.foreground(at: now))
        starts.append(rule.foreground(at: now.addingTimeInterval(1)))
        rule.background(at: now.addingTimeInterval(10))
        starts.append(rule.foreground(at: now.addingTimeInterval(10 + 1800)))
        rule.background(at: now.addingTimeInterval(2000))
        starts.append(rule.foreground(at: now.addingTimeInterval(2000 + 1801)))
        #expect(starts == [true, false, false, true])
    }
}
