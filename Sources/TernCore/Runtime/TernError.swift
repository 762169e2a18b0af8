import Foundation

/// An SDK failure with a reason a person can act on. Never thrown at the app: public calls report
/// failures as events.
public struct TernError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What went wrong, in words a person can act on.
    public let reason: String
    /// A failure with `reason`.
    ///
    /// - Parameter reason: What went wrong.
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
