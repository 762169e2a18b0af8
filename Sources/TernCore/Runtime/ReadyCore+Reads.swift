import Foundation
import TernProtocol

/// A read a module makes itself (not through the outbox): nothing to keep or retry, the answer is
/// wanted now (the inbox's list, the person's preferences).
public struct DirectReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status, nil when there was no answer.
    public let httpCode: Int?
    /// Why, in words a person can act on (the server's `error_text` when it gave one).
    public let reason: String

    /// A failed read.
    public init(httpCode: Int?, reason: String) {
        self.httpCode = httpCode
        self.reason = reason
    }

    public var description: String { httpCode.map { "HTTP \($0): \(reason)" } ?? reason }
}

extension ReadyCore {
    /// Sends `body` to `endpoint` now with the current credentials and returns the answer's body on
    /// 2xx; throws ``DirectReadError`` otherwise.
    ///
    /// - Parameters:
    ///   - endpoint: What to read.
    ///   - body: The request's JSON body.
    ///   - timeout: How long to wait for the answer, in seconds.
    ///   - requiresJWT: True (the default) for a signed-in person's reads (the inbox, preferences):
    ///     refused without a JWT. False for a device's reads, which the rToken is enough for.
    public func read(_ endpoint: Endpoint, body: Data, timeout: TimeInterval = 15, requiresJWT: Bool = true)
        async throws -> Data
    {
        guard let url = URL(string: configuration.apiUrl + "/" + endpoint.rawValue) else {
            throw DirectReadError(httpCode: nil, reason: "cannot make a URL from apiUrl \(configuration.apiUrl)")
        }
        let credentials = await auth.credentials(rToken: configuration.rToken)
        if requiresJWT, credentials.headers[Wire.authorizationHeader] == nil {
            throw DirectReadError(
                httpCode: nil,
                reason: "no JWT: \(endpoint.rawValue) is a signed-in person's; set the JWT provider and authenticate")
        }
        guard !credentials.isEmpty else {
            throw DirectReadError(
                httpCode: nil, reason: "no credentials: the JWT provider gave nil and the configuration has no rToken")
        }
        var headers = credentials.headers
        headers["Content-Type"] = "application/json"
        let request = TransportRequest(
            url: url, method: endpoint.method, headers: headers, body: body, timeout: timeout)
        let response: TransportResponse
        do {
            response = try await runtime.environment.transport.send(request)
        } catch {
            throw DirectReadError(httpCode: nil, reason: "\(error)")
        }
        guard (200..<300).contains(response.status) else {
            let envelope = try? JSONDecoder().decode(ResponseEnvelope.self, from: response.body)
            throw DirectReadError(
                httpCode: response.status, reason: envelope?.errorText ?? "the server answered \(response.status)")
        }
        return response.body
    }
}
