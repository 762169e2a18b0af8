import Foundation

/// A module of the SDK (push, target, profile, …) as the core sees it: initialized after the
/// configuration is set, with its outcome in the initialization report, and cleared by `clear()`.
/// Public for Tern's modules.
public protocol TernModule: Sendable {
    /// `push`, `target`, … as the initialization report names it.
    var moduleName: String { get }
    /// Prepares the module once the core is ready; throw with a reason when it cannot work.
    func initialize(_ core: ReadyCore) async throws
    /// Forgets everything the module keeps (`Tern.clear`).
    func clear(_ core: ReadyCore) async
    /// The user signed in (`authenticate()`, `signedIn` true) or out (`logOut()`): called after the
    /// core queued its own request, in call order with the app's other calls.
    func authenticationChanged(_ core: ReadyCore, signedIn: Bool) async
}

extension TernModule {
    /// Most modules keep nothing per user.
    public func authenticationChanged(_ core: ReadyCore, signedIn: Bool) async {}
}
