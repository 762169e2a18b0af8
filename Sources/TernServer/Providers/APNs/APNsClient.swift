import Foundation
import TernHTTP

/// Sends pushes to APNs for one credential and one environment (sandbox or production): every
/// request is a stream on one multiplexed HTTP/2 connection (`HTTP2ConnectionPool`, straight on
/// libnghttp2 and OpenSSL, so a batch's frames leave in a few large writes), and a further
/// connection opens only when the first has no free stream. The provider token is signed once
/// and shared by all requests until it is renewed.
///
/// ```swift
/// let client = try APNsClient(credential: credential, origin: URL(string: "https://api.push.apple.com")!)
/// let outcome = await client.send(push)   // .sent(providerMessageId: "…apns-id…")
/// let outcomes = await client.send(batch) // [deliveryId: outcome]
/// ```
public final class APNsClient: Sendable {
    /// How the client uses its connections.
    public struct Options: Sendable {
        /// Seconds for one request; on timeout the push is retried later.
        var requestTimeout: TimeInterval = 10
        /// Connections at most; the next opens only when the streams of those open run out.
        public var maxConnections = 8
        /// Streams in flight per connection before the next connection opens. APNs allows up to
        /// 1,000 per connection; a lower SETTINGS value from APNs wins.
        public var maxStreamsPerConnection = 1000
        /// Pushes of one `send(_:)` batch handed to the connections at once; the rest follow as
        /// those are answered, so a large batch does not hold all its requests in memory.
        public var maxInFlight = 2000
        /// A PEM file of certificate authorities to trust instead of the system's.
        var caFile: String?
        /// Seconds after which the provider token is renewed (20 to 60 minutes).
        var tokenRefresh: TimeInterval = 40 * 60

        /// - Parameters:
        ///   - caFile: A PEM file of certificate authorities to trust instead of the system's (a test peer's).
        ///   - requestTimeout: Seconds a request (and the connection it needs) may take; 10 by default.
        public init(caFile: String? = nil, requestTimeout: TimeInterval = 10) {
            self.caFile = caFile
            self.requestTimeout = requestTimeout
        }
    }

    let origin: URL
    let options: Options
    let http: HTTP2ConnectionPool
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
        var configuration = HTTP2ConnectionPool.Configuration(
            caFile: options.caFile, maxConnections: options.maxConnections,
            maxStreamsPerConnection: options.maxStreamsPerConnection)
        configuration.requestTimeout = options.requestTimeout
        configuration.connectTimeout = min(configuration.connectTimeout, options.requestTimeout)
        configuration.maxResponseBytes = 64 << 10
        http = try HTTP2ConnectionPool(origin: origin, configuration: configuration)
        providerToken = APNsProviderToken(
            key: key, keyId: credential.keyId, teamId: credential.teamId, refreshAfter: options.tokenRefresh,
            clock: clock)
        defaultTopic = credential.topic
        self.origin = origin
        devicePath = APNsRequest.devicePath(origin)
        self.options = options
        self.clock = clock
    }

    /// Closes the connections: requests still waiting fail as `retry`, and the pool's threads
    /// have ended when this returns (within 2 s).
    func close() {
        http.close()
    }

    /// Sends one push; every failure is an outcome.
    public func send(_ push: OutgoingPush) async -> DeliveryOutcome {
        await sendChunk([push][...])[push.deliveryId]
            ?? .retry(after: nil, reason: "APNs: no outcome for the push")
    }

    /// Sends a batch, `options.maxInFlight` handed to the connections at a time; one outcome per
    /// delivery id. Pushes answered 403 `ExpiredProviderToken` go once more with a renewed token.
    public func send(_ pushes: [OutgoingPush]) async -> [Int64: DeliveryOutcome] {
        let chunk = max(1, options.maxInFlight / 2)
        let chunks = stride(from: 0, to: pushes.count, by: chunk).map { pushes[$0..<min($0 + chunk, pushes.count)] }
        // Two chunks in flight: while one drains, the next already fills the streams.
        return await Concurrently.merge(chunks, limit: 2) { chunk in await self.sendChunk(chunk) }
    }

    private func sendChunk(_ pushes: ArraySlice<OutgoingPush>) async -> [Int64: DeliveryOutcome] {
        var outcomes: [Int64: DeliveryOutcome] = [:]
        outcomes.reserveCapacity(pushes.count)
        let token: String
        do {
            token = try await providerToken.token()
        } catch {
            let outcome = (error as? DeliveryOutcomeError)?.outcome ?? ProviderFailure.outcome(error, provider: "APNs")
            for push in pushes { outcomes[push.deliveryId] = outcome }
            return outcomes
        }
        let expired = await exchange(pushes, token: token, into: &outcomes)
        guard !expired.isEmpty else { return outcomes }
        do {
            let renewed = try await providerToken.renew(replacing: token)
            let again = await exchange(expired[...], token: renewed, into: &outcomes)
            for push in again {
                outcomes[push.deliveryId] = .retry(
                    after: nil, reason: "APNs 403 ExpiredProviderToken, also for a freshly signed token")
            }
        } catch {
            let outcome = (error as? DeliveryOutcomeError)?.outcome ?? ProviderFailure.outcome(error, provider: "APNs")
            for push in expired { outcomes[push.deliveryId] = outcome }
        }
        return outcomes
    }

    /// Sends `pushes` with `token`, writing their outcomes; returns those APNs answered with
    /// 403 `ExpiredProviderToken`.
    private func exchange(
        _ pushes: ArraySlice<OutgoingPush>, token: String, into outcomes: inout [Int64: DeliveryOutcome]
    ) async -> [OutgoingPush] {
        let now = clock()
        var shared = APNsSharedFields(authorization: "bearer " + token)
        var requests: [HTTP2ConnectionPool.Request] = []
        var sent: [Int] = []
        requests.reserveCapacity(pushes.count)
        sent.reserveCapacity(pushes.count)
        for index in pushes.indices {
            do {
                requests.append(
                    try APNsRequest.make(
                        pushes[index], devicePath: devicePath, shared: &shared,
                        defaultTopic: defaultTopic, timeout: options.requestTimeout, now: now))
                sent.append(index)
            } catch {
                outcomes[pushes[index].deliveryId] = error.outcome
            }
        }
        let answers = await http.send(requests)
        let answeredAt = clock()
        var expired: [OutgoingPush] = []
        // Each push read in place: a copy of it retained and released its strings and payload.
        for (index, answer) in zip(sent, answers) {
            switch answer {
            case .success(let response):
                switch APNsAnswer.read(response, now: answeredAt) {
                case .outcome(let outcome): outcomes[pushes[index].deliveryId] = outcome
                case .renewProviderToken: expired.append(pushes[index])
                }
            case .failure(let error):
                outcomes[pushes[index].deliveryId] = ProviderFailure.outcome(error, provider: "APNs")
            }
        }
        return expired
    }
}
