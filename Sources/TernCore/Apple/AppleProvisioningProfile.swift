#if os(iOS)
    import Foundation
    import TernProtocol

    /// The app's own build, as ``ProvisioningProfile`` reads it: the main bundle's
    /// `embedded.mobileprovision` (absent in App Store builds), and whether this is the simulator.
    /// Read once per process: a build does not change while it runs.
    public enum AppleProvisioningProfile {
        /// The running build's APNs environment; nil when its profile does not say.
        public static let environment: APNsEnvironment? = {
            #if targetEnvironment(simulator)
                let simulator = true
            #else
                let simulator = false
            #endif
            let profile = Bundle.main.url(forResource: "embedded", withExtension: "mobileprovision").flatMap {
                try? Data(contentsOf: $0)
            }
            return ProvisioningProfile.buildEnvironment(profile: profile, simulator: simulator)
        }()
    }
#endif
