import Foundation

/// Failed dashboard sign-ins counted per client address: after `limit` failures within `window`,
/// that address is refused (even with a right key) until the oldest failure leaves the window.
/// Kept in memory; a restart forgets it. Behind a proxy every client shares the proxy's address.
actor SignInThrottle {
    /// Failures allowed per address within ``window``.
    let limit: Int
    /// Milliseconds a failure counts for.
    let window: Int64
    let clock: @Sendable () -> Int64
    private var failures: [String: [Int64]] = [:]
    static let addresses = 10_000

    /// `limit` failures per `window` milliseconds (5 per minute unless told).
    init(
        limit: Int = 5, window: Int64 = 60_000, clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds
    ) {
        self.limit = limit
        self.window = window
        self.clock = clock
    }

    /// Seconds until `address` may try again, or nil when it may now.
    func wait(_ address: String) -> Int? {
        let now = clock()
        let recent = (failures[address] ?? []).filter { $0 > now - window }
        failures[address] = recent.isEmpty ? nil : recent
        guard recent.count >= limit, let oldest = recent.first else { return nil }
        return Int(max(1, (oldest + window - now + 999) / 1000))
    }

    /// Counts a failed sign-in from `address`.
    func failed(_ address: String) {
        let now = clock()
        if failures.count >= Self.addresses { failures = failures.filter { $0.value.contains { $0 > now - window } } }
        if failures.count >= Self.addresses { failures.removeAll() }
        failures[address, default: []].append(now)
    }
}
