import Foundation

/// A module of the SDK (push, target, profile, …) as the core sees it: initialized after the
/// configuration is set, with its outcome in the initialization report, and cleared by `clear()`.
/// Public for Tern's modules.
public protocol TernModule: Sendable {
    /// `push`, `target`, … as the initialization report names it.
    var moduleName: String { get }
    /// What the module brings besides its init step: event kinds, migrations, a body finalizer,
    /// configuration checks. Read once, when the module registers.
    var parts: ModuleParts { get }
    /// Prepares the module once the core is ready; throw with a reason when it cannot work.
    func initialize(_ core: ReadyCore) async throws
    /// Forgets everything the module keeps (`Tern.clear`).
    func clear(_ core: ReadyCore) async
    /// The user signed in (`authenticate()`, `signedIn` true) or out (`logOut()`): called after the
    /// core queued its own request, in call order with the app's other calls.
    func authenticationChanged(_ core: ReadyCore, signedIn: Bool) async
    /// The server confirmed a change of the installation's person made with `Tern.shared.identity`
    /// (`bound` false: anonymous now): the module forgets what belonged to the previous person. By
    /// default it does what it does for ``authenticationChanged(_:signedIn:)``.
    func identityChanged(_ core: ReadyCore, bound: Bool) async
}

extension TernModule {
    /// A module written before ``ModuleParts`` existed brings none.
    public var parts: ModuleParts { ModuleParts() }

    /// Most modules keep nothing per user.
    public func authenticationChanged(_ core: ReadyCore, signedIn: Bool) async {}

    /// What the module does for a sign-in or sign-out.
    public func identityChanged(_ core: ReadyCore, bound: Bool) async {
        await authenticationChanged(core, signedIn: bound)
    }
}

/// How a module is found when the SDK initializes, whatever the app touched first: each module
/// product declares `public enum TernModuleEntryPoint: TernModuleEntry` in its own module, and
/// ``Tern/initialization(configuration:completion:)`` brings up every one that is linked, in
/// one fixed order (push, target, profile, …), reporting each in its ``ModuleInitStatus``.
public protocol TernModuleEntry {
    /// The module for this SDK instance.
    static func module(_ core: CoreServices) -> any TernModule
}

/// Where the entry points are looked for. Swift cannot list the types of the linked modules, so
/// the one thing TernCore holds about modules is the product names to look in, in initialization
/// order; everything else (the module's name, events, migrations, finalizer) comes from the module.
/// A product that is not linked is simply not found. A new module product adds its name here or
/// registers itself (``CoreServices/register(_:)``), after the linked ones.
enum ModuleDiscovery {
    static let products = ["TernPush", "TernTarget", "TernProfile", "TernInApp", "TernInbox"]

    /// The linked modules' instances for `core`, in ``products`` order (or the environment's
    /// `moduleProducts`, when it names them).
    static func linked(_ core: CoreServices) -> [any TernModule] {
        (core.environment.moduleProducts ?? products).compactMap { product in
            (_typeByName(mangledName(product)) as? any TernModuleEntry.Type)?.module(core)
        }
    }

    /// The mangled name of `<product>.TernModuleEntryPoint`, an enum (the lookup takes mangled names).
    static func mangledName(_ product: String) -> String {
        let entry = "TernModuleEntryPoint"
        return "\(product.utf8.count)\(product)\(entry.utf8.count)\(entry)O"
    }
}
