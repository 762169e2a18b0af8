import Foundation
import TernProtocol

/// The identity endpoints as the journal calls them: authenticated by the configuration's rToken and
/// the installation (the device's provider and push token) in the body; no JWT header (a VERIFIED
/// login's proof travels in the body). Never logs a body.
struct IdentityClient: Sendable {
    let ready: ReadyCore

    /// What one call got.
    enum Result: Sendable {
        /// An HTTP answer, decoded when it was the identity envelope.
        case answer(status: Int, IdentityAnswer?, retryAfter: String?)
        /// No answer.
        case network(String)
    }

    func status(_ installation: TokenData) async -> Result {
        await post(
            .identityStatus,
            IdentityInstallationRequest(provider: installation.provider, subscriptionId: installation.token))
    }

    func policy(_ installation: TokenData) async -> Result {
        await post(
            .identityPolicy,
            IdentityInstallationRequest(provider: installation.provider, subscriptionId: installation.token))
    }

    func change(_ request: IdentityChangeRequest) async -> Result {
        await post(.identityChange, request)
    }

    private func post<Body: Encodable>(_ endpoint: Endpoint, _ body: Body) async -> Result {
        let configuration = ready.configuration
        guard let url = URL(string: configuration.apiUrl + "/" + endpoint.rawValue) else {
            return .network("cannot make a URL from apiUrl \(configuration.apiUrl)")
        }
        guard let data = try? JSONEncoder().encode(body) else { return .network("the request could not be encoded") }
        var headers = ["Content-Type": "application/json"]
        if let rToken = configuration.rToken { headers[Wire.rTokenHeader] = rToken }
        let request = TransportRequest(url: url, method: endpoint.method, headers: headers, body: data, timeout: 15)
        do {
            let response = try await ready.runtime.environment.transport.send(request)
            let answer = try? JSONDecoder().decode(IdentityAnswer.self, from: response.body)
            let retryAfter = response.headers.first { $0.key.lowercased() == "retry-after" }?.value
            return .answer(status: response.status, answer, retryAfter: retryAfter)
        } catch {
            return .network("\(error)")
        }
    }
}

/// The `identity.external_id` claim of a JWT, read without verifying it (the server verifies): how
/// `authenticate()` knows whom its JWT names.
enum IdentityClaims {
    static func externalId(_ jwt: String) -> String? {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
            let claims = try? JSONDecoder().decode(JSONValue.self, from: data),
            case .object(let root) = claims, case .object(let identity)? = root["identity"],
            case .string(let externalId)? = identity["external_id"], IdentityWire.problem(externalId: externalId) == nil
        else { return nil }
        return externalId
    }
}
