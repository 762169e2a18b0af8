#if os(iOS)
    import Foundation
    import TernInApp
    import WebKit

    /// What an HTML campaign's script can tell the SDK, through `window.tern`:
    ///
    /// ```js
    /// tern.click("buy", {type: "deep_link", value: "shop://cart"})  // a button: reported, done, closed
    /// tern.close()                                                  // the person closed it
    /// tern.geometry("bottom", 140)                                  // a slide-up's edge and height
    /// ```
    ///
    /// A resource of the page that fails to load (an image, a font, a style sheet) is reported as
    /// `inAppStaticErrorLoad`, the page itself as `inAppContentErrorLoad`; the message is then not shown.
    @MainActor
    final class InAppScriptBridge: NSObject {
        static let handlerName = "tern"

        /// Installed before the page's own scripts run.
        static let script = """
            (function () {
              function post(message) { window.webkit.messageHandlers.tern.postMessage(message); }
              window.tern = {
                click: function (id, action) { post({kind: "click", id: String(id), action: action || null}); },
                close: function () { post({kind: "close"}); },
                geometry: function (edge, height) { post({kind: "geometry", edge: edge, height: Number(height)}); }
              };
              window.addEventListener("error", function (event) {
                var target = event.target;
                if (target && target !== window && (target.src || target.href)) {
                  post({kind: "resourceError", url: String(target.src || target.href)});
                }
              }, true);
            })();
            """

        let presentationId: String
        let channel: InAppDisplayChannel
        let loaded: @MainActor (String) -> Void
        private var failed = false

        init(presentationId: String, channel: InAppDisplayChannel, loaded: @escaping @MainActor (String) -> Void) {
            self.presentationId = presentationId
            self.channel = channel
            self.loaded = loaded
        }

        func receive(_ body: Any) {
            guard let message = body as? [String: Any], let kind = message["kind"] as? String, !failed else { return }
            switch kind {
            case "click":
                guard let id = message["id"] as? String, !id.isEmpty else { return }
                channel.clicked(presentationId, buttonId: id, action: Self.action(message["action"]))
            case "close":
                channel.closed(presentationId)
            case "geometry":
                let values = message.compactMapValues { JSONValue(any: $0) }
                if let geometry = InAppGeometry(message: values) { channel.geometry(presentationId, geometry) }
            case "resourceError":
                failed = true
                let url = message["url"] as? String ?? "a resource"
                channel.failed(presentationId, .staticResource("\(url) did not load"))
            default:
                return
            }
        }

        func finished() {
            guard !failed else { return }
            loaded(presentationId)
        }

        func failedToLoad(_ error: any Error) {
            guard !failed else { return }
            failed = true
            channel.failed(presentationId, .content("the page did not load: \(error.localizedDescription)"))
        }

        /// An action the page gives with a click (the types of the wire's button actions).
        static func action(_ value: Any?) -> InAppAction? {
            guard let object = value as? [String: Any],
                let type = (object["type"] as? String).flatMap(
                    InAppAction.Kind.init(rawValue:))
            else { return nil }
            return InAppAction(type: type, value: object["value"] as? String, name: object["name"] as? String)
        }
    }

    extension InAppScriptBridge: @preconcurrency WKScriptMessageHandler {
        func userContentController(_ controller: WKUserContentController, didReceive message: WKScriptMessage) {
            receive(message.body)
        }
    }

    extension InAppScriptBridge: @preconcurrency WKNavigationDelegate {
        func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!) {
            finished()
        }

        func webView(_ webView: WKWebView, didFail navigation: WKNavigation!, withError error: any Error) {
            failedToLoad(error)
        }

        func webView(
            _ webView: WKWebView, didFailProvisionalNavigation navigation: WKNavigation!, withError error: any Error
        ) {
            failedToLoad(error)
        }
    }
#endif
