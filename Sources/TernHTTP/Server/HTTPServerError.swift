/// Why the server could not be created or started, in words a person can act on.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible, Equatable {
    /// For example `"port 8080 on 127.0.0.1 is in use by another process"`.
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
