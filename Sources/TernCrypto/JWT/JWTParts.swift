import Foundation

/// A compact JWS split and decoded, not yet trusted.
struct JWTParts {
    let header: [String: String]
    /// The header's `crit` list (RFC 7515 §4.1.11): extensions the token says must be understood.
    let critical: [String]?
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
        self.critical = try Self.critical(headerObject["crit"])
        self.claims = claims
        self.signature = signature
        self.signingInput = Data(token.utf8.prefix(pieces[0].utf8.count + 1 + pieces[1].utf8.count))
    }

    /// `crit`, when present, must be a non-empty array of strings naming no parameter JWS itself defines.
    private static func critical(_ value: Any?) throws(JWTError) -> [String]? {
        guard let value else { return nil }
        guard let names = value as? [Any], !names.isEmpty, names.allSatisfy({ $0 is String }) else {
            throw JWTError.malformed("the header's \"crit\" is not a non-empty array of strings")
        }
        let strings = names.compactMap { $0 as? String }
        let registered: Set<String> = [
            "alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit",
        ]
        if let name = strings.first(where: registered.contains) {
            throw JWTError.malformed("the header's \"crit\" names \"\(name)\", which JWS itself defines")
        }
        return strings
    }

    private static func text(_ value: Any) -> String {
        if let string = value as? String { return string }
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) {
            return String(decoding: data, as: UTF8.self)
        }
        return String(describing: value)
    }
}
