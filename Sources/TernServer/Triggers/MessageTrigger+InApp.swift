import Foundation
import TernProtocol

extension MessageTrigger {
    /// The event the server notes itself when `inapp/event` records the first tap on a button of
    /// the in-app campaign ``campaignId`` (on ``button`` when given): the wait is the person's whose
    /// device reported it (its push identity, or the JWT's person). A replay of the same report (its
    /// idempotency key) starts nothing again; a report from a device Tern knows no profile of (an
    /// `anonymous` campaign seen on a device that never subscribed, without a JWT) starts nothing,
    /// there being no one to send a push to.
    ///
    /// ```json
    /// {"title": "Still thinking about Premium?",
    ///  "trigger": {"event_name": "$inapp_clicked", "campaign_id": "12", "button": "upgrade",
    ///              "delay_minutes": 1440, "cancel_event_name": "purchase"},
    ///  "audience": {"type": "resource", "resource_id": 1}}
    /// ```
    public static let inAppClicked = "$inapp_clicked"

    /// The event the server notes itself when `inapp/event` records that the in-app campaign
    /// ``campaignId`` was shown on a person's device; as ``inAppClicked`` otherwise.
    ///
    /// ```json
    /// {"title": "Did you see our sale?",
    ///  "trigger": {"event_name": "$inapp_shown", "campaign_id": "12", "delay_minutes": 60},
    ///  "audience": {"type": "resource", "resource_id": 1}}
    /// ```
    public static let inAppShown = "$inapp_shown"

    /// The in-app events that start a wait, by the kind of report that notes them.
    static func inAppEvent(_ kind: InAppEventRequest.Kind) -> String? {
        switch kind {
        case .shown: inAppShown
        case .clicked: inAppClicked
        case .closed, .error: nil
        }
    }

    /// Checks what only the store knows of an in-app event's trigger: its campaign is one of the
    /// message's project (`projectId`), and its button one of the campaign's when the campaign's
    /// content lists its buttons (a template; an HTML campaign's buttons are its page's own, any
    /// id is taken). Nothing for another trigger.
    ///
    /// A project key (`keyProject`) is told of another project's campaign as of one that does not
    /// exist: what another project holds is not its to know.
    static func checkCampaign(
        _ tx: any StoreTransaction, _ trigger: MessageTrigger?, projectId: Int64, keyProject: Int64?
    ) throws {
        guard let trigger, let text = trigger.campaignId, let id = Int64(text) else { return }
        let found = try tx.inAppCampaign(id: id)
        guard let campaign = found, keyProject == nil || campaign.projectId == keyProject else {
            throw APIError.badRequest(
                "trigger.campaign_id: no in-app campaign \(id): name one of project \(projectId)'s campaigns "
                    + "(tern inapp list --project \(projectId))")
        }
        guard campaign.projectId == projectId else {
            throw APIError.badRequest(
                "trigger.campaign_id: campaign \(id) is a campaign of project \(campaign.projectId), and this message "
                    + "goes from project \(projectId): name one of project \(projectId)'s campaigns (tern inapp list "
                    + "--project \(projectId))")
        }
        let content = try campaign.decodedDefinition().content
        guard let button = trigger.button, content.kind == .template else { return }
        let buttons = content.template?.buttons ?? []
        guard buttons.contains(where: { $0.id == button }) else {
            let known = buttons.isEmpty ? "none" : buttons.map(\.id).joined(separator: ", ")
            throw APIError.badRequest(
                "trigger.button: campaign \(id) has no button \"\(button.prefix(64))\" (its buttons: \(known)): name "
                    + "one of them, or leave trigger.button out for a tap on any")
        }
    }
}

extension TriggerWaits {
    /// `inapp/event` recorded `event` (``MessageTrigger/inAppShown`` or ``MessageTrigger/inAppClicked``,
    /// on `button`) of campaign `campaignId` for the first time: starts the person's wait for each
    /// message of the campaign's event (of that button, when the message names one), unless they
    /// skip triggers. `profile` finds the person only when a message is there: a campaign without
    /// such messages pays one look at the kept directory, and no query.
    static func noteInApp(
        _ tx: any StoreTransaction, directory: TriggerDirectory, campaignId: Int64, event: String, button: String?,
        profile: () throws -> Profile?, now: Int64
    ) throws {
        let messages = try directory.inAppEvents(tx, campaignId: campaignId, now: now).filter {
            $0.eventName == event && ($0.button == nil || $0.button == button)
        }
        guard !messages.isEmpty, let profile = try profile(), !profile.skipTriggers else { return }
        for trigger in messages { try arm(tx, trigger, profile: profile, now: now) }
    }
}
