import Foundation

/// What starts a campaign, ready to match: the app coming to the foreground, a screen, or a name
/// the app triggers with properties that must meet conditions.
public enum InAppTriggerRule: Sendable, Equatable {
    /// `open_app`.
    case openApp
    /// `open_page`: one of `screens`, or any screen when empty.
    case openPage(screens: Set<String>)
    /// `custom`: the name given to ``InApp/trigger(_:properties:)``, every condition met.
    case custom(name: String, conditions: [InAppCondition])

    /// The rule of a wire trigger; nil when it cannot match anything (a custom trigger without a name).
    init?(_ trigger: InAppTrigger) {
        switch trigger.type {
        case .openApp: self = .openApp
        case .openPage: self = .openPage(screens: Set(trigger.screens ?? []))
        case .custom:
            guard let name = trigger.name, !name.isEmpty else { return nil }
            self = .custom(name: name, conditions: trigger.conditions ?? [])
        }
    }
}

/// One campaign placed for this device (`inapp/placements`), as the SDK matches and shows it.
public struct InAppCampaign: Sendable, Equatable {
    /// The placement as the server answered it (cached as it came).
    public let placement: InAppPlacement
    /// This profile's placement of the campaign, sent back with every event.
    public let smid: String
    /// True when the campaign targets an audience: shown only with the person's consent.
    public let audience: Bool
    /// What starts it.
    public let rules: [InAppTriggerRule]

    /// The campaign of `placement`; nil without an `smid` (its events could not be reported).
    public init?(_ placement: InAppPlacement, audience: Bool = false) {
        guard let smid = placement.smid, !smid.isEmpty else { return nil }
        self.placement = placement
        self.smid = smid
        self.audience = audience
        rules = placement.triggers.compactMap(InAppTriggerRule.init)
    }

    /// The campaign.
    public var campaignId: String { placement.campaignId }
    /// How it is drawn.
    public var displayType: InAppDisplayType { placement.displayType }
    /// Higher first.
    public var priority: Int { placement.priority }
    /// True: shown whatever the in-app subscription status.
    public var anonymous: Bool { placement.anonymous }
    /// Its own caps.
    public var caps: InAppCaps { placement.caps }
    /// What is drawn.
    public var content: InAppContent { placement.content }
    /// The campaign id as a number, for ``InAppAnimator/companyId`` (0 when it is not one).
    public var companyId: Int { Int(campaignId) ?? 0 }
}
