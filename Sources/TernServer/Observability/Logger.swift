import Foundation
import Synchronization

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
        var object: [String: Any] = ["ts": Self.timestamp(), "level": level.name, "msg": message]
        for (key, value) in fields { object[key] = value }
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        let line = String(decoding: data, as: UTF8.self) + "\n"
        lock.withLock { _ in sink(line) }
    }

    static func timestamp() -> String {
        Date().formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
