import Foundation
import TernProtocol

/// The credentials attached to each request at send time: `Authorization: Bearer <JWT>` from the
/// app's ``JWTInterface`` (one call in flight however many requests wait for it) and
/// `X-Tern-RToken` from the configuration. Public for Tern's modules.
public actor AuthSource {
    private var provider: (any JWTInterface)?
    private var inFlight: Task<String?, Never>?

    /// Creates a source with no JWT provider: requests carry only the rToken, if any.
    public init() {}

    /// Sets the app's JWT provider, or removes it with nil; a token request already in flight is
    /// forgotten, so the next request asks the new provider.
    ///
    /// - Parameter provider: What ``jwt()`` asks for a token; nil to authenticate with the rToken only.
    public func setProvider(_ provider: (any JWTInterface)?) {
        self.provider = provider
        inFlight = nil
    }

    /// True when a JWT provider is set (requests are then sent with `Authorization: Bearer`).
    public var hasProvider: Bool { provider != nil }

    /// Asks the provider for a token, sharing one call among every concurrent caller. The provider
    /// may block; it runs on a global queue, never on the caller's executor.
    public func jwt() async -> String? {
        if let inFlight { return await inFlight.value }
        guard let provider else { return nil }
        let task = Task<String?, Never> {
            await withCheckedContinuation { continuation in
                DispatchQueue.global(qos: .utility).async {
                    continuation.resume(returning: provider.getToken())
                }
            }
        }
        inFlight = task
        let token = await task.value
        if inFlight == task { inFlight = nil }
        return token
    }

    /// What to attach to a request.
    public struct Credentials: Sendable, Equatable {
        /// The headers to add: `Authorization: Bearer <JWT>` and/or `X-Tern-RToken`.
        public var headers: [String: String]
        /// True when a JWT provider is set but gave nothing.
        public var jwtMissing: Bool
        /// True when there is nothing to authenticate the request with.
        public var isEmpty: Bool { headers.isEmpty }
    }

    /// The headers for a request under `configuration`.
    public func credentials(rToken: String?) async -> Credentials {
        var headers: [String: String] = [:]
        var jwtMissing = false
        if provider != nil {
            if let token = await jwt(), !token.isEmpty {
                headers[Wire.authorizationHeader] = "Bearer " + token
            } else {
                jwtMissing = true
            }
        }
        if let rToken, !rToken.isEmpty {
            headers[Wire.rTokenHeader] = rToken
        }
        return Credentials(headers: headers, jwtMissing: jwtMissing)
    }
}
