/// Why an exchange failed before an answer arrived, in words a person can act on.
public struct HTTP2ClientError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Kind: String, Sendable {
        /// The request itself is unusable (a header with a line break, an unsupported URL).
        case invalidRequest
        /// No connection: refused, unreachable, name not resolved.
        case connect
        /// TLS failed: certificate not trusted, handshake refused.
        case tls
        /// The request's timeout passed.
        case timeout
        /// The connection or stream broke mid-exchange (reset, GOAWAY, protocol error); safe to retry
        /// only when the request is idempotent or the peer deduplicates.
        case transport
        /// The answer's body passed `maxResponseBytes`.
        case responseTooLarge
        /// The client was shut down.
        case shutDown
    }

    public let kind: Kind
    /// For example `"POST https://127.0.0.1:8443/3/device/x timed out after 2000 ms"`.
    public let reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var description: String { reason }
}
