import Foundation
import TernProtocol

/// How APNs shows a push: an alert the user sees, or a silent background update.
public enum PushType: String, Codable, Sendable, CaseIterable {
    /// A visible notification: title, body, sound or badge (APNs priority 10 unless the message says 5).
    case alert
    /// A silent update the app handles in the background (`content-available`, always priority 5).
    case background
    /// An ActivityKit push: a Live Activity's update, end or start (`apns-push-type: liveactivity`,
    /// to the app's topic with `.push-type.liveactivity` after it).
    case liveActivity = "liveactivity"
}

/// One notification to one device, as the delivery engine hands it to a provider's client.
///
/// The engine builds ``payload`` once per message (see `PushPayloadBuilder`); a provider client
/// only adds its own envelope and headers.
public struct OutgoingPush: Sendable, Equatable {
    /// The outbox row; the client answers an outcome under this id.
    public var deliveryId: Int64
    var messageId: String
    var projectId: Int64
    var provider: PushProvider
    var token: String
    /// The APNs JSON: `aps`, the `tern` object and the message's custom data as top-level keys.
    public var payload: Data
    var pushType: PushType
    /// APNs priority 10 or 5; background pushes always go with 5.
    var priority: Int?
    /// When the provider should stop trying (from the message's time to live).
    var expiration: Date?
    var collapseId: String?
    /// The app's bundle id (the APNs topic).
    var topic: String?
    var environment: APNsEnvironment

    /// A push for one delivery.
    ///
    /// - Parameters:
    ///   - deliveryId: The outbox row the outcome is recorded under.
    ///   - messageId: The message's public id (the push id is `messageId.deliveryId`).
    ///   - projectId: The project whose credentials send it.
    ///   - provider: The provider and platform of the token.
    ///   - token: The device's push token.
    ///   - payload: The complete APNs JSON.
    ///   - pushType: An alert or a background push.
    ///   - priority: APNs priority 10 or 5; nil for the provider's default.
    ///   - expiration: When the provider should stop trying; nil for the provider's default.
    ///   - collapseId: Pushes with the same id replace each other on the device; nil for none.
    ///   - topic: The APNs topic (the app's bundle id); nil for the credential's.
    ///   - environment: The APNs gateway the token belongs to; production by default.
    public init(
        deliveryId: Int64, messageId: String, projectId: Int64, provider: PushProvider, token: String, payload: Data,
        pushType: PushType, priority: Int? = nil, expiration: Date? = nil, collapseId: String? = nil,
        topic: String? = nil, environment: APNsEnvironment = .production
    ) {
        self.deliveryId = deliveryId
        self.messageId = messageId
        self.projectId = projectId
        self.provider = provider
        self.token = token
        self.payload = payload
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
        self.topic = topic
        self.environment = environment
    }
}

/// What became of one push.
public enum DeliveryOutcome: Sendable, Equatable {
    /// The provider accepted it.
    case sent(providerMessageId: String?)
    /// The token is dead. `since` is when the provider learned so (APNs 410 carries it); the engine
    /// marks the token invalid only if the device did not register it again after that moment.
    case invalidToken(reason: String, since: Date?)
    /// Permanent for this delivery (payload too large, wrong topic, bad credentials, …).
    case failed(reason: String)
    /// Temporary (429, 5xx, network): the engine tries again, not before `after` seconds if given.
    case retry(after: TimeInterval?, reason: String)
}

/// A provider's client, as the delivery engine sees it.
///
/// ```swift
/// let outcomes = await apns.send(batch)   // [deliveryId: DeliveryOutcome]
/// ```
public protocol PushSender: Sendable {
    /// The provider this sender serves.
    var provider: PushProvider { get }
    /// Sends a batch; answers one outcome per deliveryId. Must not throw: every failure is an outcome.
    /// A deliveryId missing from the answer is treated as `.retry(after: nil, reason: "no outcome")`.
    func send(_ pushes: [OutgoingPush]) async -> [Int64: DeliveryOutcome]
    /// Closes the provider's connections once the engine has stopped (the server is stopping).
    func close() async
}

extension PushSender {
    /// Nothing to close: the sender holds no connection of its own.
    public func close() async {}
}
