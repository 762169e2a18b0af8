/// Why a token or key was refused, in words a person can act on.
///
/// ```swift
/// do { _ = try JWT.verify(token, key: key, audience: "tern") } catch { print(error.reason) }
/// // "token expired at 2026-03-01T10:00:00Z"
/// ```
public struct JWTError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What went wrong, for code that must tell cases apart (a 401 for all but `.key`, say).
    public enum Kind: String, Sendable {
        /// Not three base64url parts of JSON objects, or a claim of the wrong type.
        case malformed
        /// `none`, an unknown algorithm, or one that does not match the key.
        case algorithm
        /// The signature does not verify with the key.
        case signature
        /// `exp` is past (beyond the leeway).
        case expired
        /// `nbf` is in the future (beyond the leeway).
        case notYetValid
        /// `aud` does not name the expected audience.
        case audience
        /// A key could not be read, made or used.
        case key
    }

    public let kind: Kind
    /// For example `"signature does not verify"` or `"audience \"x\" is not \"y\""`.
    public let reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var description: String { reason }

    static func malformed(_ detail: String) -> JWTError {
        JWTError(.malformed, "malformed token: \(detail)")
    }
}
