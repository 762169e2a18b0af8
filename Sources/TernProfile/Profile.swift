import Foundation
@_exported import TernCore
@_exported import TernProtocol

extension Tern {
    /// The profile module: profile fields (JWT only) and tags of the install's current binding.
    ///
    /// ```swift
    /// Tern.shared.profile.update.updateProfileFields(profileFields: ["_fname": "Andrey"])
    /// Tern.shared.profile.tags.setTags(["interest": "travel"])
    /// ```
    public var profile: Profile {
        core.register(ProfileModule(core: core))
        return Profile(core: core)
    }
}

/// `Tern.shared.profile`.
public struct Profile: Sendable {
    let core: CoreServices

    /// Updating the profile's fields.
    public var update: UpdateAPI { UpdateAPI(core: core) }
    /// Tags of the install's current binding.
    public var tags: TagsAPI { TagsAPI(core: core) }
}

/// The profile module as the core initializes and clears it: its requests live in the core's
/// outbox, which `clear()` already empties.
struct ProfileModule: TernModule {
    let core: CoreServices
    var moduleName: String { "profile" }
    var parts: ModuleParts {
        ModuleParts(events: ProfileModuleEvents.allCases + TagsEvents.allCases + PreferencesEvents.allCases)
    }
    func initialize(_ ready: ReadyCore) async throws {}
    func clear(_ core: ReadyCore) async {}
}

/// Found by name when the SDK initializes (`TernModuleEntry`), so the module comes up whether or
/// not the app touched it first.
public enum TernModuleEntryPoint: TernModuleEntry {
    public static func module(_ core: CoreServices) -> any TernModule {
        ProfileModule(core: core)
    }
}
