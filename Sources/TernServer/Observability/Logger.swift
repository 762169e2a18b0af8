import Foundation
import Synchronization
import TernHTTP

/// Structured logs: one JSON object per line (`ts`, `level`, `msg`, then the fields), written to
/// stderr by default. Callers pass only what is safe to log: never tokens, JWTs, rTokens, admin keys
/// or push tokens. A line logged while a management request runs carries its key's id as `key_id`.
///
/// ```swift
/// logger.info("request", ["route": "/healthz", "status": 200])
/// ```
public final class Logger: Sendable {
    /// How much a line matters; a logger writes its level and those above (`debug` < `info` < `warn` < `error`).
    public enum Level: Int, Comparable, Sendable, CaseIterable {
        /// Detail for finding a problem; off unless asked for.
        case debug
        /// What the server does: starts, stops, requests.
        case info
        /// Something went wrong and was handled (a retry, a refused credential).
        case warn
        /// Something failed that an operator should look at.
        case error

        init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
            self = level
        }

        var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warn: "warn"
            case .error: "error"
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    let minimum: Level
    /// nil: to `output`.
    private let sink: (@Sendable (String) -> Void)?
    private let output: LogWriter
    private let lock = Mutex(())

    /// Logs at `minimum` and above to `sink` (stderr when nil).
    public convenience init(minimum: Level = .info, sink: (@Sendable (String) -> Void)? = nil) {
        self.init(minimum: minimum, sink: sink, output: .standardError)
    }

    init(minimum: Level, sink: (@Sendable (String) -> Void)? = nil, output: LogWriter) {
        self.minimum = minimum
        self.sink = sink
        self.output = output
    }

    /// Writes every line logged so far (lines below `warn` are written by a thread of the log's own,
    /// a few milliseconds after they are logged); a server stopping calls it last.
    public func flush() {
        output.flush()
    }

    func debug(_ message: String, _ fields: [String: any Sendable] = [:]) { log(.debug, message, fields) }
    /// Writes a line at level `info`, if the logger's level lets it through.
    ///
    /// - Parameters:
    ///   - message: What happened, written as `msg`.
    ///   - fields: Keys written after `msg`; never secrets (tokens, keys).
    public func info(_ message: String, _ fields: [String: any Sendable] = [:]) { log(.info, message, fields) }
    func warn(_ message: String, _ fields: [String: any Sendable] = [:]) { log(.warn, message, fields) }
    /// Writes a line at level `error`, if the logger's level lets it through.
    ///
    /// - Parameters:
    ///   - message: What failed, written as `msg`.
    ///   - fields: Keys written after `msg`; never secrets (tokens, keys).
    public func error(_ message: String, _ fields: [String: any Sendable] = [:]) { log(.error, message, fields) }

    /// Every request logs a line, so this is on the hot path: the line is built as UTF-8 bytes in
    /// one buffer (String appends scalar by scalar cost a fifth of a no-store request) and handed
    /// to a ``LogWriter``, whose thread writes many lines with one write(2).
    func log(_ level: Level, _ message: String, _ fields: [String: any Sendable]) {
        guard level >= minimum else { return }
        var fields = fields
        if fields["key_id"] == nil, let keyId = KeyNote.current?.keyId { fields["key_id"] = keyId }
        write(level, message) { line in
            for key in fields.keys.sorted() where key != "ts" && key != "level" && key != "msg" {
                Self.appendKey(key, to: &line)
                Self.appendValue(fields[key], to: &line)
            }
        }
    }

