/// How a notification is shown while the app is in the foreground (`UNNotificationPresentationOptions`).
///
/// ```swift
/// manager.onForegroundNotification = { notification, complete in
///     complete([.banner, .badge, .sound])
/// }
/// ```
public struct PresentationOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Set the app badge to the push's number.
    public static let badge = PresentationOptions(rawValue: 1 << 0)
    /// Play the push's sound.
    public static let sound = PresentationOptions(rawValue: 1 << 1)
    /// The older name for a banner plus a place in the list.
    public static let alert = PresentationOptions(rawValue: 1 << 2)
    /// Put it in Notification Center's list.
    public static let list = PresentationOptions(rawValue: 1 << 3)
    /// Show it as a banner.
    public static let banner = PresentationOptions(rawValue: 1 << 4)

    /// What the SDK shows when the app does not choose: banner, list, sound and badge, without the
    /// badge when the app controls badging.
    public static func standard(applicationControlsBadging: Bool) -> PresentationOptions {
        applicationControlsBadging ? [.banner, .list, .sound] : [.banner, .list, .sound, .badge]
    }
}
