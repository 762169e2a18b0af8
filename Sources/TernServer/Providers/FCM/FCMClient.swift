import Foundation
import TernHTTP

/// Sends pushes to iOS devices through FCM HTTP v1 for one service account: one request per push,
/// multiplexed over HTTP/2, with an OAuth2 access token obtained by a signed service-account JWT
/// (RS256) and kept until it expires.
///
/// ```swift
/// let client = try FCMClient(account: serviceAccount)
/// let outcomes = await client.send(pushes)   // [deliveryId: DeliveryOutcome]
/// ```
public final class FCMClient: Sendable {
    /// Where FCM is and how many requests the client keeps in flight; the defaults talk to Google.
    public struct Options: Sendable {
        /// FCM's origin.
        var origin = URL(string: "https://fcm.googleapis.com")!
        /// Overrides the service account's `token_uri`.
        var tokenURL: URL?
        var caFile: String?
        var requestTimeout: TimeInterval = 10
        /// Pushes of one `send(_:)` batch in flight at once.
        var maxInFlight = 1000
        /// Connections at most; the next opens when the streams of those open run out.
        var maxConnections = 8
        /// Streams in flight per connection (Google's front ends allow 100).
        var streamsPerConnection = 100

        init(origin: URL = URL(string: "https://fcm.googleapis.com")!, caFile: String? = nil) {
            self.origin = origin
            self.caFile = caFile
        }
    }

    let options: Options
    let account: FCMServiceAccount
    let http: HTTP2Lanes
    let accessToken: AccessTokenCache
    private let clock: @Sendable () -> Date

    /// - Throws: `CredentialError` when the service account is unusable, `HTTP2ClientError` when the
    ///   HTTP/2 client cannot start.
    convenience init(account: FCMServiceAccount, options: Options = Options()) throws {
        try self.init(account: account, options: options, clock: Date.init)
    }

    init(account: FCMServiceAccount, options: Options, clock: @escaping @Sendable () -> Date) throws {
        let key = try account.signingKey()
        var configuration = HTTP2Client.Configuration(caFile: options.caFile, requestTimeout: options.requestTimeout)
        configuration.connectTimeout = min(configuration.connectTimeout, options.requestTimeout)
        configuration.maxResponseBytes = 64 << 10
        let http = try HTTP2Lanes(
            configuration: configuration, maxLanes: options.maxConnections, streamsPerLane: options.streamsPerConnection
        )
        let tokenURL =
            options.tokenURL ?? account.tokenURI.flatMap(URL.init(string:)) ?? FCMServiceAccount.defaultTokenURI
        let source = FCMAccessToken(
            account: account, key: key, tokenURL: tokenURL, http: http, timeout: options.requestTimeout, clock: clock)
        accessToken = AccessTokenCache(clock: clock) { try await source.fetch() }
        self.http = http
        self.account = account
        self.options = options
        self.clock = clock
    }

    /// Sends one push; every failure is an outcome.
    func send(_ push: OutgoingPush) async -> DeliveryOutcome {
        do {
            let token = try await accessToken.token()
            switch try await exchange(push, accessToken: token) {
            case .outcome(let outcome): return outcome
            case .renewAccessToken:
                await accessToken.invalidate(token)
                switch try await exchange(push, accessToken: try await accessToken.token()) {
                case .outcome(let outcome): return outcome
                case .renewAccessToken:
                    return .failed(
                        reason:
                            "FCM 401 UNAUTHENTICATED, also with a new access token: check the service account's permissions"
                    )
                }
            }
        } catch let error as DeliveryOutcomeError {
            return error.outcome
        } catch {
            return ProviderFailure.outcome(error, provider: "FCM")
        }
    }

    /// Sends a batch, up to `options.maxInFlight` at once; one outcome per delivery id.
    func send(_ pushes: [OutgoingPush]) async -> [Int64: DeliveryOutcome] {
        await Concurrently.map(pushes, limit: options.maxInFlight) { push in await self.send(push) }
    }

    private func exchange(_ push: OutgoingPush, accessToken: String) async throws -> FCMAnswer {
        let request = try FCMRequest.make(
            push, origin: options.origin, projectId: account.projectId, accessToken: accessToken,
            timeout: options.requestTimeout, now: clock())
        return FCMAnswer.read(try await http.send(request), now: clock())
    }
}
