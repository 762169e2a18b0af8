import Foundation

/// Wakes the delivery loop early: a new message rings it, the loop waits on it with a timeout. A
/// ring while nobody waits is kept for the next wait.
actor Doorbell {
    private var rung = false
    private var waiter: (id: Int, continuation: CheckedContinuation<Void, Never>)?
    private var nextId = 0

    func ring() {
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume()
        } else {
            rung = true
        }
    }

    /// Returns at the next ring, or after `timeout`.
    func wait(upTo timeout: Duration) async {
        if rung {
            rung = false
            return
        }
        nextId += 1
        let id = nextId
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.expire(id)
        }
        await withCheckedContinuation { continuation in
            waiter = (id, continuation)
        }
        timer.cancel()
    }

    private func expire(_ id: Int) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.continuation.resume()
    }
}
