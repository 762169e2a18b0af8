/// The system's registered notification categories: the port behind `UNUserNotificationCenter`'s.
///
/// Tern only ever changes its own categories (identifiers starting with ``MessageCategory/prefix``);
/// an implementation keeps every other category exactly as the app registered it.
public protocol NotificationCategoryStore: Sendable {
    /// The Tern categories registered now.
    func ternCategories() async -> [NotificationCategory]
    /// Replaces all Tern categories with `categories`, leaving the app's own untouched, and returns
    /// once the system has them (a category must be registered before its notification is shown).
    func replaceTernCategories(with categories: [NotificationCategory]) async
    /// The category identifiers of the notifications on screen now.
    func deliveredCategoryIdentifiers() async -> Set<String>
}
