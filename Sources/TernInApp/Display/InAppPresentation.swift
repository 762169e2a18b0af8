import Foundation

/// Where a slide-up sits and how tall it is, as its content's script answers.
public struct InAppGeometry: Sendable, Equatable, Codable {
    /// The screen edge the panel slides from.
    public enum Edge: String, Sendable, Codable {
        /// The panel hangs from the top of the screen.
        case top
        /// The panel rests on the bottom of the screen.
        case bottom
    }

    /// The edge.
    public var edge: Edge
    /// The panel's height in points (more than 0).
    public var height: Double

    /// A geometry.
    public init(edge: Edge, height: Double) {
        self.edge = edge
        self.height = height
    }

    /// The geometry a page's script sends (`{"edge": "top"|"bottom", "height": points}`), nil when
    /// it is not one.
    public init?(message: [String: JSONValue]) {
        guard let edge = message["edge"]?.stringValue.flatMap(Edge.init(rawValue:)),
            let height = message["height"].flatMap({ $0.doubleValue }), height > 0, height.isFinite
        else { return nil }
        self.init(edge: edge, height: height)
    }
}

/// How a presentation is laid out.
public enum InAppLayout: Sendable, Equatable {
    /// Covering the screen.
    case fullScreen
    /// A slide-up whose script has not given its geometry yet: kept off screen.
    case awaitingGeometry
    /// A slide-up at its script's geometry.
    case sized(InAppGeometry)
}

/// One display of a campaign, handed to the presenter (the SDK's window, or the app's own through
/// ``InApp/start(presenting:)``): everything it needs is loaded, and only buttons the app can
/// act on are in ``buttons``.
public struct InAppPresentation: Sendable, Equatable, Identifiable {
    /// This display (one per time a campaign is shown).
    public let id: String
    /// The campaign as placed.
    public let campaign: InAppCampaign
    /// The template's buttons that are drawn: a button whose action has no handler and no default is left out.
    public let buttons: [InAppButton]
    /// The template's image, already downloaded (nil when it has none, or for HTML).
    public let imageData: Data?
    /// Where an HTML campaign's relative URLs resolve, made absolute.
    public let baseURL: URL?
    /// How it is laid out now.
    public internal(set) var layout: InAppLayout

    /// A presentation (the SDK makes them; public for presenters' tests).
    public init(
        id: String, campaign: InAppCampaign, buttons: [InAppButton], imageData: Data? = nil, baseURL: URL? = nil,
        layout: InAppLayout
    ) {
        self.id = id
        self.campaign = campaign
        self.buttons = buttons
        self.imageData = imageData
        self.baseURL = baseURL
        self.layout = layout
    }

    /// The campaign's display type.
    public var displayType: InAppDisplayType { campaign.displayType }
}

/// A part of a campaign that could not be loaded: the campaign is not shown (or is taken down), an
/// event says why, and the next campaign still shows.
public enum InAppLoadFailure: Error, Sendable, Equatable {
    /// The template's image (`errorInAppImageLoad`).
    case image(String)
    /// An HTML campaign's static resource: an image, a font, a style sheet (`inAppStaticErrorLoad`).
    case staticResource(String)
    /// The content itself: HTML that does not load, a template that cannot be drawn (`inAppContentErrorLoad`).
    case content(String)

    /// The reason, for the event and the server's statistics.
    public var reason: String {
        switch self {
        case .image(let reason), .staticResource(let reason), .content(let reason): reason
        }
    }

    var event: InAppModuleEvents {
        switch self {
        case .image: .errorInAppImageLoad
        case .staticResource: .inAppStaticErrorLoad
        case .content: .inAppContentErrorLoad
        }
    }
}
