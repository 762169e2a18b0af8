// Issue 20's measurement of the body limits: what the one-pass limit scan costs beside the decoding
// it guards, on the ingest benchmark's bodies (bench/server/wrk) and on the largest body the limits
// allow. Prints microseconds per body; run through bench/limits/run.sh (release build).
import Foundation
import TernProtocol
import TernServer

func microseconds(_ rounds: Int, _ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    for _ in 0..<rounds { try body() }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return seconds * 1e6 / Double(rounds)
}

let subscribe = Data(
    (#"{"time":1700000000000,"provider":"ios-apns","subscription_id":"bench-1-1-1","sync":true,"#
        + #""custom_fields":{"_os":"IOS","_device_model":"iPhone14,7"},"profile_fields":{"_fname":"Bench"}}"#).utf8)
let eventPush = Data(#"{"events":[{"message_id":"m-1-1-1","type":"delivery","time":1700000000000}]}"#.utf8)
let largest = Data(
    CommandLine.arguments.count > 1
        ? try String(contentsOfFile: CommandLine.arguments[1], encoding: .utf8).utf8 : "{}".utf8)
let decoder = JSONDecoder()
let limits = BodyLimits.standard
let rounds = 20_000

print(
    String(
        format: "%-28@ %10@ %12@ %12@ %8@", "body" as NSString, "bytes" as NSString, "scan µs" as NSString,
        "decode µs" as NSString, "scan %" as NSString))
for (name, body, type) in [
    ("push/subscribe (ingest)", subscribe, PushSubscriptionRequest.self as any Decodable.Type),
    ("event/push (ingest)", eventPush, PushEventRequest.self as any Decodable.Type),
    ("largest allowed (subscribe)", largest, PushSubscriptionRequest.self as any Decodable.Type),
] where body.count > 2 {
    let count = body.count > 100_000 ? 50 : rounds
    let scan = try microseconds(count) { try limits.check(body) }
    let decode = microseconds(count) { _ = try? decoder.decode(type, from: body) }
    print(
        String(
            format: "%-28@ %10d %12.2f %12.2f %7.1f%%", name as NSString, body.count, scan, decode, scan / decode * 100)
    )
}
