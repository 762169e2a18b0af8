import Foundation
import TernProtocol

/// Requests accepted for the outbox and not yet written.
struct PendingWrite {
    var entries: [OutboxEntry]
    var journal: [String: JSONValue]
    var waiter: CheckedContinuation<Bool, Never>?
    /// Set when the caller writes inline and reads the outcome from `failedTickets`.
    var ticket: Int?
}

extension CoreRuntime {
    /// The most rows one group-commit transaction writes.
    static let maxRowsPerWrite = 1000

    func startWriting() {
        guard !writing else { return }
        writing = true
        Task { await writeAll() }
    }

    /// Writes what gathered, transaction after transaction, until nothing is left.
    func writeAll() async {
        // Background time while the group commit runs, should the app leave the foreground
        // meanwhile: it is never suspended holding the shared database's lock (0xdead10cc).
        let background = await environment.lifecycle.beginBackgroundWork("tern.outbox.write")
        while !writes.isEmpty, let store {
            var batch: [PendingWrite] = []
            var rows = 0
            while let next = writes.first, batch.isEmpty || rows + next.entries.count <= Self.maxRowsPerWrite {
                batch.append(writes.removeFirst())
                rows += next.entries.count
            }
            let entries = batch.flatMap(\.entries)
            var journal: [String: JSONValue] = [:]
            for write in batch { journal.merge(write.journal) { _, later in later } }
            do {
                try await store.enqueue(entries, now: environment.clock.now(), journal: journal)
            } catch {
                for function in Set(entries.map(\.meta.function)) {
                    bus.emit(.error(function, CoreEvents.databaseError, value: ["reason": "\(error)"]))
                }
                await completions.complete(entries.map(\.idempotencyKey), nil)
                await syncStates.publish(
                    entries.map { SyncUpdate(requestId: $0.idempotencyKey, state: .failed(reason: "\(error)")) })
                for write in batch {
                    write.waiter?.resume(returning: false)
                    if let ticket = write.ticket { failedTickets.insert(ticket) }
                }
                continue
            }
            if await syncStates.hasListeners {
                await syncStates.publish(entries.map { SyncUpdate(requestId: $0.idempotencyKey, state: .persisted) })
            }
            await sender?.notify(Set(entries.map(\.lane)))
            for write in batch { write.waiter?.resume(returning: true) }
        }
        await background.end()
        // Requests that came while the background time was given back: write them too.
        if !writes.isEmpty, store != nil {
            await writeAll()
            return
        }
        writing = false
        let idle = writesIdle
        writesIdle = []
        for waiter in idle { waiter.resume() }
    }

    /// Returns once every request accepted before the call is written.
    func awaitWrites() async {
        guard writing || !writes.isEmpty else { return }
        await withCheckedContinuation { writesIdle.append($0) }
    }
}
