import Foundation

/// Sends the winners of A/B tests made with `winner_after_minutes`: when a test's time comes (and
/// its fan-out is done), the version with the most opens per device goes to the devices the test
/// held back, as `POST …/messages/{id}/winner` would send it. Each node runs one; a test's winner
/// is sent once however many pick it at the same moment, because the winner's message and the
/// test's note of it commit together or not at all (``MessageService/sendWinner(publicId:variant:)``).
/// A test whose winner cannot be sent (a 4xx: its project's resource went, say) is logged and left
/// to an operator.
///
/// ```swift
/// let picker = WinnerPicker(messages: messages, logger: logger)
/// try await picker.pass()   // sends every winner due now
/// ```
public struct WinnerPicker: Sendable {
    let messages: MessageService
    let logger: Logger
    let metrics: Metrics?
    /// How long the loop rests between passes.
    var interval: Duration = .seconds(5)

    /// A picker that sends winners through `messages`.
    ///
    /// - Parameters:
    ///   - messages: The service that sends a winner and counts a test's opens; its clock says when
    ///     a test is due.
    ///   - logger: Each winner sent, and each one that could not be, is logged here.
    ///   - metrics: Counts them (`tern_ab_winners_total`).
    public init(messages: MessageService, logger: Logger, metrics: Metrics? = nil) {
        self.messages = messages
        self.logger = logger
        self.metrics = metrics
    }

    /// Picks and sends until cancelled.
    public func run() async {
        await Periodic.run(every: interval, logger: logger, failure: "picking A/B tests' winners failed") {
            try await pass()
        }
    }

    /// Sends the winner of every test due now; answers the winners' messages this pass sent.
    @discardableResult
    public func pass() async throws -> [MessageView] {
        let store = messages.store
        let now = messages.clock()
        let due = try await store.read { try $0.messagesAwaitingWinner(now: now, limit: 20) }
        var sent: [MessageView] = []
        for test in due {
            let request = try FanOut.request(test)
            let metric = request.winnerBy.flatMap(WinnerMetric.init(rawValue:)) ?? .opens
            let versions = try await store.read { tx in
                var versions = try messages.variantStats(tx, test, history: tx.messageHistory(messageId: test.id)) ?? []
                // One goal's conversions: counted for it, not read from the funnel's (every goal's).
                if metric == .conversions, let goal = request.winnerGoal {
                    for index in versions.indices {
                        versions[index].converted = try tx.conversions(
                            messageIdPrefix: test.publicId + MessageVariants.pushIdPart(index) + ".", eventName: goal)
                    }
                }
                return versions
            }
            let letter = MessageVariants.winner(of: versions, by: metric)
            do {
                let winner = try await messages.sendWinner(publicId: test.publicId, variant: letter)
                sent.append(winner)
                metrics?.recordWinner(sent: true)
                logger.info(
                    "sent an A/B test's winner",
                    [
                        "message": test.publicId, "variant": letter, "winner": winner.id,
                        "by": metric.rawValue,
                        "figures": versions.map { "\($0.variant) \(metric.count($0))/\($0.targeted)" }.joined(
                            separator: ", "),
                    ])
            } catch let error as APIError where error.status == 409 {
                continue  // another node, or an operator, sent it first
            } catch let error as APIError {
                logger.error(
                    "an A/B test's winner could not be sent; pick it on the message's page",
                    ["message": test.publicId, "variant": letter, "error": error.reason])
                try await store.write { try $0.clearWinnerDue(messageId: test.id) }
                metrics?.recordWinner(sent: false)
            }
        }
        return sent
    }
}

/// What makes an A/B test's version the winner the server sends (`winner_by`).
enum WinnerMetric: String, Sendable, CaseIterable {
    /// The most opens per device.
    case opens
    /// The most conversions (opens a goal naming the push followed) per device.
    case conversions

    /// The version's figure this metric compares.
    func count(_ version: VariantStats) -> Int64 {
        switch self {
        case .opens: version.opened
        case .conversions: version.converted
        }
    }
}

extension MessageVariants {
    /// The version with the most of `metric` per device it went to (a version sent to none has
    /// none); of versions level, the first, so a test nobody opened (or converted in) sends its
    /// first version (`a`).
    static func winner(of versions: [VariantStats], by metric: WinnerMetric = .opens) -> String {
        var best = versions.first
        for version in versions.dropFirst() {
            guard let leader = best else { break }
            // count / targeted compared across multiplied: exact, and no division by none.
            if metric.count(version) * max(leader.targeted, 1) > metric.count(leader) * max(version.targeted, 1) {
                best = version
            }
        }
        return best?.variant ?? letters[0]
    }
}
