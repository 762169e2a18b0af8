import Foundation
import TernHTTP

/// Sends pushes to iOS devices through HMS Push Kit for one app: pushes of the same message go
/// together, up to 1,000 tokens per request, with an OAuth client-credentials access token kept
/// until it expires (renewed at once when HMS answers 80200003).
///
/// ```swift
/// let client = try HMSClient(credential: HMSCredential(appId: "104123456", clientSecret: secret))
/// let outcomes = await client.send(pushes)   // [deliveryId: DeliveryOutcome]
/// ```
public final class HMSClient: Sendable {
    /// Where Push Kit is and how many requests the client keeps in flight; the defaults talk to Huawei.
    public struct Options: Sendable {
        /// Push Kit's origin.
        var origin = URL(string: "https://push-api.cloud.huawei.com")!
        /// The OAuth token endpoint.
        var tokenURL = URL(string: "https://oauth-login.cloud.huawei.com/oauth2/v3/token")!
        var caFile: String?
        var requestTimeout: TimeInterval = 10
        /// Requests (of up to 1,000 tokens each) in flight at once.
        var maxInFlight = 16

        init(origin: URL, tokenURL: URL, caFile: String? = nil) {
            self.origin = origin
            self.tokenURL = tokenURL
            self.caFile = caFile
        }

        init() {}
    }

    let options: Options
    let credential: HMSCredential
    let http: HTTP2Lanes
    let accessToken: AccessTokenCache
    private let clock: @Sendable () -> Date

    /// - Throws: `CredentialError` when the credential is unusable, `HTTP2ClientError` when the
    ///   HTTP/2 client cannot start.
    convenience init(credential: HMSCredential, options: Options = Options()) throws {
        try self.init(credential: credential, options: options, clock: Date.init)
    }

    init(credential: HMSCredential, options: Options, clock: @escaping @Sendable () -> Date) throws {
        try credential.validate()
        var configuration = HTTP2Client.Configuration(caFile: options.caFile, requestTimeout: options.requestTimeout)
        configuration.connectTimeout = min(configuration.connectTimeout, options.requestTimeout)
        configuration.maxResponseBytes = 1 << 20
        let http = try HTTP2Lanes(configuration: configuration, maxLanes: 2, streamsPerLane: 100)
        let body = FormBody.encode([
            ("grant_type", "client_credentials"), ("client_id", credential.oauthClientId),
            ("client_secret", credential.clientSecret),
        ])
        let tokenURL = options.tokenURL
        let timeout = options.requestTimeout
        accessToken = AccessTokenCache(clock: clock) {
            try await OAuthExchange.post(
                body, to: tokenURL, http: http, timeout: timeout, now: clock(), provider: "HMS",
                fix: "check the app id and client secret of the project's HMS credentials")
        }
        self.http = http
        self.credential = credential
        self.options = options
        self.clock = clock
    }

    /// Sends a batch of pushes; one outcome per delivery id.
    func send(_ pushes: [OutgoingPush]) async -> [Int64: DeliveryOutcome] {
        var outcomes: [Int64: DeliveryOutcome] = [:]
        var ready: [OutgoingPush] = []
        let now = clock()
        for push in pushes {
            do throws(DeliveryOutcomeError) {
                _ = try APNsHeaderFields.json(push, provider: "HMS", now: now)
                guard !push.token.isEmpty else {
                    throw DeliveryOutcomeError.invalidToken(reason: "HMS: the token is empty", since: nil)
                }
                ready.append(push)
            } catch {
                outcomes[push.deliveryId] = error.outcome
            }
        }
        let sent = await Concurrently.merge(HMSBatch.make(ready), limit: options.maxInFlight) { batch in
            await self.send(batch)
        }
        return outcomes.merging(sent) { $1 }
    }

    private func send(_ batch: HMSBatch) async -> [Int64: DeliveryOutcome] {
        do {
            let token = try await accessToken.token()
            var answer = try await exchange(batch, accessToken: token)
            if answer == .renewAccessToken {
                await accessToken.invalidate(token)
                answer = try await exchange(batch, accessToken: try await accessToken.token())
            }
            return outcomes(answer, batch)
        } catch let error as DeliveryOutcomeError {
            return outcomes(.all(error.outcome), batch)
        } catch {
            return outcomes(.all(ProviderFailure.outcome(error, provider: "HMS")), batch)
        }
    }

    private func outcomes(_ answer: HMSAnswer, _ batch: HMSBatch) -> [Int64: DeliveryOutcome] {
        var outcomes: [Int64: DeliveryOutcome] = [:]
        for push in batch.pushes {
            switch answer {
            case .sent(let requestId, let illegal, let reason):
                outcomes[push.deliveryId] =
                    illegal.contains(push.token)
                    ? .invalidToken(reason: reason, since: nil) : .sent(providerMessageId: requestId)
            case .all(let outcome):
                outcomes[push.deliveryId] = outcome
            case .renewAccessToken:
                outcomes[push.deliveryId] = .retry(
                    after: nil, reason: "HMS 80200003: the access token expired again right after renewal")
            }
        }
        return outcomes
    }

    private func exchange(_ batch: HMSBatch, accessToken: String) async throws -> HMSAnswer {
        let push = batch.first
        let headers = try APNsHeaderFields.json(push, provider: "HMS", now: clock())
        var body = Data(#"{"validate_only":false,"message":{"token":"#.utf8)
        body.append((try? JSONSerialization.data(withJSONObject: batch.tokens)) ?? Data("[]".utf8))
        body.append(contentsOf: #","apns":{"headers":"#.utf8)
        body.append(headers)
        body.append(contentsOf: #","payload":"#.utf8)
        body.append(push.payload)
        // 1: test users (sandbox builds), 2: everyone else.
        body.append(
            contentsOf: #","hms_options":{"target_user_type":\#(push.environment == .sandbox ? 1 : 2)}}}}"#.utf8)
        let request = HTTP2Request(
            method: "POST", url: options.origin.appendingPathComponent("v1/\(credential.appId)/messages:send"),
            headers: [("authorization", "Bearer " + accessToken), ("content-type", "application/json")], body: body,
            timeout: options.requestTimeout)
        return HMSAnswer.read(try await http.send(request), now: clock())
    }
}
