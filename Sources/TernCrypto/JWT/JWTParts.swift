import Foundation

/// A compact JWS split and decoded, not yet trusted.
struct JWTParts {
    let header: [String: String]
    let claims: Data
    let signature: Data
    let signingInput: Data

    init(_ token: String) throws(JWTError) {
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count == 3 else {
            throw JWTError.malformed("expected 3 dot-separated parts, found \(pieces.count)")
        }
        guard let headerBytes = Base64URL.decode(String(pieces[0])) else {
            throw JWTError.malformed("the header is not base64url")
        }
        guard let headerObject = (try? JSONSerialization.jsonObject(with: headerBytes)) as? [String: Any] else {
            throw JWTError.malformed("the header is not a JSON object")
        }
        guard let claims = Base64URL.decode(String(pieces[1])) else {
            throw JWTError.malformed("the payload is not base64url")
        }
        guard (try? JSONSerialization.jsonObject(with: claims)) is [String: Any] else {
            throw JWTError.malformed("the payload is not a JSON object")
        }
        guard let signature = Base64URL.decode(String(pieces[2])) else {
            throw JWTError.malformed("the signature is not base64url")
        }
        self.header = headerObject.mapValues(Self.text)
        self.claims = claims
        self.signature = signature
        self.signingInput = Data(token.utf8.prefix(pieces[0].utf8.count + 1 + pieces[1].utf8.count))
    }

    private static func text(_ value: Any) -> String {
        if let string = value as? String { return string }
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) {
            return String(decoding: data, as: UTF8.self)
        }
        return String(describing: value)
    }
}
