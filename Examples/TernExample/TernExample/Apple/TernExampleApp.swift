import SwiftUI

/// The example app: Tern set up in the app delegate, its events shown in one screen. (Main actor:
/// its delegate adaptor is, and before the iOS 18 SDK `App` itself was not.)
@main
@MainActor
struct TernExampleApp: App {
    @UIApplicationDelegateAdaptor(AppDelegate.self) private var appDelegate

    var body: some Scene {
        WindowGroup {
            ContentView(log: appDelegate.log)
        }
    }
}
