import Foundation

/// What `track(_:activityId:)` and `observePushToStart(_:activityId:)` follow, for one SDK instance,
/// by a key: an activity by the system's id of it (`Activity.id`), a push-to-start observation by
/// its type. Each is followed once however often it is handed in (by the app after
/// `Activity.request`, and again from `Activity.activityUpdates`); a token already sent for it is
/// not sent again; once it ended, nothing more is sent for it. The sends run inside the actor, so an
/// activity's end is never queued before a token that was let through ahead of it.
actor LiveActivityTracking {
    /// The last token sent for each key followed (empty before the first).
    private var lastTokens: [String: Data] = [:]

    /// The tracking of `core`'s SDK instance.
    static func shared(_ core: CoreServices) async -> LiveActivityTracking {
        await core.slots.value("push.liveActivities") { LiveActivityTracking() }
    }

    /// True when `key` was not followed yet: the caller follows it from now on.
    func claim(_ key: String) -> Bool {
        guard lastTokens[key] == nil else { return false }
        lastTokens[key] = Data()
        return true
    }

    /// Calls `send` with `token` when `key` is followed and `token` differs from the last one sent for it.
    func forward(_ token: Data, for key: String, send: @Sendable (Data) -> Void) {
        guard let last = lastTokens[key], last != token, !token.isEmpty else { return }
        lastTokens[key] = token
        send(token)
    }

    /// Stops following `key` and calls `send` (the end), when it was followed.
    func finish(_ key: String, send: @Sendable () -> Void) {
        guard lastTokens.removeValue(forKey: key) != nil else { return }
        send()
    }

    /// Whether `key` is followed now.
    func isFollowed(_ key: String) -> Bool {
        lastTokens[key] != nil
    }
}
