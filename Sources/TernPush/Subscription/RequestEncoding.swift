import Foundation

/// How push's requests become the bytes the outbox keeps: JSON. The one place a request's data
/// can fail to exist (the reference's `…RequestDataIsNil` events); tests hand in an encoder that
/// fails to reach them.
struct RequestEncoding: Sendable {
    let encode: @Sendable (any Encodable) throws -> Data

    /// `JSONEncoder`'s, as the outbox sends it.
    static let json = RequestEncoding { value in try JSONEncoder().encode(value) }
}
