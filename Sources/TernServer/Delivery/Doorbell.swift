import Foundation

/// Wakes the delivery loop early: a new message rings it, the loop waits on it with a timeout. A
/// ring while nobody waits is kept for the next wait.
actor Doorbell {
    private var rung = false
    private var waiter: (id: Int, continuation: CheckedContinuation<Bool, Never>)?
    private var nextId = 0

    func ring() {
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: true)
        } else {
            rung = true
        }
    }

    /// Returns at the next ring (true), or after `timeout` (false).
    @discardableResult
    func wait(upTo timeout: Duration) async -> Bool {
        if rung {
            rung = false
            return true
        }
        nextId += 1
        let id = nextId
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.expire(id)
        }
        let rang = await withCheckedContinuation { continuation in
            waiter = (id, continuation)
        }
        timer.cancel()
        return rang
    }

    private func expire(_ id: Int) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.continuation.resume(returning: false)
    }
}
