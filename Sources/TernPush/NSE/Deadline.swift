/// Runs work against a time limit and returns on time even when the work is slow to stop.
enum Deadline {
    /// The operation's result, or nil when `limit` passed first or the caller was cancelled; the
    /// operation is cancelled either way once this returns.
    static func run<T: Sendable>(
        _ limit: Duration, operation: @escaping @Sendable () async -> T
    ) async -> T? {
        let (results, continuation) = AsyncStream<T?>.makeStream()
        let work = Task {
            continuation.yield(await operation())
            continuation.finish()
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            continuation.yield(nil)
            continuation.finish()
        }
        var iterator = results.makeAsyncIterator()
        let first = await iterator.next() ?? nil
        work.cancel()
        timer.cancel()
        return first
    }
}
