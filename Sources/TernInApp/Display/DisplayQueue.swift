import Foundation

/// What the server hears about a display, once each.
enum DisplayReport: Sendable, Equatable {
    case shown
    case clicked(buttonId: String)
    case closed
    case error(InAppLoadFailure)
}

/// The display queue: one presentation at a time, never in landscape, taken down on rotation; a
/// slide-up waits up to a second for its geometry, then covers the screen. A state machine: each
/// input gives the commands the engine runs against the presenter, the outbox and the handlers. Pure.
struct DisplayQueue: Sendable {
    enum Phase: Sendable, Equatable {
        case idle
        /// Handed to the presenter, which loads it; not on screen yet.
        case loading(InAppPresentation)
        /// On screen.
        case showing(InAppPresentation)
    }

    enum Input: Sendable, Equatable {
        case enqueue(InAppPresentation)
        /// The presenter put it on screen (everything loaded).
        case shown(String)
        case geometry(String, InAppGeometry)
        case geometryTimeout(String)
        /// A button: its id, and the action (a template's is looked up when nil).
        case clicked(String, buttonId: String, action: InAppAction?)
        /// The person or the app closed it.
        case closed(String)
        case failed(String, InAppLoadFailure)
        case orientation(landscape: Bool)
        /// ``InApp/stop()``: take down what is shown, forget what waits.
        case stop
    }

    enum Command: Sendable, Equatable {
        /// Hand it to the presenter (nil: take down what is shown).
        case present(InAppPresentation?)
        case startGeometryTimer(String)
        case layout(String, InAppLayout)
        case report(InAppPresentation, DisplayReport)
        case perform(InAppAction)
        /// Not shown: why (a campaign already waiting, landscape).
        case dropped(InAppPresentation, String)
    }

    private(set) var phase: Phase = .idle
    private(set) var pending: [InAppPresentation] = []
    private(set) var landscape = false

    var current: InAppPresentation? {
        switch phase {
        case .idle: nil
        case .loading(let presentation), .showing(let presentation): presentation
        }
    }

    /// True when `campaignId` is on screen or waiting.
    func holds(_ campaignId: String) -> Bool {
        current?.campaign.campaignId == campaignId || pending.contains { $0.campaign.campaignId == campaignId }
    }

    mutating func handle(_ input: Input) -> [Command] {
        switch input {
        case .enqueue(let presentation):
            if landscape { return [.dropped(presentation, "the screen is in landscape")] }
            if holds(presentation.campaign.campaignId) {
                return [.dropped(presentation, "the campaign is already shown or waiting")]
            }
            pending.append(presentation)
            return phase == .idle ? next() : []
        case .shown(let id):
            guard case .loading(let presentation) = phase, presentation.id == id else { return [] }
            phase = .showing(presentation)
            return [.report(presentation, .shown)]
        case .geometry(let id, let geometry):
            guard var presentation = current, presentation.id == id, presentation.layout == .awaitingGeometry else {
                return []
            }
            presentation.layout = .sized(geometry)
            replaceCurrent(presentation)
            return [.layout(id, presentation.layout)]
        case .geometryTimeout(let id):
            guard var presentation = current, presentation.id == id, presentation.layout == .awaitingGeometry else {
                return []
            }
            presentation.layout = .fullScreen
            replaceCurrent(presentation)
            return [.layout(id, .fullScreen)]
        case .clicked(let id, let buttonId, let action):
            guard case .showing(let presentation) = phase, presentation.id == id else { return [] }
            let chosen = action ?? presentation.buttons.first { $0.id == buttonId }?.action
            var commands: [Command] = [.report(presentation, .clicked(buttonId: buttonId))]
            if let chosen { commands.append(.perform(chosen)) }
            return commands + takeDown(reportClosed: true)
        case .closed(let id):
            guard current?.id == id else { return [] }
            return takeDown(reportClosed: true)
        case .failed(let id, let failure):
            guard let presentation = current, presentation.id == id else { return [] }
            return [.report(presentation, .error(failure))] + takeDown(reportClosed: false)
        case .orientation(let isLandscape):
            // Any turn closes what is open (the reference: "when the screen is rotated"), a turn
            // to portrait upside down too; only landscape drops what waits and keeps the rest away.
            landscape = isLandscape
            var dropped: [Command] = []
            if isLandscape {
                dropped = pending.map { Command.dropped($0, "the screen turned to landscape") }
                pending = []
            }
            return dropped + (current == nil ? [] : takeDown(reportClosed: true))
        case .stop:
            let dropped = pending.map { Command.dropped($0, "in-app messages were stopped") }
            pending = []
            return dropped + (current == nil ? [] : takeDown(reportClosed: true))
        }
    }

    /// Takes the current presentation down (reporting `closed` when it was on screen and
    /// `reportClosed`), then presents the next.
    private mutating func takeDown(reportClosed: Bool) -> [Command] {
        var commands: [Command] = [.present(nil)]
        if reportClosed, case .showing(let presentation) = phase { commands.append(.report(presentation, .closed)) }
        phase = .idle
        return commands + next()
    }

    private mutating func next() -> [Command] {
        guard phase == .idle, !pending.isEmpty else { return [] }
        let presentation = pending.removeFirst()
        phase = .loading(presentation)
        var commands: [Command] = [.present(presentation)]
        if presentation.layout == .awaitingGeometry { commands.append(.startGeometryTimer(presentation.id)) }
        return commands
    }

    private mutating func replaceCurrent(_ presentation: InAppPresentation) {
        switch phase {
        case .loading: phase = .loading(presentation)
        case .showing: phase = .showing(presentation)
        case .idle: break
        }
    }
}
