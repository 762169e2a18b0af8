import Foundation
import TernProtocol

extension ReadyCore {
    /// The APNs environment the device's token belongs to, sent with every subscription: the
    /// configuration's ``TernConfiguration/apnsEnvironment``, else the build's
    /// (``TernEnvironment/buildAPNsEnvironment``), else production.
    public var apnsEnvironment: APNsEnvironment {
        configuration.apnsEnvironment ?? runtime.environment.buildAPNsEnvironment() ?? .production
    }
}
