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

/// The cached campaigns, highest priority first, indexed by what can trigger them (a custom
/// trigger's name, a screen, the app's launch), so a trigger looks only at the campaigns it could
/// start instead of every cached one. Pure; made again whenever the placements change.
struct CampaignIndex: Sendable {
    let campaigns: [InAppCampaign]
    private var byName: [String: [Int]] = [:]
    private var byScreen: [String: [Int]] = [:]
    private var anyScreen: [Int] = []
    private var openApp: [Int] = []

    /// `campaigns` in the order ``CampaignSelection/ordered(_:)`` gives.
    init(_ campaigns: [InAppCampaign]) {
        self.campaigns = campaigns
        for (index, campaign) in campaigns.enumerated() {
            var names = Set<String>()
            var screens = Set<String>()
            var anyPage = false
            var launch = false
            for rule in campaign.rules {
                switch rule {
                case .openApp: launch = true
                case .openPage(let list) where list.isEmpty: anyPage = true
                case .openPage(let list): screens.formUnion(list)
                case .custom(let name, _): names.insert(name)
                }
            }
            for name in names { byName[name, default: []].append(index) }
            for screen in screens { byScreen[screen, default: []].append(index) }
            if anyPage { anyScreen.append(index) }
            if launch { openApp.append(index) }
        }
    }

    /// The positions of the campaigns `event` could start, in priority order.
    func candidates(_ event: InAppTriggerEvent) -> [Int] {
        switch event {
        case .openApp: return openApp
        case .custom(let name, _): return byName[name] ?? []
        case .openPage(let screen):
            let named = byScreen[screen] ?? []
            if anyScreen.isEmpty { return named }
            if named.isEmpty { return anyScreen }
            return Array(Set(named).union(anyScreen)).sorted()
        }
    }

    /// The first campaign `event` starts that may show now (as ``CampaignSelection/select(_:in:context:ledger:)``),
    /// leaving out the campaigns in `excluding`.
    func select(
        _ event: InAppTriggerEvent, context: SelectionContext, ledger: CapLedger, excluding: Set<String> = []
    ) -> InAppCampaign? {
        guard ledger.allowsProject(context.projectCaps, now: context.now) else { return nil }
        for index in candidates(event) {
            let campaign = campaigns[index]
            guard !excluding.contains(campaign.campaignId), campaign.rules.contains(where: { $0.matches(event) })
            else { continue }
            if CampaignSelection.eligibility(campaign, context: context, ledger: ledger) == nil { return campaign }
        }
        return nil
    }
}
