import TernCore
import TernPush
import UIKit

/// Sets Tern up before launch ends and hands it the APNs token.
final class AppDelegate: NSObject, UIApplicationDelegate {
    /// The SDK's events, newest first, for the screen.
    @MainActor let log = EventLog()

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]? = nil
    ) -> Bool {
        let tern = Tern.shared
        // The extension reads the configuration from this group's container.
        tern.setAppGroup(groupName: ExampleSettings.appGroup)
        let log = log
        tern.eventSDKFunctions.subscribe { event in log.append(event) }
        // Registered before launch ends, as BGTaskScheduler requires; the identifier is listed in
        // Info.plist under BGTaskSchedulerPermittedIdentifiers.
        tern.backgroundTasks.registerBackgroundTask()
        // Notification delegate, permission prompt and registerForRemoteNotifications(), before
        // launch ends so a tap that launched the app is not missed.
        tern.push.notificationManager.registerForPushNotifications(for: application)
        let configuration = TernConfiguration.Builder(apiUrl: ExampleSettings.apiURL)
            .setRToken(ExampleSettings.rToken)
            .build()
        tern.initialization(configuration: configuration) { statuses in
            for status in statuses { print("Tern module", status) }
        }
        return true
    }

    func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        Tern.shared.push.token.setToken(provider: "ios-apns", pushToken: deviceToken)
        Tern.shared.push.subscription.subscribe()
    }

    func application(_ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: Error) {
        print("APNs registration failed:", error.localizedDescription)
    }
}
