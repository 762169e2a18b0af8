import SwiftUI

/// The example app: Tern set up in the app delegate, its events shown in one screen.
@main
struct TernExampleApp: App {
    @UIApplicationDelegateAdaptor(AppDelegate.self) private var appDelegate

    var body: some Scene {
        WindowGroup {
            ContentView(log: appDelegate.log)
        }
    }
}
