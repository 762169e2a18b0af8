import Foundation

/// JSON Web Tokens (RFC 7519) in compact JWS form: sign, read, verify.
///
/// ```swift
/// let key = try JWTSigningKey.generate(.es256)
/// let token = try JWT.sign(claims: Data(#"{"aud":"tern","exp":2000000000}"#.utf8), key: key, algorithm: .es256)
/// let claims = try JWT.verify(token, key: key.verificationKey(), audience: "tern")
/// ```
public enum JWT {
    /// Signs `claims` (a JSON object's bytes). The header gets `"alg"` and `"typ":"JWT"`; `header`
    /// adds fields such as `"kid"` (it may replace `typ`, never `alg`).
    /// - Throws: `JWTError` when the claims are not a JSON object or the key does not suit `algorithm`.
    public static func sign(
        claims: Data, key: JWTSigningKey, algorithm: JWTAlgorithm, header: [String: String] = [:]
    ) throws -> String {
        guard (try? JSONSerialization.jsonObject(with: claims)) is [String: Any] else {
            throw JWTError(.malformed, "claims are not a JSON object")
        }
        var fields = header
        fields["alg"] = algorithm.rawValue
        if fields["typ"] == nil { fields["typ"] = "JWT" }
        let headerJSON = try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
        let signingInput = Base64URL.encode(headerJSON) + "." + Base64URL.encode(claims)
        let signature = try JWTSignature.sign(Data(signingInput.utf8), key: key, algorithm: algorithm)
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Reads a token without verifying it, e.g. to pick the key by `"kid"`. Header values that are
    /// not strings come back as their JSON text. Trust nothing in it until `verify` passed.
    public static func decodeUnverified(_ token: String) throws(JWTError) -> (header: [String: String], claims: Data) {
        let parts = try JWTParts(token)
        return (parts.header, parts.claims)
    }

    /// Verifies the signature with `key` (the token's `alg` must be the key's algorithm: `none` and
    /// an HS256 token against a public key are refused), then `exp` and `nbf` with `leeway`
    /// seconds, then `aud` (a string or an array) when `audience` is given.
    /// - Returns: the claims' JSON bytes.
    /// - Throws: `JWTError` with the reason, e.g. "token expired at 2026-03-01T10:00:00Z".
    public static func verify(
        _ token: String, key: JWTVerificationKey, audience: String?, now: Date = Date(), leeway: TimeInterval = 60
    ) throws(JWTError) -> Data {
        let parts = try JWTParts(token)
        guard let name = parts.header["alg"] else { throw JWTError.malformed("the header has no \"alg\"") }
        if name.lowercased() == "none" { throw JWTError(.algorithm, "algorithm none is not accepted") }
        guard let algorithm = JWTAlgorithm(rawValue: name) else {
            throw JWTError(.algorithm, "algorithm \(name) is not supported (ES256, RS256, PS256, HS256 are)")
        }
        guard algorithm == key.algorithm else {
            throw JWTError(
                .algorithm, "algorithm \(name) does not match the key, which is for \(key.algorithm.rawValue)")
        }
        // RFC 7515 §4.1.11: a token whose `crit` names an extension the recipient does not
        // understand must be refused. Tern understands none.
        if let critical = parts.critical {
            throw JWTError(
                .malformed,
                "the header's \"crit\" names \(critical.map { "\"\($0)\"" }.joined(separator: ", ")), "
                    + "which Tern does not understand (RFC 7515 §4.1.11)")
        }
        guard JWTSignature.verify(parts.signature, of: parts.signingInput, key: key, algorithm: algorithm) else {
            throw JWTError(.signature, "signature does not verify")
        }
        try JWTClaimsCheck(claims: parts.claims).check(audience: audience, now: now, leeway: leeway)
        return parts.claims
    }
}
