#if os(iOS)
    import SwiftUI
    import TernInApp

    extension View {
        /// Shows the project's in-app messages over the app in the SDK's own window, with
        /// `handlers` for their buttons. Put it on the app's root view.
        ///
        /// ```swift
        /// ContentView().ternInAppMessages(handlers: InAppHandlers(onDeepLink: { url in router.open(url) }))
        /// ```
        @MainActor
        public func ternInAppMessages(handlers: InAppHandlers = InAppHandlers(), tern: Tern = .shared) -> some View {
            onAppear {
                tern.inApp.setHandlers(handlers)
                tern.inApp.setPresenter(InAppWindowPresenter.shared)
            }
        }
    }
#endif
