import Foundation
import TernServer

/// The progress bar and the funnel, as text.
enum Funnel {
    static let width = 30

    /// `[#########.....]  60%  6/10  sent 5  failed 1  invalid 0  queued 4`
    static func bar(_ counts: DeliveryCounts, fanningOut: Bool) -> String {
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
    static func table(_ stats: MessageStats) -> String {
        func share(_ part: Int64, _ whole: Int64, _ of: String) -> String {
            whole == 0 ? "" : String(format: "  %5.1f%% of %@", Double(part) * 100 / Double(whole), of)
        }
        func row(_ name: String, _ count: Int64, _ note: String = "") -> String {
            "  " + name.padding(toLength: 16, withPad: " ", startingAt: 0)
                + String(count).leftPadded(to: 9) + note
        }
        var lines = ["funnel of \(stats.messageId)"]
        lines.append(row("targeted", stats.targeted))
        lines.append(row("sent", stats.sent, share(stats.sent, stats.targeted, "targeted")))
        lines.append(row("delivered", stats.delivered, share(stats.delivered, stats.sent, "sent")))
        lines.append(row("opened", stats.opened, share(stats.opened, stats.delivered, "delivered")))
        if stats.converted > 0 {
            lines.append(row("converted", stats.converted, share(stats.converted, stats.opened, "opened")))
        }
        lines.append(row("failed", stats.failed))
        for (reason, count) in stats.failedByReason.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) {
            lines.append("    \(count)  \(reason)")
        }
        lines.append(row("invalid token", stats.invalidToken))
        if stats.skippedByPreference > 0 { lines.append(row("skipped, off", stats.skippedByPreference)) }
        if stats.skippedByFrequencyCap > 0 { lines.append(row("skipped, cap", stats.skippedByFrequencyCap)) }
        let pending = stats.queued + stats.sending
        if pending > 0 { lines.append(row("still queued", pending)) }
        for variant in stats.variants ?? [] {
            lines.append(
                "  version \(variant.variant) (\(variant.percent)%)".padding(toLength: 18, withPad: " ", startingAt: 0)
                    + "  targeted \(variant.targeted)  delivered \(variant.delivered)  opened \(variant.opened)"
                    + share(variant.opened, variant.delivered, "delivered")
                    + (variant.converted > 0 ? "  converted \(variant.converted)" : ""))
        }
        if let control = stats.controlGroup { lines += controlGroup(control) }
        return lines.joined(separator: "\n")
    }

    /// A control group's lines: both groups' people, conversions and rates, and the uplift.
    ///
    /// ```
    ///   control group   10% held out, goal purchase within 72 h (until 2026-12-27T09:00:00Z)
    ///     held out         1000 people     50 converted   5.0%
    ///     sent             9000 people    630 converted   7.0%
    ///     uplift         +40.0%
    /// ```
    static func controlGroup(_ control: ControlGroupStats) -> [String] {
        let ends = Date(timeIntervalSince1970: Double(control.windowEndsAt) / 1000).formatted(.iso8601)
        func row(_ name: String, _ group: ControlGroupStats.Group) -> String {
            "    " + name.padding(toLength: 12, withPad: " ", startingAt: 0) + String(group.people).leftPadded(to: 9)
                + " people " + String(group.converted).leftPadded(to: 6) + " converted "
                + String(format: "%5.1f%%", group.rate * 100)
        }
        return [
            "  control group   \(control.percent)% held out, goal \(control.goal) within \(control.windowHours) h "
                + "(until \(ends))",
            row("held out", control.control), row("sent", control.sent),
            "    uplift      "
                + (control.uplift.map { String(format: "%+9.1f%%", $0 * 100) }
                    ?? "  not yet (nobody held out has converted)"),
        ]
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
