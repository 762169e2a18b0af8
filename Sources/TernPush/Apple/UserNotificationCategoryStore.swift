#if os(iOS)
    @preconcurrency import UserNotifications

    /// The notification center's categories. Only Tern's own (`tern.` identifiers) are ever replaced;
    /// every other category is passed back to the center exactly as the app registered it.
    ///
    /// ```swift
    /// let registry = CategoryRegistry(store: UserNotificationCategoryStore())
    /// ```
    public struct UserNotificationCategoryStore: NotificationCategoryStore {
        /// The store over `UNUserNotificationCenter.current()`.
        public init() {}

        public func ternCategories() async -> [NotificationCategory] {
            await Self.registered()
                .filter { MessageCategory.isTernCategory($0.identifier) }
                .map(NotificationCategory.init)
        }

        public func replaceTernCategories(with categories: [NotificationCategory]) async {
            let center = UNUserNotificationCenter.current()
            let others = await Self.registered().filter { !MessageCategory.isTernCategory($0.identifier) }
            center.setNotificationCategories(others.union(categories.map(\.userNotificationCategory)))
            // The center applies the set asynchronously; reading it back returns once it has: a category
            // must be registered before the notification that uses it is shown.
            _ = await Self.registered()
        }

        public func deliveredCategoryIdentifiers() async -> Set<String> {
            await withCheckedContinuation { continuation in
                UNUserNotificationCenter.current().getDeliveredNotifications { delivered in
                    continuation.resume(returning: Set(delivered.map(\.request.content.categoryIdentifier)))
                }
            }
        }

        /// The center's categories. Through the completion handler: this compiler crashes lowering the
        /// imported `async` form (`notificationCategories()`) in a main-actor method with typed throws.
        static func registered() async -> Set<UNNotificationCategory> {
            await withCheckedContinuation { continuation in
                UNUserNotificationCenter.current().getNotificationCategories { continuation.resume(returning: $0) }
            }
        }
    }
#endif
