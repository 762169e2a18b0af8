// tern-bench-inapp: the device side of in-app campaigns (issue 12). Prints how many triggers per
// second the SDK matches against N cached campaigns (default 1,000): each trigger walks the
// campaigns highest priority first, checks their rules, conditions, schedule, subscription and
// consent rules and both caps in the ledger, and picks the first that may show, as
// `Tern.shared.inApp.trigger(_:properties:)` and `setScreen(screen:)` do before anything is drawn.
// The campaigns are read from an `inapp/placements` answer the way the SDK reads one.
// Usage: swift run -c release tern-bench-inapp [campaigns] [seconds]
import Foundation
@_spi(Benchmarks) import TernInApp

let campaignCount = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1_000
let duration = CommandLine.arguments.dropFirst(2).first.flatMap(Double.init) ?? 2
let names = (0..<50).map { "event_\($0)" }
let screens = (0..<40).map { "screen_\($0)" }
var generator = SystemRandomNumberGenerator()

func placement(_ index: Int) -> [String: Any] {
    var triggers: [[String: Any]] = []
    if index % 3 == 0 {
        triggers.append(["type": "open_page", "screens": (0..<5).map { screens[(index + $0 * 7) % screens.count] }])
    }
    if index % 3 != 0 || index % 2 == 0 {
        triggers.append([
            "type": "custom", "name": names[index % names.count],
            "conditions": [
                ["property": "total", "op": "ge", "value": index % 500],
                ["property": "currency", "op": "in", "value": ["EUR", "USD", "GBP"]],
            ],
        ])
    }
    if index % 97 == 0 { triggers.append(["type": "open_app"]) }
    return [
        "smid": "c\(index).0123456789abcdef", "campaign_id": "c\(index)", "display_type": "modal",
        "priority": index % 100, "anonymous": index % 4 != 0, "triggers": triggers,
        "caps": [
            "per_session": 1, "per_day": 3, "min_interval_seconds": index % 5 == 0 ? 3600 as Any : NSNull() as Any,
        ],
        "starts_at": NSNull(), "ends_at": NSNull(),
        "content": ["kind": "template", "template": ["title": "Campaign \(index)", "buttons": []]],
    ]
}

let answer: [String: Any] = [
    "error": 0, "error_text": "", "profile": NSNull(),
    "data": [
        "placements": (0..<campaignCount).map(placement), "project_caps": ["per_day": 20],
        "fetched_at": "2026-12-01T08:30:00Z", "inapp_status": "subscribed",
    ],
]
let now = Date()
let data = try JSONSerialization.data(withJSONObject: answer)
let readStart = ContinuousClock.now
guard var bench = InAppMatchingBenchmark(answer: data, maxPlacements: campaignCount, now: now) else {
    fatalError("the placements answer could not be read")
}
let readTime = ContinuousClock.now - readStart

// A realistic mix: custom triggers with properties (some meet the conditions, some do not; some
// names no campaign has) and screen changes.
let events: [InAppTriggerEvent] = (0..<4_096).map { index in
    if index % 4 == 0 {
        let screen = Int.random(in: 0..<screens.count + 10, using: &generator)
        return .openPage(screen < screens.count ? screens[screen] : "other_\(screen)")
    }
    let name = Int.random(in: 0..<60, using: &generator) < 50 ? names[index % names.count] : "unknown_\(index)"
    return .custom(
        name,
        properties: [
            "total": .int(Int64.random(in: 0..<600, using: &generator)),
            "currency": .string(["EUR", "JPY"][index % 2]),
        ])
}

/// Matches the events for `duration` seconds: triggers per second, and the share that found a campaign.
func run(_ bench: InAppMatchingBenchmark) -> (perSecond: Double, found: Double) {
    var matched = 0
    var count = 0
    let start = ContinuousClock.now
    let end = start + .seconds(duration)
    while ContinuousClock.now < end {
        for event in events where bench.match(event, now: now) != nil { matched += 1 }
        count += events.count
    }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return (Double(count) / seconds, Double(matched) / Double(count) * 100)
}

print("campaigns cached: \(bench.count) (one inapp/placements answer read in \(readTime))")
let indexed = run(bench)
print(
    "matching (the SDK's index by trigger): \(Int(indexed.perSecond)) triggers/s, "
        + String(format: "%.2f µs each, %.0f %% found a campaign", 1e6 / indexed.perSecond, indexed.found))
bench.linear = true
let linear = run(bench)
print(
    "matching (walking every campaign):     \(Int(linear.perSecond)) triggers/s, "
        + String(format: "%.2f µs each, %.0f %% found a campaign", 1e6 / linear.perSecond, linear.found))