    /// The line every request logs (`msg` "request"): the same line ``log(_:_:_:)`` writes for
    /// these fields, keys in the same order, written in place. Through the dictionary of
    /// `any Sendable`, its building, sorting and casts were a third of the no-store route's log
    /// line.
    func request(
        _ level: Level, route: String, method: String, status: Int, durationMs: Double, requestId: String,
        error: String?
    ) {
        guard level >= minimum else { return }
        write(level, "request") { line in
            Self.appendKey("duration_ms", to: &line)
            Self.appendNumber(durationMs, to: &line)
            if let error {
                Self.appendKey("error", to: &line)
                JSONText.appendString(error, to: &line)
            }
            if let keyId = KeyNote.current?.keyId {
                Self.appendKey("key_id", to: &line)
                line.append(contentsOf: String(keyId).utf8)
            }
            Self.appendKey("method", to: &line)
            JSONText.appendString(method, to: &line)
            Self.appendKey("request_id", to: &line)
            JSONText.appendString(requestId, to: &line)
            Self.appendKey("route", to: &line)
            JSONText.appendString(route, to: &line)
            Self.appendKey("status", to: &line)
            line.append(contentsOf: String(status).utf8)
        }
    }

    /// `{"ts":…,"level":…,"msg":…`, what `fields` appends, `}` and a newline, to the sink or the writer.
    private func write(_ level: Level, _ message: String, fields: (inout [UInt8]) -> Void) {
        var line: [UInt8] = []
        line.reserveCapacity(256)
        line.append(contentsOf: #"{"ts":""#.utf8)
        Self.appendTimestamp(to: &line)
        line.append(contentsOf: #"","level":""#.utf8)
        line.append(contentsOf: level.name.utf8)
        line.append(contentsOf: #"","msg":"#.utf8)
        JSONText.appendString(message, to: &line)
        fields(&line)
        line.append(contentsOf: "}\n".utf8)
        if let sink {
            lock.withLock { _ in sink(String(decoding: line, as: UTF8.self)) }
        } else {
            output.append(line, urgent: level >= .warn)
        }
    }

    private static func appendKey(_ key: String, to line: inout [UInt8]) {
        line.append(UInt8(ascii: ","))
        JSONText.appendString(key, to: &line)
        line.append(UInt8(ascii: ":"))
    }

    /// A finite number as JSON's number; infinity or NaN, which JSON has no number for, as a string.
    private static func appendNumber(_ value: Double, to line: inout [UInt8]) {
        if value.isFinite {
            line.append(contentsOf: String(value).utf8)
        } else {
            JSONText.appendString(String(describing: value), to: &line)
        }
    }

    private static func appendValue(_ value: (any Sendable)?, to line: inout [UInt8]) {
        switch value {
        case let value as String: JSONText.appendString(value, to: &line)
        case let value as Bool: line.append(contentsOf: (value ? "true" : "false").utf8)
        case let value as Int: line.append(contentsOf: String(value).utf8)
        case let value as Int64: line.append(contentsOf: String(value).utf8)
        case let value as Int32: line.append(contentsOf: String(value).utf8)
        case let value as Double: appendNumber(value, to: &line)
        case nil: line.append(contentsOf: "null".utf8)
        case let value?: JSONText.appendString(String(describing: value), to: &line)
        }
    }

    /// `2026-03-01T10:00:00.123Z` into `line`.
    static func appendTimestamp(to line: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = time_t(now.tv_sec)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int32, _ width: Int) {
            var divisor: Int32 = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                line.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(parts.tm_year + 1900, 4)
        line.append(UInt8(ascii: "-"))
        digits(parts.tm_mon + 1, 2)
        line.append(UInt8(ascii: "-"))
        digits(parts.tm_mday, 2)
        line.append(UInt8(ascii: "T"))
        digits(parts.tm_hour, 2)
        line.append(UInt8(ascii: ":"))
        digits(parts.tm_min, 2)
        line.append(UInt8(ascii: ":"))
        digits(parts.tm_sec, 2)
        line.append(UInt8(ascii: "."))
        digits(Int32(now.tv_nsec / 1_000_000), 3)
        line.append(UInt8(ascii: "Z"))
    }

    /// UTC, milliseconds: `2026-03-01T10:00:00.123Z`.
    static func timestamp() -> String {
        var line: [UInt8] = []
        appendTimestamp(to: &line)
        return String(decoding: line, as: UTF8.self)
    }
}
