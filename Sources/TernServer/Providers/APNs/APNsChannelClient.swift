import Foundation
import TernHTTP

/// APNs' broadcast channels (iOS 18) for one credential and environment: made and removed through
/// the channel management service (`POST` and `DELETE /1/apps/{bundle id}/channels`, on its own
/// host and port), and one push sent to every device subscribed to a channel
/// (`POST /4/broadcasts/apps/{bundle id}` with `apns-channel-id`, on the usual push host).
///
/// ```swift
/// let client = try APNsChannelClient(credential: credential, bundleId: "com.example.app",
///     management: URL(string: "https://api-manage-broadcast.push.apple.com:2196")!,
///     push: URL(string: "https://api.push.apple.com")!)
/// let channel = try await client.create(storage: .mostRecent)   // "dHN0LXNyY2gtY2hubA=="
/// let sent = try await client.broadcast(channel, payload: payload, priority: 10, expiration: nil)
/// ```
final class APNsChannelClient: Sendable {
    /// What APNs keeps of a channel's pushes for a device that is offline
    /// (`message-storage-policy`).
    enum Storage: String, Sendable, CaseIterable {
        /// Nothing: a device offline when the push went misses it (`0`).
        case none
        /// The newest push, delivered when the device is back (`1`).
        case mostRecent = "most_recent"

        var policy: Int { self == .none ? 0 : 1 }
    }

    /// What APNs said of a broadcast it accepted.
    struct Sent: Sendable, Equatable {
        /// `apns-request-id`: the request's id.
        var requestId: String?
        /// `apns-unique-id`: the push's id in APNs' delivery log (development environment).
        var uniqueId: String?
    }

    let bundleId: String
    private let management: HTTP2ConnectionPool
    private let push: HTTP2ConnectionPool
    private let providerToken: APNsProviderToken
    private let timeout: TimeInterval

    /// - Throws: `CredentialError` when the credential is unusable, `HTTP2ClientError` when a
    ///   client cannot start.
    init(
        credential: APNsCredential, bundleId: String, management: URL, push: URL, caFile: String? = nil,
        timeout: TimeInterval = 10
    ) throws {
        let key = try credential.signingKey()
        var configuration = HTTP2ConnectionPool.Configuration(caFile: caFile, maxConnections: 1)
        configuration.requestTimeout = timeout
        configuration.connectTimeout = min(configuration.connectTimeout, timeout)
        configuration.maxResponseBytes = 64 << 10
        self.management = try HTTP2ConnectionPool(origin: management, configuration: configuration)
        self.push = try HTTP2ConnectionPool(origin: push, configuration: configuration)
        providerToken = APNsProviderToken(key: key, keyId: credential.keyId, teamId: credential.teamId)
        self.bundleId = bundleId
        self.timeout = timeout
    }

    func close() {
        management.close()
        push.close()
    }

    private var channelsPath: String { "/1/apps/\(bundleId)/channels" }

    /// Makes a channel for Live Activities; answers its id (base64, `apns-channel-id`).
    func create(storage: Storage) async throws(APNsChannelError) -> String {
        let body = Data("{\"message-storage-policy\":\(storage.policy),\"push-type\":\"LiveActivity\"}".utf8)
        let response = try await exchange(on: management) { token in
            .init(
                method: "POST", path: channelsPath,
                headers: [("authorization", "bearer " + token), ("content-type", "application/json")], body: body)
        }
        guard response.status == 201 || response.status == 200 else { throw APNsChannelError(response) }
        guard let id = response.header("apns-channel-id"), !id.isEmpty else {
            throw APNsChannelError(status: response.status, reason: "the answer carries no apns-channel-id")
        }
        return id
    }

    /// Removes the channel; one APNs no longer knows is removed already.
    func delete(_ channelId: String) async throws(APNsChannelError) {
        let response = try await exchange(on: management) { token in
            .init(
                method: "DELETE", path: channelsPath,
                headers: [("authorization", "bearer " + token), ("apns-channel-id", channelId)])
        }
        if response.status == 200 || response.status == 204 { return }
        let failure = APNsChannelError(response)
        if failure.reason == "ChannelNotRegistered" { return }
        throw failure
    }

    /// Sends `payload` to every device subscribed to the channel.
    func broadcast(_ channelId: String, payload: Data, priority: Int, expiration: Int64?)
        async throws(APNsChannelError) -> Sent
    {
        let requestId = UUID().uuidString.lowercased()
        let response = try await exchange(on: push) { token in
            var headers = [
                ("authorization", "bearer " + token), ("apns-channel-id", channelId),
                ("apns-push-type", "liveactivity"), ("apns-priority", String(priority)),
                ("apns-request-id", requestId),
            ]
            if let expiration { headers.append(("apns-expiration", String(expiration))) }
            return .init(method: "POST", path: "/4/broadcasts/apps/\(bundleId)", headers: headers, body: payload)
        }
        guard response.status == 200 else { throw APNsChannelError(response) }
        return Sent(
            requestId: response.header("apns-request-id") ?? requestId, uniqueId: response.header("apns-unique-id"))
    }

    /// One request made with the current provider token; once more with a new token when APNs
    /// says the token expired.
    private func exchange(
        on pool: HTTP2ConnectionPool, _ request: (String) -> HTTP2ConnectionPool.Request
    ) async throws(APNsChannelError) -> HTTP2Response {
        do {
            let token = try await providerToken.token()
            let response = try await pool.send(request(token))
            guard response.status == 403, APNsChannelError(response).reason == "ExpiredProviderToken" else {
                return response
            }
            return try await pool.send(request(try await providerToken.renew(replacing: token)))
        } catch let error as APNsChannelError {
            throw error
        } catch {
            throw APNsChannelError(status: nil, reason: "no answer from APNs: \(error)")
        }
    }
}

/// APNs refused a channel request, or did not answer: its status and reason (e.g. 400
/// `BadChannelId`, 404 `ChannelNotRegistered`, 429 `TooManyRequests`, 400
/// `CannotCreateChannelConfig` past the 10,000 channels an app may have in an environment).
struct APNsChannelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// nil: no answer came (a connection or a timeout).
    let status: Int?
    let reason: String

    init(status: Int?, reason: String) {
        self.status = status
        self.reason = reason
    }

    init(_ response: HTTP2Response) {
        struct Body: Decodable { let reason: String? }
        status = response.status
        reason = (try? JSONDecoder().decode(Body.self, from: response.body))?.reason ?? "no reason given"
    }

    var description: String { status.map { "APNs \($0) \(reason)" } ?? "APNs: \(reason)" }
}
