import Foundation

/// Verifies JWTs: the port between the server's auth and the crypto library.
protocol TokenVerifier: Sendable {
    /// The token's JOSE header, read without verifying anything.
    func header(of token: String) throws(APIError) -> [String: String]

    /// Verifies the signature with `key`, `exp` (required), `nbf` and `aud`; returns the claims JSON.
    /// Throws a 401 whose reason starts with `JWT rejected:`.
    func verify(_ token: String, key: JWTKeyRecord, audience: String, now: Date) throws(APIError) -> Data

    /// Checks that `key` (a PEM public key, or an HS256 secret) can verify tokens of `algorithm`.
    func checkKey(_ key: String, algorithm: String) throws(APIError)
}
