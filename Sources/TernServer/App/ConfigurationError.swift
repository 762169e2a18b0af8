import Foundation

/// A server that cannot be configured or started as asked: an option with a bad value, a data
/// directory that is a file, a bootstrap file that cannot be written. The reason says what to change.
public struct ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong and what to change, e.g. the option and the value it did not accept.
    public let reason: String

    init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
