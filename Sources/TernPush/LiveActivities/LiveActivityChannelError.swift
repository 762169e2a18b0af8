import Foundation

/// Why ``LiveActivitiesAPI/channelId(named:)`` gave no channel id.
///
/// ```swift
/// do {
///     let id = try await Tern.shared.push.liveActivities.channelId(named: "match-4471")
/// } catch LiveActivityChannelError.channelNotFound(let name, _) {
///     print("no channel \(name) yet")
/// }
/// ```
public enum LiveActivityChannelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name was refused before anything was sent: blank, longer than
    /// `LiveActivityChannelRequest.maxNameLength` characters, or with a control character.
    /// `reason` says which, as the `invalidLiveActivityRequestData` event's `reason` does.
    case invalidName(reason: String)
    /// The SDK is not initialized (no `Tern.initialization`, or an unusable configuration).
    case notInitialized
    /// The device has no push token yet: the server finds the device's APNs environment by it, so
    /// the app sets the token and subscribes before asking.
    case noPushToken
    /// The server answered 404: the project has no Live Activity channel of this name for the
    /// device's APNs environment (the operator creates it on the server). `reason` is the server's
    /// `error_text`.
    case channelNotFound(name: String, reason: String)
    /// Any other failure: the server's refusal (`httpCode`, e.g. 400, with its `error_text`; 409 while
    /// the server has no push subscription of this device yet: ask again once subscribed), or no
    /// usable answer (`httpCode` nil: the network, no credentials, an answer that is not a channel).
    case requestFailed(httpCode: Int?, reason: String)

    public var description: String {
        switch self {
        case .invalidName(let reason):
            "the Live Activity channel name was refused: \(reason)"
        case .notInitialized:
            "the SDK is not initialized (call Tern.initialization first; an unusable configuration is reported as "
                + "configIsNotSet)"
        case .noPushToken:
            "the device has no push token yet: set it (push.token.setToken) and subscribe before asking for a "
                + "Live Activity channel"
        case .channelNotFound(let name, let reason):
            "the project has no Live Activity channel named \"\(name)\" for this device's APNs environment "
                + "(HTTP 404: \(reason))"
        case .requestFailed(let httpCode, let reason):
            httpCode.map { "HTTP \($0): \(reason)" } ?? reason
        }
    }
}
