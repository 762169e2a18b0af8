import Foundation
import TernProtocol
import TernPush

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the NSE processor on `count` pushes for one image URL and prints timings and peak memory.
enum NSEChild {
    static func run(url: String, count: Int) async {
        let baseline = peakResidentBytes()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let processor = NotificationServiceProcessor(
            configuration: NotificationServiceConfiguration(
                mediaPolicy: MediaURLPolicy(allowsPlainHTTPOnLoopback: true)),
            downloader: URLSessionMediaDownloader(), writer: FileAttachmentWriter(directory: directory),
            categories: CategoryRegistry(store: MemoryCategoryStore()), delivery: nil, issues: nil)

        var durations: [Double] = []
        var failures = 0
        var afterWarmUp = baseline
        for index in 0...count {
            let content = NotificationContent(title: "Sale", body: "30% off", userInfo: payload(url: url, index: index))
            let clock = ContinuousClock()
            let start = clock.now
            let result = await processor.process(content)
            let elapsed = start.duration(to: clock.now)
            if result.ending != .enriched || result.attachment == nil { failures += 1 }
            if let file = result.attachment?.fileURL { try? FileManager.default.removeItem(at: file) }
            if index == 0 { afterWarmUp = peakResidentBytes() }
            if index > 0 {
                durations.append(
                    Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
            }
        }
        durations.sort()
        let median = durations[durations.count / 2]
        let p95 = durations[min(durations.count - 1, Int(Double(durations.count) * 0.95))]
        let peak = peakResidentBytes()
        let megabytes = { (bytes: Int) in Double(bytes) / 1_048_576 }
        print(
            String(
                format: "median %.2f ms, p95 %.2f ms over %d pushes\n    peak RSS %.1f MB: %.1f MB before any push,"
                    + " %.1f MB after the first (URLSession's stack loaded), +%.1f MB over the next %d%@",
                median, p95, durations.count, megabytes(peak), megabytes(baseline), megabytes(afterWarmUp),
                megabytes(peak - afterWarmUp), durations.count, failures == 0 ? "" : "; \(failures) FAILED"))
    }

    static func payload(url: String, index: Int) -> [String: JSONValue] {
        [
            "aps": ["alert": ["title": "Sale", "body": "30% off"], "mutable-content": 1],
            "tern": [
                "v": 1, "message_id": .string("bench-\(index)"), "media_url": .string(url),
                "buttons": [
                    ["id": "shop", "title": "Shop", "action": "url", "url": "https://example.com/sale"],
                    ["id": "later", "title": "Later", "action": "dismiss"],
                ],
                "track": ["delivery": true, "open": true],
            ],
        ]
    }

    /// The process's peak resident set size: `VmHWM` on Linux (`ru_maxrss` there survives `exec`, so
    /// it would report the parent's peak), `ru_maxrss` (bytes) on Darwin.
    static func peakResidentBytes() -> Int {
        #if canImport(Darwin)
            var usage = rusage()
            getrusage(RUSAGE_SELF, &usage)
            return Int(usage.ru_maxrss)
        #else
            let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
            let kilobytes = line?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return kilobytes * 1024
        #endif
    }
}

/// The notification center's category set, kept in memory (there is no notification center here).
actor MemoryCategoryStore: NotificationCategoryStore {
    private var categories: [NotificationCategory] = []
    func ternCategories() async -> [NotificationCategory] { categories }
    func replaceTernCategories(with categories: [NotificationCategory]) async { self.categories = categories }
    func deliveredCategoryIdentifiers() async -> Set<String> { [] }
}
