import Foundation
import TernCore

/// Events of Live Activities (`Tern.shared.push.liveActivities`): Tern's own, beside the
/// reference's modules.
///
/// ```swift
/// if event.event == LiveActivityEvents.liveActivityTokenRequestFailed { print(event.value?["error_text"] ?? "") }
/// ```
public enum LiveActivityEvents: String, SDKEvent, CaseIterable, Equatable {
    /// An error: a Live Activity call was refused before anything was queued or sent (an empty or too
    /// long activity id, type or channel name, an empty token); `value["reason"]` says which.
    /// Message: "invalid live activity request data".
    case invalidLiveActivityRequestData
    /// A token reached the server (`live-activity/token`): an activity's update token, or a
    /// push-to-start token. Message: "successful request: live-activity/token".
    case liveActivityTokenRequestSuccessful
    /// Sending a token failed (`live-activity/token`); a `RetryEvent` when the SDK retries (no answer,
    /// 408, 429, 5xx), an `ErrorEvent` otherwise. `value` holds `http_code`, and `error` /
    /// `error_text` when the server answered. Message: "failed request: live-activity/token".
    case liveActivityTokenRequestFailed
    /// An activity's end, or the removal of a push-to-start token, reached the server
    /// (`live-activity/end`). Message: "successful request: live-activity/end".
    case liveActivityEndRequestSuccessful
    /// Sending an end failed (`live-activity/end`); retried like ``liveActivityTokenRequestFailed``.
    /// Message: "failed request: live-activity/end".
    case liveActivityEndRequestFailed
    /// `channelId(named:)` got a channel's id from the server (`live-activity/channel`).
    /// Message: "successful request: live-activity/channel".
    case liveActivityChannelRequestSuccessful
    /// `channelId(named:)` got no channel id: the device has no push token yet, no answer came, or
    /// the server refused (404: the project has no channel of that name). Never retried: the call
    /// throws. `value` holds `reason`, and `http_code` and `error_text` when the server answered.
    /// Message: "failed request: live-activity/channel".
    case liveActivityChannelRequestFailed

    static let moduleName = "liveActivity"
    public var module: String { Self.moduleName }

    public var message: String {
        switch self {
        case .invalidLiveActivityRequestData: "invalid live activity request data"
        case .liveActivityTokenRequestSuccessful: "successful request: live-activity/token"
        case .liveActivityTokenRequestFailed: "failed request: live-activity/token"
        case .liveActivityEndRequestSuccessful: "successful request: live-activity/end"
        case .liveActivityEndRequestFailed: "failed request: live-activity/end"
        case .liveActivityChannelRequestSuccessful: "successful request: live-activity/channel"
        case .liveActivityChannelRequestFailed: "failed request: live-activity/channel"
        }
    }
}
