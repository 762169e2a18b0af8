#if os(iOS)
    // UserNotifications has no Sendable annotations yet; its values are only read here.
    @preconcurrency import UserNotifications

    extension EventAPI {
        /// Reports that the push of this request reached the device (`event/push`, delivery).
        ///
        /// ```swift
        /// Tern.shared.push.pushEvents.deliveryEvent(from: request)
        /// ```
        public func deliveryEvent(from request: UNNotificationRequest) {
            deliveryEvent(from: NotificationContent(request.content))
        }

        /// Reports that the person opened the push of this request, once per message.
        ///
        /// ```swift
        /// Tern.shared.push.pushEvents.openEvent(from: response.notification.request)
        /// ```
        @MainActor
        public func openEvent(from request: UNNotificationRequest) {
            openEvent(from: NotificationContent(request.content))
        }
    }
#endif
