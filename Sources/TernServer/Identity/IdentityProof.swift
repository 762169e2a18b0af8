import Foundation
import TernProtocol

/// The JWT of a VERIFIED login: signed by the app owner's backend with one of the project's JWT keys
/// (picked by `kid`), `aud` the project's audience, integer `iat` and `exp` at most an hour apart,
/// and `identity.external_id` naming the person. Not bound to a device, a binding or an operation.
///
/// ```json
/// {"aud": "tern:1", "iat": 1767225600, "exp": 1767225900, "identity": {"external_id": "user-42"}}
/// ```
struct IdentityProof {
    let verifier: any TokenVerifier

    /// The external id the token proves, or a 401 naming `token` and the reason.
    func externalId(_ token: String, project: Project, keys: [JWTKeyRecord], now: Date) throws(IdentityError)
        -> String
    {
        let header: [String: String]
        do { header = try verifier.header(of: token) } catch { throw .token(error.reason) }
        guard let algorithm = header["alg"], algorithm.lowercased() != "none" else {
            throw .token("JWT rejected: alg none (or no alg) is not accepted; sign the token")
        }
        guard let kid = header["kid"], !kid.isEmpty else {
            throw .token("JWT rejected: the header has no kid; name the key the token was signed with")
        }
        let candidates = keys.filter { $0.kid == kid }
        guard !candidates.isEmpty else {
            throw .token(
                "JWT rejected: no key with kid \"\(kid.prefix(64))\" in project \(project.id); add it (tern jwt-keys add)"
            )
        }
        var failure = IdentityError.token("JWT rejected")
        for key in candidates {
            do {
                let claims = try verifier.verify(token, key: key, audience: project.audience, now: now)
                return try Self.externalId(claims: claims)
            } catch let error as APIError {
                failure = .token(error.reason)
            } catch let error as IdentityError {
                throw error
            } catch {
                failure = .token("JWT rejected: \(error)")
            }
        }
        throw failure
    }

    /// Reads `iat`, `exp` and `identity.external_id` out of verified claims.
    static func externalId(claims: Data) throws(IdentityError) -> String {
        guard case .object(let root)? = try? JSONCoders.decoder.decode(JSONValue.self, from: claims) else {
            throw .token("JWT rejected: its claims are not a JSON object")
        }
        guard case .int(let issued)? = root["iat"] else {
            throw .token("JWT rejected: iat must be an integer number of seconds")
        }
        guard case .int(let expires)? = root["exp"] else {
            throw .token("JWT rejected: exp must be an integer number of seconds")
        }
        let lifetime = IdentityWire.tokenLifetime
        guard lifetime.contains(expires - issued) else {
            throw .token(
                "JWT rejected: exp − iat is \(expires - issued) s; an identity token lives "
                    + "\(lifetime.lowerBound) to \(lifetime.upperBound) s")
        }
        guard case .object(let identity)? = root["identity"], case .string(let externalId)? = identity["external_id"]
        else {
            throw .token("JWT rejected: the identity.external_id claim is missing; name the person the token proves")
        }
        if let problem = IdentityWire.problem(externalId: externalId) {
            throw .token("JWT rejected: identity.\(problem)")
        }
        return externalId
    }
}
