import Foundation
import TernProtocol

/// One installation as the identity journal keeps it: the push subscription of one token on one
/// resource, its binding, and the profiles a change moves it between.
public struct IdentityInstallation: Sendable, Equatable {
    /// The store's row id.
    public var id: Int64
    var resourceId: Int64
    var provider: String
    var token: String
    /// The binding the wire shows.
    var binding: IdentityBinding
    /// The profile the installation is bound to (nil when anonymous).
    var profileId: Int64?
    /// The profile that held the token when the installation was first seen: where a logout returns.
    var anonymousProfileId: Int64?
}

/// An operation applied to an installation, with the answer it got.
public struct AppliedIdentityOperation: Sendable, Equatable {
    /// A digest of what the operation asked (kind, person, expected binding).
    var fingerprint: String
    var status: Int
    var answer: Data
}

/// The identity journal's rows: policies per project, bindings per installation, applied operations.
public protocol IdentityQueries {
    /// The project's policy; nil when it was never set (then it is BASIC at revision 1).
    func identityPolicy(projectId: Int64) throws -> IdentityPolicy?
    /// Saves the project's policy.
    func setIdentityPolicy(projectId: Int64, _ policy: IdentityPolicy, now: Int64) throws
    /// The installation of this token on the resource, nil when never seen.
    func identityInstallation(resourceId: Int64, provider: String, token: String) throws -> IdentityInstallation?
    /// Adds an installation at its initial binding (nothing when another writer added it first).
    func insertIdentityInstallation(
        resourceId: Int64, provider: String, token: String, anonymousProfileId: Int64?, now: Int64) throws
    /// Saves a changed binding if the stored one is still `expectedBindingId`; false when it is not.
    func updateIdentityInstallation(_ installation: IdentityInstallation, expectedBindingId: String) throws -> Bool
    /// The operation applied to the installation under this id, nil when none was.
    func identityOperation(installationId: Int64, operationId: String) throws -> AppliedIdentityOperation?
    /// Records an applied operation and its answer.
    func insertIdentityOperation(
        installationId: Int64, operationId: String, _ applied: AppliedIdentityOperation, now: Int64) throws
    /// How many operations were applied to the installation (tests and the management API).
    func identityOperationCount(installationId: Int64) throws -> Int64
}
