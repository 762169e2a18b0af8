/// The loop of the server's background jobs (A/B winners, triggered and recurring messages, open
/// hours): a pass every `interval` until the task is cancelled; a pass that fails is logged as
/// `failure` and the next comes all the same.
enum Periodic {
    static func run(
        every interval: Duration, logger: Logger, failure: String, _ pass: @Sendable () async throws -> Void
    ) async {
        while !Task.isCancelled {
            do {
                try await pass()
            } catch {
                logger.warn(failure, ["error": "\(error)"])
            }
            try? await Task.sleep(for: interval)
        }
    }
}
