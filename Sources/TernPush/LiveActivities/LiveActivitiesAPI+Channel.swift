import Foundation
import TernProtocol

extension LiveActivitiesAPI {
    /// The APNs broadcast channel id of a channel the project created on the server, for an iOS 18
    /// Live Activity that receives its updates by broadcast (`live-activity/channel`): one push to the
    /// channel reaches every device subscribed to it.
    ///
    /// ```swift
    /// let id = try await Tern.shared.push.liveActivities.channelId(named: "match-4471")
    /// let activity = try Activity.request(attributes: attributes, content: content, pushType: .channel(id))
    /// ```
    ///
    /// The server answers with the channel made for the device's APNs environment, so the call needs the
    /// device's push token: it runs after the calls made before it (a `push.token.setToken` among
    /// them), and throws ``LiveActivityChannelError/noPushToken`` when there is still none. It is a
    /// read, not written to the outbox: nothing is retried. A name's id does not change, so it is asked
    /// once per SDK instance and APNs environment; later calls answer from memory.
    ///
    /// Events: `liveActivityChannelRequestSuccessful` or `liveActivityChannelRequestFailed`; a refused
    /// name is `invalidLiveActivityRequestData`, with the `reason`.
    ///
    /// - Parameter name: The channel's name in the project, e.g. `match-4471`: not blank, at most
    ///   `LiveActivityChannelRequest.maxNameLength` characters, no control characters.
    /// - Returns: The channel id (base64), for ActivityKit's `PushType.channel(_:)`.
    /// - Throws: ``LiveActivityChannelError``: ``LiveActivityChannelError/invalidName(reason:)`` before
    ///   anything is sent; ``LiveActivityChannelError/channelNotFound(name:reason:)`` when the project has
    ///   no channel of that name (404); ``LiveActivityChannelError/requestFailed(httpCode:reason:)`` for
    ///   any other refusal, or no answer.
    public func channelId(named name: String) async throws -> String {
        let function = "channelId"
        if let problem = LiveActivityRules.problem(channelName: name) {
            core.emit(.error(function, LiveActivityEvents.invalidLiveActivityRequestData, value: ["reason": problem]))
            throw LiveActivityChannelError.invalidName(reason: problem)
        }
        guard let ready = await core.readyCore(function, timeout: 30) else {
            throw LiveActivityChannelError.notInitialized
        }
        let failed = { (error: LiveActivityChannelError, value: [String: any Sendable]) -> LiveActivityChannelError in
            var value = value
            value["reason"] = error.description
            ready.emit(.error(function, LiveActivityEvents.liveActivityChannelRequestFailed, value: value))
            return error
        }
        guard let token = await ready.token() else { throw failed(.noPushToken, [:]) }
        let channels = await LiveActivityChannels.shared(core)
        let key = LiveActivityChannels.Key(apnsEnvironment: ready.apnsEnvironment, name: name)
        if let id = await channels.id(key) { return id }

        let body = try JSONEncoder().encode(
            LiveActivityChannelRequest(provider: token.provider, subscriptionId: token.token, name: name))
        let answer: LiveActivityChannelAnswer
        do {
            let data = try await ready.read(.liveActivityChannel, body: body, requiresJWT: false)
            answer = try JSONDecoder().decode(LiveActivityChannelAnswer.self, from: data)
        } catch let error as DirectReadError {
            guard let code = error.httpCode else {
                throw failed(.requestFailed(httpCode: nil, reason: error.reason), [:])
            }
            let refusal: LiveActivityChannelError =
                code == 404
                ? .channelNotFound(name: name, reason: error.reason)
                : .requestFailed(httpCode: code, reason: error.reason)
            throw failed(refusal, ["http_code": code, "error_text": error.reason])
        } catch {
            throw failed(
                .requestFailed(httpCode: nil, reason: "the answer is not a Live Activity channel: \(error)"), [:])
        }
        guard !answer.channelId.isEmpty else {
            throw failed(.requestFailed(httpCode: nil, reason: "the server answered an empty channel id"), [:])
        }
        await channels.keep(answer.channelId, key)
        ready.emit(
            .info(
                function, LiveActivityEvents.liveActivityChannelRequestSuccessful,
                value: ["http_code": 200, "name": name]))
        return answer.channelId
    }
}

/// The channel ids `channelId(named:)` got, for one SDK instance: a name's id does not change, so
/// each is asked once per APNs environment.
actor LiveActivityChannels {
    struct Key: Hashable {
        var apnsEnvironment: APNsEnvironment
        var name: String
    }

    private var ids: [Key: String] = [:]

    /// The channels of `core`'s SDK instance.
    static func shared(_ core: CoreServices) async -> LiveActivityChannels {
        await core.slots.value("push.liveActivities.channels") { LiveActivityChannels() }
    }

    func id(_ key: Key) -> String? { ids[key] }

    func keep(_ id: String, _ key: Key) { ids[key] = id }
}
