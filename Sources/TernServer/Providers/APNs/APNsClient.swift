import Foundation
import TernHTTP

/// Sends pushes to APNs for one credential and one environment (sandbox or production): every
/// request is a stream on one multiplexed HTTP/2 connection (libcurl's multi interface), and a
/// further connection opens only when the first has no free stream. The provider token is signed
/// once and shared by all requests until it is renewed.
///
/// ```swift
/// let client = try APNsClient(credential: credential, origin: URL(string: "https://api.push.apple.com")!)
/// let outcome = await client.send(push)   // .sent(providerMessageId: "…apns-id…")
/// ```
public final class APNsClient: Sendable {
    /// How the client uses its connections.
    public struct Options: Sendable {
        /// Seconds for one request; on timeout the push is retried later.
        public var requestTimeout: TimeInterval = 10
        /// Connections at most; the next opens only when the streams of those open run out.
        public var maxConnections = 8
        /// Streams in flight per connection before the next connection opens. APNs allows up to
        /// 1,000 per connection (fewer under load; a lower SETTINGS value from APNs wins and the
        /// extra requests wait on that connection). 100 keeps libcurl 7.88, whose HTTP/2 uploads
        /// slow down as streams per connection grow, in its fast range (see bench/apns).
        public var maxStreamsPerConnection = 100
        /// Pushes of one `send(_:)` batch in flight at once.
        public var maxInFlight = 2000
        /// A PEM file of certificate authorities to trust instead of the system's.
        public var caFile: String?
        /// Seconds after which the provider token is renewed (20 to 60 minutes).
        public var tokenRefresh: TimeInterval = 40 * 60

        public init(caFile: String? = nil, requestTimeout: TimeInterval = 10) {
            self.caFile = caFile
            self.requestTimeout = requestTimeout
        }
    }

    public let origin: URL
    public let options: Options
    let http: HTTP2Lanes
    let providerToken: APNsProviderToken
    private let defaultTopic: String?
    private let devicePath: String
    private let clock: @Sendable () -> Date

    /// - Throws: `CredentialError` when the credential is unusable, `HTTP2ClientError` when the
    ///   HTTP/2 client cannot start (a CA file that cannot be read, say).
    public convenience init(credential: APNsCredential, origin: URL, options: Options = Options()) throws {
        try self.init(credential: credential, origin: origin, options: options, clock: Date.init)
    }

    init(
        credential: APNsCredential, origin: URL, options: Options, clock: @escaping @Sendable () -> Date
    ) throws {
        let key = try credential.signingKey()
        var configuration = HTTP2Client.Configuration(caFile: options.caFile, requestTimeout: options.requestTimeout)
        configuration.connectTimeout = min(configuration.connectTimeout, options.requestTimeout)
        configuration.maxResponseBytes = 64 << 10
        http = try HTTP2Lanes(
            configuration: configuration, maxLanes: options.maxConnections,
            streamsPerLane: options.maxStreamsPerConnection)
        providerToken = APNsProviderToken(
            key: key, keyId: credential.keyId, teamId: credential.teamId, refreshAfter: options.tokenRefresh,
            clock: clock)
        defaultTopic = credential.topic
        self.origin = origin
        devicePath = APNsRequest.devicePath(origin)
        self.options = options
        self.clock = clock
    }

    /// Sends one push; every failure is an outcome.
    public func send(_ push: OutgoingPush) async -> DeliveryOutcome {
        do {
            let token = try await providerToken.token()
            switch try await exchange(push, token: token) {
            case .outcome(let outcome): return outcome
            case .renewProviderToken:
                let renewed = try await providerToken.renew(replacing: token)
                switch try await exchange(push, token: renewed) {
                case .outcome(let outcome): return outcome
                case .renewProviderToken:
                    return .retry(after: nil, reason: "APNs 403 ExpiredProviderToken, also for a freshly signed token")
                }
            }
        } catch let error as DeliveryOutcomeError {
            return error.outcome
        } catch {
            return ProviderFailure.outcome(error, provider: "APNs")
        }
    }

    /// Sends a batch, up to `options.maxInFlight` at once; one outcome per delivery id.
    public func send(_ pushes: [OutgoingPush]) async -> [Int64: DeliveryOutcome] {
        await Concurrently.map(pushes, limit: options.maxInFlight) { push in await self.send(push) }
    }

    private func exchange(_ push: OutgoingPush, token: String) async throws -> APNsAnswer {
        let request = try APNsRequest.make(
            push, devicePath: devicePath, providerToken: token, defaultTopic: defaultTopic,
            timeout: options.requestTimeout,
            now: clock())
        return APNsAnswer.read(try await http.send(request), now: clock())
    }
}
