import Foundation

/// An SDK failure with a reason a person can act on. Never thrown at the app: public calls report
/// failures as events.
public struct TernError: Error, Sendable, CustomStringConvertible, Equatable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
