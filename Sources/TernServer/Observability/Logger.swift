import Foundation
import Synchronization
import TernHTTP

/// Structured logs: one JSON object per line (`ts`, `level`, `msg`, then the fields), written to
/// stderr by default. Callers pass only what is safe to log: never tokens, JWTs, rTokens, admin keys
/// or push tokens.
///
/// ```swift
/// logger.info("request", ["route": "/healthz", "status": 200])
/// ```
public final class Logger: Sendable {
    public enum Level: Int, Comparable, Sendable, CaseIterable {
        case debug, info, warn, error

        public init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
            self = level
        }

        public var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warn: "warn"
            case .error: "error"
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public let minimum: Level
    private let sink: @Sendable (String) -> Void
    private let lock = Mutex(())

    /// Logs at `minimum` and above to `sink` (stderr when nil).
    public init(minimum: Level = .info, sink: (@Sendable (String) -> Void)? = nil) {
        self.minimum = minimum
        self.sink = sink ?? { line in FileHandle.standardError.write(Data(line.utf8)) }
    }

    public func debug(_ message: String, _ fields: [String: any Sendable] = [:]) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: [String: any Sendable] = [:]) { log(.info, message, fields) }
    public func warn(_ message: String, _ fields: [String: any Sendable] = [:]) { log(.warn, message, fields) }
    public func error(_ message: String, _ fields: [String: any Sendable] = [:]) { log(.error, message, fields) }

    public func log(_ level: Level, _ message: String, _ fields: [String: any Sendable]) {
        guard level >= minimum else { return }
        var line = "{\"ts\":\"\(Self.timestamp())\",\"level\":\"\(level.name)\",\"msg\":"
        JSONText.appendString(message, to: &line)
        for key in fields.keys.sorted() where key != "ts" && key != "level" && key != "msg" {
            line += ","
            JSONText.appendString(key, to: &line)
            line += ":"
            Self.appendValue(fields[key], to: &line)
        }
        line += "}\n"
        lock.withLock { _ in sink(line) }
    }

    private static func appendValue(_ value: (any Sendable)?, to line: inout String) {
        switch value {
        case let value as String: JSONText.appendString(value, to: &line)
        case let value as Bool: line += value ? "true" : "false"
        case let value as Int: line += String(value)
        case let value as Int64: line += String(value)
        case let value as Int32: line += String(value)
        case let value as Double where value.isFinite: line += String(value)
        case nil: line += "null"
        case let value?: JSONText.appendString(String(describing: value), to: &line)
        }
    }

    /// UTC, milliseconds: `2026-03-01T10:00:00.123Z`.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = time_t(now.tv_sec)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return pad(parts.tm_year + 1900, 4) + "-" + pad(parts.tm_mon + 1, 2) + "-" + pad(parts.tm_mday, 2) + "T"
            + pad(parts.tm_hour, 2) + ":" + pad(parts.tm_min, 2) + ":" + pad(parts.tm_sec, 2) + "."
            + pad(Int32(now.tv_nsec / 1_000_000), 3) + "Z"
    }
}
