import Foundation
import TernProtocol
import TernPush

/// Payloads parsed per second, from the OS's `userInfo` dictionary and from raw APNs JSON.
enum ParserBench {
    static let json: [String: JSONValue] = [
        "aps": [
            "alert": ["title": "Sale", "subtitle": "Today only", "body": "30% off"], "badge": 1,
            "sound": "default", "mutable-content": 1,
        ],
        "tern": [
            "v": 1, "message_id": "m-42", "media_url": "https://cdn.example.com/sale.jpg",
            "buttons": [
                ["id": "shop", "title": "Shop now", "action": "url", "url": "https://example.com/sale"],
                ["id": "later", "title": "Later", "action": "dismiss"],
                ["id": "app", "title": "Open app", "action": "open"],
            ],
            "click_url": "https://example.com/sale", "track": ["delivery": true, "open": true],
        ],
        "order_id": "A-1001", "segment": "vip",
    ]

    static func run() {
        let parser = PushPayloadParser()
        let userInfo = Dictionary(uniqueKeysWithValues: json.map { (AnyHashable($0.key), $0.value.anyValue) })
        let data = (try? JSONEncoder().encode(JSONValue.object(json))) ?? Data()
        measure("from userInfo ([AnyHashable: Any])") { parser.parse(userInfo: userInfo).message != nil }
        measure("from JSON bytes (\(data.count) B)") { parser.parse(data: data).message != nil }
        measure("from JSON values") { parser.parse(json: json).message != nil }
    }

    static func measure(_ name: String, _ body: () -> Bool) {
        for _ in 0..<2_000 { _ = body() }
        let clock = ContinuousClock()
        var count = 0
        var ok = true
        let start = clock.now
        var elapsed = Duration.zero
        while elapsed < .seconds(1) {
            for _ in 0..<1_000 { ok = body() && ok }
            count += 1_000
            elapsed = start.duration(to: clock.now)
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(String(format: "  %@: %.0f payloads/s%@", name, Double(count) / seconds, ok ? "" : " (PARSE FAILED)"))
    }
}
