import Foundation

/// The process's memory as the OS reports it.
enum Memory {
    /// Peak resident set size (VmHWM on Linux, ru_maxrss elsewhere).
    static func peakBytes() -> Int? {
        #if os(Linux)
            return status("VmHWM:")
        #else
            var usage = rusage()
            guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
            return Int(usage.ru_maxrss)  // bytes on macOS
        #endif
    }

    /// Current resident set size (Linux only).
    static func residentBytes() -> Int? {
        #if os(Linux)
            return status("VmRSS:")
        #else
            return nil
        #endif
    }

    private static func status(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field) {
            let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first
            return kilobytes.map { $0 * 1024 }
        }
        return nil
    }
}
