import Foundation

/// Draws in-app messages: the SDK's own window on iOS (`TernInAppUI`), or the app's through
/// ``InApp/start(presenting:)``. The SDK hands it one presentation at a time, with everything
/// loaded; the presenter answers through the ``InAppDisplayChannel`` it was handed.
public protocol InAppPresenter: Sendable {
    /// Shows `presentation` (report ``InAppDisplayChannel/shown(_:)`` once it is fully drawn, or
    /// ``InAppDisplayChannel/failed(_:_:)``); nil takes down what is shown.
    @MainActor func present(_ presentation: InAppPresentation?, channel: InAppDisplayChannel)
    /// A slide-up's layout changed (its geometry arrived, or it waited a second and covers the screen).
    @MainActor func layout(_ id: String, _ layout: InAppLayout)
}

/// The presenter's line back to the SDK: what happened to a presentation, and the app's
/// animation. Reports are taken in the order they are made.
public struct InAppDisplayChannel: Sendable {
    let inputs: AsyncStream<DisplayQueue.Input>.Continuation
    /// The app's animation (``InApp/animation(_:)``), to run once the content is loaded.
    public let animation: (@MainActor @Sendable (any InAppAnimator) -> Void)?

    init(
        inputs: AsyncStream<DisplayQueue.Input>.Continuation,
        animation: (@MainActor @Sendable (any InAppAnimator) -> Void)?
    ) {
        self.inputs = inputs
        self.animation = animation
    }

    /// Everything is drawn and on screen: counted against the caps and reported `shown`.
    public func shown(_ id: String) { inputs.yield(.shown(id)) }
    /// A button was tapped: reported `clicked`, its action done, the message closed. For HTML the
    /// page's script names the button and may give its action.
    public func clicked(_ id: String, buttonId: String, action: InAppAction? = nil) {
        inputs.yield(.clicked(id, buttonId: buttonId, action: action))
    }
    /// The person closed it (or the presenter had to): reported `closed`, the next one comes.
    public func closed(_ id: String) { inputs.yield(.closed(id)) }
    /// Something could not be loaded: an event, reported `error`, nothing stays on screen.
    public func failed(_ id: String, _ failure: InAppLoadFailure) { inputs.yield(.failed(id, failure)) }
    /// A slide-up's script gave its geometry.
    public func geometry(_ id: String, _ geometry: InAppGeometry) { inputs.yield(.geometry(id, geometry)) }
    /// The screen turned (to landscape or not; call it once a turn): what is open is closed, and
    /// in landscape nothing is shown.
    public func orientationChanged(landscape: Bool) { inputs.yield(.orientation(landscape: landscape)) }
}

/// The app's own drawing (``InApp/start(presenting:)``): handed each presentation and nil when it
/// must go; a presentation counts as shown when it is handed over.
struct ClosurePresenter: InAppPresenter {
    let body: @MainActor @Sendable (InAppPresentation?) -> Void

    func present(_ presentation: InAppPresentation?, channel: InAppDisplayChannel) {
        body(presentation)
        if let presentation { channel.shown(presentation.id) }
    }

    func layout(_ id: String, _ layout: InAppLayout) {}
}
