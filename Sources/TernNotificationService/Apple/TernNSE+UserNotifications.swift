#if os(iOS)
    // UserNotifications has no Sendable annotations yet; its values are only read here.
    @preconcurrency import UserNotifications
    import TernPush

    extension NSEDependencies {
        static var platformCategoryStore: (any NotificationCategoryStore)? { UserNotificationCategoryStore() }
    }

    extension TernNSE {
        /// True when the request carries Tern's marker in its `userInfo`.
        public func isTernPush(_ request: UNNotificationRequest) -> Bool {
            isTernPush(userInfo: request.content.userInfo)
        }

        /// Processes the request and calls `contentHandler` exactly once: with the attachment and the
        /// message's buttons when they could be added, with the request's own content otherwise.
        public func handleNotificationRequest(
            request: UNNotificationRequest, contentHandler: @escaping (UNNotificationContent) -> Void
        ) {
            // The content is immutable and the system's handler may be called once from any thread:
            // both are safe to carry into the processor's callback.
            nonisolated(unsafe) let original = request.content
            nonisolated(unsafe) let deliver = contentHandler
            handleNotification(content: NotificationContent(original)) { result in
                deliver(result.userNotificationContent(from: original))
            }
        }
    }
#endif
