import Foundation

/// Turns a matched campaign into a presentation with nothing left to load that can fail unseen:
/// the content checked, relative URLs made absolute against the API's origin, the template's
/// image downloaded, and only the buttons the app can act on. A failure names the part that
/// failed; the campaign is then not shown.
struct PresentationBuilder: Sendable {
    var apiUrl: String
    var transport: any HTTPTransport
    var handlers: InAppHandlers
    var system: any InAppSystemActions
    /// The longest an image download may take.
    var imageTimeout: TimeInterval = 10

    func build(id: String, _ campaign: InAppCampaign) async -> Result<InAppPresentation, InAppLoadFailure> {
        let layout: InAppLayout = campaign.displayType == .slideup ? .awaitingGeometry : .fullScreen
        let content = campaign.content
        switch content.kind {
        case .html:
            let html = content.html ?? ""
            let base = content.baseURL
            guard !html.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                return .failure(.content("the campaign's HTML is empty"))
            }
            var baseURL: URL?
            if let base {
                guard let resolved = resolve(base) else {
                    return .failure(.staticResource("the campaign's base_url \"\(base)\" is not a URL"))
                }
                baseURL = resolved
            }
            return .success(
                InAppPresentation(id: id, campaign: campaign, buttons: [], baseURL: baseURL, layout: layout))
        case .template:
            guard let template = content.template else { return .failure(.content("the template is missing")) }
            guard !template.title.isEmpty else { return .failure(.content("the template has no title")) }
            var imageData: Data?
            if let image = template.imageURL {
                switch await download(image) {
                case .success(let data): imageData = data
                case .failure(let failure): return .failure(failure)
                }
            }
            let buttons = (template.buttons ?? []).filter {
                ButtonRules.drawable($0.action, handlers: handlers, system: system)
            }
            return .success(
                InAppPresentation(id: id, campaign: campaign, buttons: buttons, imageData: imageData, layout: layout))
        }
    }

    /// An absolute http(s) URL as it is; a path (`/api/v1/inapp/static/…`) against the Tern server
    /// the API URL names (behind the same path prefix, when the server is behind one).
    func resolve(_ text: String) -> URL? {
        if let url = URL(string: text), let scheme = url.scheme?.lowercased() {
            return scheme == "http" || scheme == "https" ? url : nil
        }
        guard text.hasPrefix("/") else { return nil }
        let api = apiUrl.hasSuffix("/") ? String(apiUrl.dropLast()) : apiUrl
        let prefix = String(Wire.apiPrefix.dropLast())
        if text.hasPrefix(Wire.apiPrefix), api.hasSuffix(prefix) {
            return URL(string: String(api.dropLast(prefix.count)) + text)
        }
        guard var origin = URLComponents(string: apiUrl) else { return nil }
        origin.path = ""
        origin.query = nil
        guard let base = origin.url else { return nil }
        return URL(string: base.absoluteString + text)
    }

    private func download(_ text: String) async -> Result<Data, InAppLoadFailure> {
        guard let url = resolve(text) else { return .failure(.image("the image URL \"\(text)\" is not a URL")) }
        do {
            let response = try await transport.send(
                TransportRequest(url: url, method: "GET", body: Data(), timeout: imageTimeout))
            guard (200..<300).contains(response.status) else {
                return .failure(.image("the image \(url.absoluteString) answered HTTP \(response.status)"))
            }
            guard !response.body.isEmpty else { return .failure(.image("the image \(url.absoluteString) is empty")) }
            if let type = response.headers["content-type"], !type.lowercased().hasPrefix("image/") {
                return .failure(.image("the image \(url.absoluteString) is \(type), not an image"))
            }
            return .success(response.body)
        } catch {
            return .failure(.image("the image \(url.absoluteString) did not load: \(error)"))
        }
    }
}
