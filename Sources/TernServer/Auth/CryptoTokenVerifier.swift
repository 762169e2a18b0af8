import Foundation
import Synchronization
import TernCrypto

/// ``TokenVerifier`` over TernCrypto (OpenSSL): ES256, RS256, PS256 with PEM public keys, HS256 with
/// a shared secret (its UTF-8 bytes).
struct CryptoTokenVerifier: TokenVerifier {
    /// Seconds of clock skew allowed on `exp` and `nbf`.
    let leeway: TimeInterval
    /// Shortest HS256 secret accepted, in bytes.
    static let minimumSecretBytes = 32

    init(leeway: TimeInterval = 30) {
        self.leeway = leeway
    }

    func header(of token: String) throws(APIError) -> [String: String] {
        do {
            return try JWT.decodeUnverified(token).header
        } catch {
            throw .unauthorized("JWT rejected: \(error.reason)")
        }
    }

    func verify(_ token: String, key: JWTKeyRecord, audience: String, now: Date) throws(APIError) -> Data {
        let verificationKey = try Self.cachedKey(key.key, algorithm: key.algorithm)
        let claims: Data
        do {
            claims = try JWT.verify(token, key: verificationKey, audience: audience, now: now, leeway: leeway)
        } catch {
            throw .unauthorized("JWT rejected: \(error.reason)")
        }
        let object = (try? JSONSerialization.jsonObject(with: claims)) as? [String: Any]
        guard object?["exp"] is NSNumber else {
            throw .unauthorized("JWT rejected: the exp claim is required; give the token an expiry")
        }
        return claims
    }

    /// Parsed keys by algorithm and text: a PEM is parsed once, not on every request that carries a
    /// JWT. Bounded; a full cache starts over.
    private static let parsed = Mutex<[String: JWTVerificationKey]>([:])
    private static let parsedLimit = 1024

    static func cachedKey(_ key: String, algorithm: String) throws(APIError) -> JWTVerificationKey {
        let cacheKey = algorithm + "\u{0}" + key
        if let known = parsed.withLock({ $0[cacheKey] }) { return known }
        let made = try verificationKey(key, algorithm: algorithm)
        parsed.withLock { cache in
            if cache.count >= parsedLimit { cache.removeAll() }
            cache[cacheKey] = made
        }
        return made
    }

    func checkKey(_ key: String, algorithm: String) throws(APIError) {
        _ = try Self.verificationKey(key, algorithm: algorithm, status: 400)
    }

    static func verificationKey(_ key: String, algorithm: String, status: Int = 401) throws(APIError)
        -> JWTVerificationKey
    {
        guard let algorithm = JWTAlgorithm(rawValue: algorithm) else {
            let known = JWTAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")
            throw APIError(status: status, reason: "algorithm \(algorithm.prefix(16)) is not supported: use \(known)")
        }
        if algorithm == .hs256 {
            guard key.utf8.count >= minimumSecretBytes else {
                throw APIError(
                    status: status, reason: "the HS256 secret must be at least \(minimumSecretBytes) bytes long")
            }
            return JWTVerificationKey.hmac(Data(key.utf8))
        }
        do {
            return try JWTVerificationKey.pem(key, algorithm: algorithm)
        } catch let error as JWTError {
            throw APIError(status: status, reason: "the key for \(algorithm.rawValue) is not usable: \(error.reason)")
        } catch {
            throw APIError(status: status, reason: "the key for \(algorithm.rawValue) is not usable: \(error)")
        }
    }
}
