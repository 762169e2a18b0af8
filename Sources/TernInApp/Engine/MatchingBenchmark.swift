import Foundation

/// Trigger matching as the engine runs it, for `tern-bench-inapp` (not API).
@_spi(Benchmarks)
public struct InAppMatchingBenchmark: Sendable {
    private let index: CampaignIndex
    private let ledger: CapLedger
    private let projectCaps: InAppCaps

    /// The placements of an `inapp/placements` answer (the envelope's JSON), with a display of
    /// every hundredth campaign already in the ledger.
    public init?(answer: Data, maxPlacements: Int, now: Date) {
        guard let read = PlacementsAnswer.read(answer, maxPlacements: maxPlacements) else { return nil }
        index = CampaignIndex(read.campaigns)
        projectCaps = read.projectCaps
        var ledger = CapLedger()
        for (position, campaign) in read.campaigns.enumerated() where position % 100 == 0 {
            ledger.record(campaign.campaignId, now: now.addingTimeInterval(-60))
        }
        self.ledger = ledger
    }

    /// True: walk every cached campaign instead of the index (the comparison the benchmark prints).
    public var linear = false

    /// The number of cached campaigns.
    public var count: Int { index.campaigns.count }

    /// The campaign `event` shows (its id), as a trigger on the device picks it.
    public func match(_ event: InAppTriggerEvent, now: Date) -> String? {
        guard !linear else { return linearMatch(event, now: now) }
        let context = SelectionContext(now: now, subscribed: true, consent: true, projectCaps: projectCaps)
        return index.select(event, context: context, ledger: ledger)?.campaignId
    }

    private func linearMatch(_ event: InAppTriggerEvent, now: Date) -> String? {
        let context = SelectionContext(now: now, subscribed: true, consent: true, projectCaps: projectCaps)
        return CampaignSelection.select(event, in: index.campaigns, context: context, ledger: ledger)?.campaignId
    }
}
