import Foundation
import TernHTTP
import TernProtocol

/// A service's answer, ready for the wire: a status and the encoded envelope.
public struct Answer: Sendable, Equatable {
    var status: Int
    var body: Data
    /// True when this is the stored answer to an earlier request with the same idempotency key.
    var replayed: Bool = false

    /// A 200 with the envelope around `profile`.
    static func ok(_ profile: ProfileData?) throws -> Answer {
        guard let profile else { return Answer(status: 200, body: EnvelopeCoding.okWithoutProfile) }
        if let fast = ProfileEncoding.envelope(profile) { return Answer(status: 200, body: fast) }
        return Answer(status: 200, body: try EnvelopeCoding.encode(.ok(profile)))
    }

    /// The header that marks a replayed answer.
    static let replayedHeader = "Idempotent-Replayed"

    /// The answer as an HTTP response; a replay says so in `replayedHeader`.
    var response: HTTPResponse {
        var response = HTTPResponse.json(status, body)
        if replayed { response.headers.append((Self.replayedHeader, "true")) }
        return response
    }
}

/// JSON for envelopes: the shape TernProtocol defines, `profile` always present (null when absent).
enum EnvelopeCoding {
    /// `.ok(nil)`, the answer of most SDK writes, encoded once: it was two JSONEncoder runs per
    /// request, inside the store's transaction.
    static let okWithoutProfile = Data(#"{"error":0,"error_text":"","profile":null}"#.utf8)

    static func encode(_ envelope: ResponseEnvelope) throws -> Data {
        let encoder = JSONCoders.encoder
        let profile = try envelope.profile.map { String(decoding: try encoder.encode($0), as: UTF8.self) } ?? "null"
        let text = try String(decoding: encoder.encode(envelope.errorText ?? ""), as: UTF8.self)
        return Data("{\"error\":\(envelope.error ?? 0),\"error_text\":\(text),\"profile\":\(profile)}".utf8)
    }
}
