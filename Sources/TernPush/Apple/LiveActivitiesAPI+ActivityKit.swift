#if canImport(ActivityKit) && os(iOS) && !targetEnvironment(macCatalyst)
    // ActivityKit is not on Mac Catalyst. Its activities and their update sequences carry no
    // Sendable annotations: each is read by one task here, never shared.
    @preconcurrency import ActivityKit
    import Foundation

    @available(iOS 16.2, *)
    extension LiveActivitiesAPI {
        /// Follows a Live Activity for the server: sends its push token now and each time it changes
        /// (``setToken(_:activityId:activityType:)``), and its end once its state becomes `ended` or
        /// `dismissed` (``end(activityId:activityType:)``), after which nothing more is sent for it.
        /// Call it after `Activity.request(attributes:content:pushType:)` with `pushType: .token`, and
        /// at launch for the activities still running (`Activity<A>.activities`). An activity handed
        /// in again while followed is followed once. The type sent is `String(describing: A.self)`,
        /// what the server names as the push's `attributes-type`.
        ///
        /// ```swift
        /// let activity = try Activity.request(
        ///     attributes: DeliveryAttributes(orderNumber: 1001), content: content, pushType: .token)
        /// Tern.shared.push.liveActivities.track(activity, activityId: "order-1001")
        /// ```
        ///
        /// - Parameters:
        ///   - activity: The Live Activity, requested with `pushType: .token`.
        ///   - activityId: The app's own id of the activity, the same on every device that follows it:
        ///     what the server's updates name.
        public func track<A: ActivityAttributes>(_ activity: Activity<A>, activityId: String) {
            let api = self
            let activityType = Self.activityType(A.self)
            let key = "activity:" + activity.id
            let state = activity.activityState
            let current = activity.pushToken
            let tokens = activity.pushTokenUpdates
            let states = activity.activityStateUpdates
            Task {
                let tracking = await LiveActivityTracking.shared(api.core)
                guard await tracking.claim(key) else { return }
                let end: @Sendable () -> Void = { api.end(activityId: activityId, activityType: activityType) }
                if Self.isOver(state) {
                    await tracking.finish(key, send: end)
                    return
                }
                let send: @Sendable (Data) -> Void = {
                    api.setToken($0, activityId: activityId, activityType: activityType)
                }
                let forwarding = Task {
                    if let current { await tracking.forward(current, for: key, send: send) }
                    for await token in tokens {
                        await tracking.forward(token, for: key, send: send)
                        if await !tracking.isFollowed(key) { return }
                    }
                }
                for await state in states where Self.isOver(state) {
                    await tracking.finish(key, send: end)
                    break
                }
                // Updates that stopped without an end leave the activity free to be handed in again.
                await tracking.finish(key) {}
                forwarding.cancel()
            }
        }

        /// The name the server knows an attributes type by (`attributes-type`).
        static func activityType<A: ActivityAttributes>(_ type: A.Type) -> String {
            String(describing: type)
        }

        /// Whether an activity in `state` gets nothing more from the server: it ended or went away
        /// (not a switch: the states newer systems add are not over).
        static func isOver(_ state: ActivityState) -> Bool {
            state == .ended || state == .dismissed
        }
    }

    // Push-to-start is iOS 17.2's: the SDKs before it (ActivityKit 116.101 in iOS 17.0's) lack its API.
    #if canImport(ActivityKit, _version: 116.102)
        @available(iOS 17.2, *)
        extension LiveActivitiesAPI {
            /// Lets the server start Live Activities of type `A` on this device: sends the device's
            /// push-to-start token for the type now and each time it changes
            /// (``setPushToStartToken(_:activityType:)``), and follows each activity of the type that
            /// starts (by push or by the app, from `Activity<A>.activityUpdates`, and those already
            /// running) with ``track(_:activityId:)``. Call it once at launch, for each type; a second
            /// call for the same type does nothing.
            ///
            /// ```swift
            /// Tern.shared.push.liveActivities.observePushToStart(DeliveryAttributes.self) { activity in
            ///     "order-\(activity.attributes.orderNumber)"
            /// }
            /// ```
            ///
            /// - Parameters:
            ///   - type: The `ActivityAttributes` type the server starts activities of; sent as
            ///     `String(describing: type)`.
            ///   - activityId: The app's own id of an activity that started (from its attributes, as
            ///     the server's start set them); nil leaves that activity unfollowed.
            public func observePushToStart<A: ActivityAttributes>(
                _ type: A.Type, activityId: @escaping @Sendable (Activity<A>) -> String?
            ) {
                let api = self
                let activityType = Self.activityType(type)
                let key = "pushToStart:" + activityType
                let current = Activity<A>.pushToStartToken
                let tokens = Activity<A>.pushToStartTokenUpdates
                let running = Activity<A>.activities
                let started = Activity<A>.activityUpdates
                Task {
                    let tracking = await LiveActivityTracking.shared(api.core)
                    guard await tracking.claim(key) else { return }
                    let send: @Sendable (Data) -> Void = { api.setPushToStartToken($0, activityType: activityType) }
                    Task {
                        if let current { await tracking.forward(current, for: key, send: send) }
                        for await token in tokens { await tracking.forward(token, for: key, send: send) }
                    }
                    for activity in running {
                        if let id = activityId(activity) { api.track(activity, activityId: id) }
                    }
                    for await activity in started {
                        if let id = activityId(activity) { api.track(activity, activityId: id) }
                    }
                }
            }
        }
    #endif
#endif
