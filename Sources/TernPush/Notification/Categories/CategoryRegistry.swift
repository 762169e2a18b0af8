/// Registers each message's category and lets go of the ones no longer needed.
///
/// A Tern category is kept while its notification is on screen, or while it is among the
/// ``recentLimit`` newest this process registered (a notification just handed to the system may not
/// be listed as delivered yet). Registrations in one process run one at a time, so two pushes handled
/// together both keep their buttons. (Two processes writing at the same instant can still race: the
/// system offers no transaction over its category set.)
///
/// ```swift
/// let registry = CategoryRegistry(store: store)
/// let identifier = await registry.register(category)
/// ```
public actor CategoryRegistry {
    /// How many of this process's newest registrations are kept whatever is on screen.
    public let recentLimit: Int
    private let store: any NotificationCategoryStore
    private var recent: [String] = []
    private var tail: Task<Void, Never>?

    /// A registry over the notification center's categories.
    ///
    /// - Parameters:
    ///   - store: The notification center's categories.
    ///   - recentLimit: How many of this process's newest registrations are always kept; default 16, at least 1.
    public init(store: any NotificationCategoryStore, recentLimit: Int = 16) {
        self.store = store
        self.recentLimit = max(1, recentLimit)
    }

    /// Registers `category` beside the Tern categories still in use; returns its identifier once the
    /// system has it.
    @discardableResult
    public func register(_ category: NotificationCategory) async -> String {
        remember(category.identifier)
        // Read-modify-write of the system's set: one at a time, in call order, despite actor reentrancy.
        let previous = tail
        let store = store
        let work = Task {
            await previous?.value
            let recent = self.recentIdentifiers()
            let delivered = await store.deliveredCategoryIdentifiers()
            let current = await store.ternCategories()
            let keep = Self.retained(current: current, adding: category, delivered: delivered, recent: recent)
            await store.replaceTernCategories(with: keep)
        }
        tail = work
        await work.value
        return category.identifier
    }

    /// The Tern categories to keep: the new one, those on screen, and the recent ones.
    static func retained(
        current: [NotificationCategory], adding category: NotificationCategory, delivered: Set<String>,
        recent: Set<String>
    ) -> [NotificationCategory] {
        var kept = current.filter { existing in
            existing.identifier != category.identifier
                && (delivered.contains(existing.identifier) || recent.contains(existing.identifier))
        }
        kept.append(category)
        return kept
    }

    private func recentIdentifiers() -> Set<String> { Set(recent) }

    private func remember(_ identifier: String) {
        recent.removeAll { $0 == identifier }
        recent.append(identifier)
        if recent.count > recentLimit { recent.removeFirst(recent.count - recentLimit) }
    }
}
