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

/// How a module is found when the SDK initializes, whatever the app touched first: each module
/// product declares `public enum TernModuleEntryPoint: TernModuleEntry` in its own module, and
/// ``Tern/initialization(configuration:completion:)`` brings up every one that is linked, in
/// one fixed order (push, target, profile, …), reporting each in its ``ModuleInitStatus``.
public protocol TernModuleEntry {
    /// The module for this SDK instance.
    static func module(_ core: CoreServices) -> any TernModule
}

/// The SDK's module products, by name only: TernCore looks each one's entry point up by name and
/// knows nothing else about it; a product that is not linked is simply not found.
enum ModuleDiscovery {
    static let products = ["TernPush", "TernTarget", "TernProfile", "TernInApp", "TernInbox", "TernPreferences"]

    /// The linked modules' instances for `core`, in ``products`` order.
    static func linked(_ core: CoreServices) -> [any TernModule] {
        products.compactMap { product in
            (_typeByName(mangledName(product)) as? any TernModuleEntry.Type)?.module(core)
        }
    }

    /// The mangled name of `<product>.TernModuleEntryPoint`, an enum (the lookup takes mangled names).
    static func mangledName(_ product: String) -> String {
        let entry = "TernModuleEntryPoint"
        return "\(product.utf8.count)\(product)\(entry.utf8.count)\(entry)O"
    }

    /// A module's place in the initialization order: the products' order, any other after them.
    static func rank(_ module: any TernModule) -> Int {
        let names = ["push", "target", "profile", "inapp", "inbox", "preferences"]
        return names.firstIndex(of: module.moduleName.lowercased()) ?? names.count
    }
}
