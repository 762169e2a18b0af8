import Foundation

/// `live-activity/token`: a Live Activity's push token, or the device's push-to-start token for an
/// activity type, for the device that `provider` and `subscription_id` name (its push
/// subscription, which the server finds the person by).
///
/// A token with an ``activityId`` receives the server's updates and its end of that activity
/// (`apns-push-type: liveactivity`); one without is the push-to-start token (iOS 17.2 and later)
/// a start of an activity of ``activityType`` goes to. A new token for the same device and activity
/// (or type) replaces the one before.
///
/// ```json
/// {"time": 1765000000000, "provider": "ios-apns", "subscription_id": "8a1f…",
///  "activity_type": "DeliveryAttributes", "activity_id": "order-1001", "token": "80a3…"}
/// ```
public struct LiveActivityTokenRequest: Codable, Sendable, Equatable {
    /// When the app received the token, in milliseconds since 1970: the server keeps the newest.
    public var time: Int64
    /// The device's push provider, e.g. `ios-apns`: with ``subscriptionId``, the device.
    public var provider: String
    /// The device's push token (`subscription_id`).
    public var subscriptionId: String
    /// The name of the app's `ActivityAttributes` type (`activity_type`), e.g. `DeliveryAttributes`:
    /// what a start names as its `attributes-type`.
    public var activityType: String
    /// The app's own id of the activity (`activity_id`), the same on every device that follows it
    /// (an order, a match); nil for a push-to-start token.
    public var activityId: String?
    /// The ActivityKit push token, in hexadecimal.
    public var token: String
    /// The APNs environment the token belongs to (`apns_environment`); nil: the device's.
    public var apnsEnvironment: APNsEnvironment?

    /// The longest activity type and activity id the server takes, in characters.
    public static let maxNameLength = 128

    /// A token to register.
    ///
    /// - Parameters:
    ///   - time: When the app received it, in milliseconds since 1970.
    ///   - provider: The device's push provider.
    ///   - subscriptionId: The device's push token.
    ///   - activityType: The `ActivityAttributes` type's name.
    ///   - activityId: The app's id of the activity; nil for a push-to-start token.
    ///   - token: The ActivityKit push token, in hexadecimal.
    ///   - apnsEnvironment: The token's APNs environment; default nil (the device's).
    public init(
        time: Int64, provider: String, subscriptionId: String, activityType: String, activityId: String?,
        token: String, apnsEnvironment: APNsEnvironment? = nil
    ) {
        self.time = time
        self.provider = provider
        self.subscriptionId = subscriptionId
        self.activityType = activityType
        self.activityId = activityId
        self.token = token
        self.apnsEnvironment = apnsEnvironment
    }

    enum CodingKeys: String, CodingKey {
        case time, provider, token
        case subscriptionId = "subscription_id"
        case activityType = "activity_type"
        case activityId = "activity_id"
        case apnsEnvironment = "apns_environment"
    }
}

/// `live-activity/end`: the device's activity ended or was dismissed; the server sends it nothing
/// more. With no ``activityId``, the device's push-to-start token for ``activityType`` is dropped
/// (the person turned Live Activities off).
public struct LiveActivityEndRequest: Codable, Sendable, Equatable {
    /// When the app saw the end, in milliseconds since 1970.
    public var time: Int64
    /// The device's push provider.
    public var provider: String
    /// The device's push token (`subscription_id`).
    public var subscriptionId: String
    /// The `ActivityAttributes` type's name (`activity_type`).
    public var activityType: String
    /// The app's id of the activity that ended (`activity_id`); nil: the push-to-start token.
    public var activityId: String?

    /// An ended activity.
    ///
    /// - Parameters:
    ///   - time: When the app saw the end, in milliseconds since 1970.
    ///   - provider: The device's push provider.
    ///   - subscriptionId: The device's push token.
    ///   - activityType: The `ActivityAttributes` type's name.
    ///   - activityId: The app's id of the activity; nil for the push-to-start token.
    public init(time: Int64, provider: String, subscriptionId: String, activityType: String, activityId: String?) {
        self.time = time
        self.provider = provider
        self.subscriptionId = subscriptionId
        self.activityType = activityType
        self.activityId = activityId
    }

    enum CodingKeys: String, CodingKey {
        case time, provider
        case subscriptionId = "subscription_id"
        case activityType = "activity_type"
        case activityId = "activity_id"
    }
}

/// `live-activity/channel`: the APNs broadcast channel a Live Activity subscribes to (iOS 18 and
/// later), looked up by the name the project gave it, for the device that `provider` and
/// `subscription_id` name: the server answers the channel made for that device's APNs environment
/// (``LiveActivityChannelAnswer``), or 404 when the project has none of that name.
///
/// ```json
/// {"provider": "ios-apns", "subscription_id": "8a1f…", "name": "match-4471"}
/// ```
public struct LiveActivityChannelRequest: Codable, Sendable, Equatable {
    /// The device's push provider, e.g. `ios-apns`.
    public var provider: String
    /// The device's push token (`subscription_id`).
    public var subscriptionId: String
    /// The channel's name in the project, e.g. `match-4471`.
    public var name: String

    /// The longest channel name the server takes, in characters.
    public static let maxNameLength = 128

    /// A channel to look up.
    ///
    /// - Parameters:
    ///   - provider: The device's push provider.
    ///   - subscriptionId: The device's push token.
    ///   - name: The channel's name in the project.
    public init(provider: String, subscriptionId: String, name: String) {
        self.provider = provider
        self.subscriptionId = subscriptionId
        self.name = name
    }

    enum CodingKeys: String, CodingKey {
        case provider, name
        case subscriptionId = "subscription_id"
    }
}

/// The answer to ``LiveActivityChannelRequest``: the channel's id as APNs made it (base64), to pass
/// to ActivityKit's `PushType.channel(_:)`.
///
/// ```json
/// {"name": "match-4471", "channel_id": "dHN0LXNyY2gtY2hubA==", "apns_environment": "production"}
/// ```
public struct LiveActivityChannelAnswer: Codable, Sendable, Equatable {
    /// The channel's name in the project.
    public var name: String
    /// The APNs channel id (`apns-channel-id`), base64.
    public var channelId: String
    /// The APNs environment the channel lives in: the device's.
    public var apnsEnvironment: APNsEnvironment

    /// A channel's id.
    ///
    /// - Parameters:
    ///   - name: The channel's name in the project.
    ///   - channelId: The APNs channel id, base64.
    ///   - apnsEnvironment: The APNs environment the channel lives in.
    public init(name: String, channelId: String, apnsEnvironment: APNsEnvironment) {
        self.name = name
        self.channelId = channelId
        self.apnsEnvironment = apnsEnvironment
    }

    enum CodingKeys: String, CodingKey {
        case name
        case channelId = "channel_id"
        case apnsEnvironment = "apns_environment"
    }
}
