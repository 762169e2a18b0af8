#if os(iOS)
    import SwiftUI
    import TernInApp
    import UIKit
    import WebKit

    /// The SDK's own drawing of in-app messages: a window above the app's active scene, with HTML
    /// in a web view (its script talks through `InAppScriptBridge`) and templates in SwiftUI.
    /// Nothing is visible until everything is loaded; a load failure is reported and nothing stays.
    @MainActor
    public final class InAppWindowPresenter: InAppPresenter {
        /// The presenter `.ternInAppMessages(handlers:)` installs.
        public static let shared = InAppWindowPresenter()

        private var window: UIWindow?
        private var current: InAppPresentation?
        private var channel: InAppDisplayChannel?
        private var webView: WKWebView?
        private var bridge: InAppScriptBridge?
        private var orientationObserver: (any NSObjectProtocol)?
        /// The device's last upright orientation, so a turn is reported once (a device laid flat
        /// and picked up again has not turned).
        private var lastOrientation: UIDeviceOrientation = .unknown

        /// A presenter with no window yet.
        public init() {}

        public func present(_ presentation: InAppPresentation?, channel: InAppDisplayChannel) {
            self.channel = channel
            observeOrientation()
            tearDown()
            guard let presentation else { return }
            guard let scene = Self.activeScene() else {
                channel.failed(presentation.id, .content("there is no active window scene to show the message in"))
                return
            }
            if scene.interfaceOrientation.isLandscape {
                channel.orientationChanged(landscape: true)
                return
            }
            current = presentation
            let window = UIWindow(windowScene: scene)
            window.windowLevel = .alert + 1
            window.backgroundColor = .clear
            window.isHidden = true
            self.window = window
            switch presentation.campaign.content.kind {
            case .html: loadHTML(presentation, in: window)
            case .template: loadTemplate(presentation, in: window)
            }
        }

        public func layout(_ id: String, _ layout: InAppLayout) {
            guard current?.id == id, let window else { return }
            apply(layout, to: window)
            if window.isHidden, layout != .awaitingGeometry { reveal(id) }
        }

        // MARK: Loading

        private func loadHTML(_ presentation: InAppPresentation, in window: UIWindow) {
            guard let channel else { return }
            let configuration = WKWebViewConfiguration()
            let bridge = InAppScriptBridge(presentationId: presentation.id, channel: channel) { [weak self] id in
                self?.contentLoaded(id)
            }
            configuration.userContentController.add(bridge, name: InAppScriptBridge.handlerName)
            configuration.userContentController.addUserScript(
                WKUserScript(source: InAppScriptBridge.script, injectionTime: .atDocumentStart, forMainFrameOnly: true))
            let webView = WKWebView(frame: window.bounds, configuration: configuration)
            webView.isOpaque = false
            webView.backgroundColor = .clear
            webView.scrollView.contentInsetAdjustmentBehavior = .never
            webView.navigationDelegate = bridge
            webView.autoresizingMask = [.flexibleWidth, .flexibleHeight]
            let controller = UIViewController()
            controller.view = webView
            window.rootViewController = controller
            self.webView = webView
            self.bridge = bridge
            webView.loadHTMLString(presentation.campaign.content.html ?? "", baseURL: presentation.baseURL)
        }

        private func loadTemplate(_ presentation: InAppPresentation, in window: UIWindow) {
            guard let channel, let template = presentation.campaign.content.template else { return }
            var image: UIImage?
            if let data = presentation.imageData {
                guard let decoded = UIImage(data: data) else {
                    channel.failed(presentation.id, .image("the template's image is not a picture iOS can draw"))
                    return
                }
                image = decoded
            }
            let id = presentation.id
            let view = InAppTemplateView(
                template: template, buttons: presentation.buttons, image: image,
                tap: { button in channel.clicked(id, buttonId: button.id, action: button.action) },
                close: { channel.closed(id) })
            let host = UIHostingController(rootView: view)
            host.view.backgroundColor = .clear
            window.rootViewController = host
            contentLoaded(id)
        }

        /// Everything is loaded: a full-screen message shows now; a slide-up when its geometry is
        /// known (or the wait is over).
        private func contentLoaded(_ id: String) {
            guard let current, current.id == id, let window else { return }
            apply(current.layout, to: window)
            if current.layout != .awaitingGeometry { reveal(id) }
        }

        private func reveal(_ id: String) {
            guard let window, let view = window.rootViewController?.view else { return }
            window.isHidden = false
            if let animation = channel?.animation, let current {
                animation(ViewAnimator(view: view, campaignId: current.campaign.campaignId))
            }
            channel?.shown(id)
        }

        private func apply(_ layout: InAppLayout, to window: UIWindow) {
            guard let screen = window.windowScene?.screen.bounds else { return }
            switch layout {
            case .fullScreen, .awaitingGeometry: window.frame = screen
            case .sized(let geometry):
                let height = min(CGFloat(geometry.height), screen.height)
                let y = geometry.edge == .top ? screen.minY : screen.maxY - height
                window.frame = CGRect(x: screen.minX, y: y, width: screen.width, height: height)
            }
        }

        private func tearDown() {
            if let webView {
                webView.configuration.userContentController.removeScriptMessageHandler(
                    forName: InAppScriptBridge.handlerName)
                webView.navigationDelegate = nil
            }
            webView = nil
            bridge = nil
            window?.isHidden = true
            window?.rootViewController = nil
            window = nil
            current = nil
        }

        private func observeOrientation() {
            guard orientationObserver == nil else { return }
            UIDevice.current.beginGeneratingDeviceOrientationNotifications()
            orientationObserver = NotificationCenter.default.addObserver(
                forName: UIDevice.orientationDidChangeNotification, object: nil, queue: .main
            ) { [weak self] _ in
                let presenter = self
                Task { @MainActor in presenter?.orientationChanged() }
            }
        }

        private func orientationChanged() {
            let orientation = UIDevice.current.orientation
            guard orientation.isValidInterfaceOrientation, orientation != lastOrientation else { return }
            let first = lastOrientation == .unknown
            lastOrientation = orientation
            // The first reading says where the device is, not that it turned: it matters in
            // landscape only.
            guard !first || orientation.isLandscape else { return }
            channel?.orientationChanged(landscape: orientation.isLandscape)
        }

        private static func activeScene() -> UIWindowScene? {
            let scenes = UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene }
            return scenes.first { $0.activationState == .foregroundActive } ?? scenes.first
        }
    }

    /// The view of a message, for the app's animation.
    struct ViewAnimator: InAppAnimator {
        let view: UIView
        let campaignId: String

        var companyId: Int { Int(campaignId) ?? 0 }

        @MainActor func prepare(_ block: (UIView) -> Void) {
            block(view)
        }

        @MainActor func animate(
            duration: TimeInterval, delay: TimeInterval, options: UIView.AnimationOptions,
            animations: @escaping (UIView) -> Void, completion: ((Bool) -> Void)?
        ) {
            let view = self.view
            UIView.animate(
                withDuration: duration, delay: delay, options: options, animations: { animations(view) },
                completion: completion)
        }
    }
#endif
