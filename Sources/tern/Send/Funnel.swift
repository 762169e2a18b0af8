import Foundation

/// A message's delivery counts as the API answers them.
struct SendCounts: Equatable {
    var total: Int64
    var queued: Int64
    var sending: Int64
    var sent: Int64
    var failed: Int64
    var invalidToken: Int64

    init(_ json: [String: Any]) {
        func value(_ key: String) -> Int64 { (json[key] as? NSNumber)?.int64Value ?? 0 }
        total = value("total")
        queued = value("queued")
        sending = value("sending")
        sent = value("sent")
        failed = value("failed")
        invalidToken = value("invalid_token")
    }

    var finished: Int64 { sent + failed + invalidToken }
}

/// The progress bar and the funnel, as text.
enum Funnel {
    static let width = 30

    /// `[#########.....]  60%  6/10  sent 5  failed 1  invalid 0  queued 4`
    static func bar(_ counts: SendCounts, fanningOut: Bool) -> String {
        let fraction = counts.total == 0 ? (fanningOut ? 0 : 1) : Double(counts.finished) / Double(counts.total)
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let percent = String(format: "%3d%%", Int((fraction * 100).rounded(.down)))
        var text = "[\(bar)] \(percent)  \(counts.finished)/\(counts.total)\(fanningOut ? "+" : "")"
        text += "  sent \(counts.sent)  failed \(counts.failed)  invalid \(counts.invalidToken)"
        text += "  queued \(counts.queued + counts.sending)"
        return text
    }

    /// The statistics as a table, each stage with its share of the one before.
    static func table(_ stats: [String: Any]) -> String {
        func value(_ key: String) -> Int64 { (stats[key] as? NSNumber)?.int64Value ?? 0 }
        func share(_ part: Int64, _ whole: Int64, _ of: String) -> String {
            whole == 0 ? "" : String(format: "  %5.1f%% of %@", Double(part) * 100 / Double(whole), of)
        }
        func row(_ name: String, _ count: Int64, _ note: String = "") -> String {
            "  " + name.padding(toLength: 16, withPad: " ", startingAt: 0)
                + String(count).leftPadded(to: 9) + note
        }
        let targeted = value("targeted")
        let sent = value("sent")
        let delivered = value("delivered")
        var lines = ["funnel of \(stats["message_id"] as? String ?? "")"]
        lines.append(row("targeted", targeted))
        lines.append(row("sent", sent, share(sent, targeted, "targeted")))
        lines.append(row("delivered", delivered, share(delivered, sent, "sent")))
        lines.append(row("opened", value("opened"), share(value("opened"), delivered, "delivered")))
        lines.append(row("failed", value("failed")))
        let reasons = (stats["failed_by_reason"] as? [String: Any] ?? [:]).compactMapValues {
            ($0 as? NSNumber)?.int64Value
        }
        for (reason, count) in reasons.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) {
            lines.append("    \(count)  \(reason)")
        }
        lines.append(row("invalid token", value("invalid_token")))
        let pending = value("queued") + value("sending")
        if pending > 0 { lines.append(row("still queued", pending)) }
        return lines.joined(separator: "\n")
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
