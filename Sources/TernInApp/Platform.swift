import Foundation

/// The platform's lifecycle and system actions: the iOS ones in `Apple/`, none elsewhere.
enum PlatformLifecycle {
    /// Hands the app's lifecycle to the SDK where the platform has one.
    static func attach(_ core: CoreServices) {
        #if os(iOS)
            attachApple(core)
        #endif
    }
}

enum PlatformSystemActions {
    /// Opening links and asking for push permission where the platform can.
    static func make() -> any InAppSystemActions {
        #if os(iOS)
            return AppleSystemActions()
        #else
            return NoSystemActions()
        #endif
    }
}
