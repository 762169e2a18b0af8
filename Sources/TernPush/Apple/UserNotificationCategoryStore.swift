#if canImport(UserNotifications)
    @preconcurrency import UserNotifications

    /// The notification center's categories. Only Tern's own (`tern.` identifiers) are ever replaced;
    /// every other category is passed back to the center exactly as the app registered it.
    ///
    /// ```swift
    /// let registry = CategoryRegistry(store: UserNotificationCategoryStore())
    /// ```
    public struct UserNotificationCategoryStore: NotificationCategoryStore {
        public init() {}

        public func ternCategories() async -> [NotificationCategory] {
            await UNUserNotificationCenter.current().notificationCategories()
                .filter { MessageCategory.isTernCategory($0.identifier) }
                .map(NotificationCategory.init)
        }

        public func replaceTernCategories(with categories: [NotificationCategory]) async {
            let center = UNUserNotificationCenter.current()
            let others = await center.notificationCategories().filter { !MessageCategory.isTernCategory($0.identifier) }
            center.setNotificationCategories(others.union(categories.map(\.userNotificationCategory)))
            // The center applies the set asynchronously; reading it back returns once it has: a category
            // must be registered before the notification that uses it is shown.
            _ = await center.notificationCategories()
        }

        public func deliveredCategoryIdentifiers() async -> Set<String> {
            let delivered = await UNUserNotificationCenter.current().deliveredNotifications()
            return Set(delivered.map(\.request.content.categoryIdentifier))
        }
    }
#endif
