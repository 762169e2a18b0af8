import Foundation

/// What the device knows when a trigger fires, besides the ledger.
struct SelectionContext: Sendable {
    var now: Date
    /// The in-app subscription status is `subscribed`.
    var subscribed: Bool
    /// The person allows personalization (the SDK's collection is on).
    var consent: Bool
    var projectCaps: InAppCaps
}

/// Why a campaign a trigger matched is not shown.
enum Ineligibility: Equatable, Sendable {
    case outsideSchedule
    case needsSubscription
    case needsConsent
    case capped
}

/// Picks the campaign a trigger shows: the first, highest priority first, that the trigger matches
/// and its schedule, the subscription rule, the consent rule and the caps allow. Pure.
enum CampaignSelection {
    /// `campaigns` ordered highest priority first (server order among equals), as ``ordered(_:)`` makes them.
    static func select(
        _ event: InAppTriggerEvent, in campaigns: [InAppCampaign], context: SelectionContext, ledger: CapLedger
    ) -> InAppCampaign? {
        campaigns.first { campaign in
            campaign.rules.contains { $0.matches(event) }
                && eligibility(campaign, context: context, ledger: ledger) == nil
        }
    }

    /// Nil when `campaign` may be shown now, else why not.
    static func eligibility(_ campaign: InAppCampaign, context: SelectionContext, ledger: CapLedger) -> Ineligibility? {
        if let start = campaign.placement.startsAt, context.now < start { return .outsideSchedule }
        if let end = campaign.placement.endsAt, context.now >= end { return .outsideSchedule }
        if !campaign.anonymous && !context.subscribed { return .needsSubscription }
        if campaign.audience && !context.consent { return .needsConsent }
        if !ledger.allows(campaign.campaignId, caps: campaign.caps, project: context.projectCaps, now: context.now) {
            return .capped
        }
        return nil
    }

    /// Highest priority first; equal priorities keep their order.
    static func ordered(_ campaigns: [InAppCampaign]) -> [InAppCampaign] {
        campaigns.enumerated().sorted { lhs, rhs in
            lhs.element.priority != rhs.element.priority
                ? lhs.element.priority > rhs.element.priority : lhs.offset < rhs.offset
        }.map(\.element)
    }
}
