import Foundation
import TernProtocol

/// Per-project provider credentials as files under the data directory:
/// `credentials/<project_id>/apns.json`, `fcm.json`, `hms.json` (directories 0700, files 0600).
/// The admin API writes them; an operator may write them too (same JSON), and a changed file is
/// read again at the next send.
///
/// ```swift
/// let credentials = CredentialStore(directory: dataDirectory + "/credentials")
/// try await credentials.put(.apns, projectId: 1, json: body)
/// ```
///
/// With a shared PostgreSQL (several nodes), credentials are kept in the database instead, so every
/// node sends with what any node was given; a file an operator wrote is still read when the database
/// has none for that project and provider.
public actor CredentialStore {
    nonisolated let directory: String
    private let database: PostgresStore?
    private var cache: [String: (stamp: FileStamp, credential: ProviderCredential)] = [:]
    private var databaseCache: [String: (updatedAt: Int64, credential: ProviderCredential)] = [:]

    /// What tells a credential file changed: its inode (an editor or `PrivateFile.write` replaces
    /// the file), its size and its modification time to the nanosecond.
    struct FileStamp: Equatable {
        let inode: UInt64
        let size: Int64
        let modifiedNanoseconds: Int64
    }

    init(directory: String, database: PostgresStore? = nil) {
        self.directory = directory
        self.database = database
    }

    /// `DIR/credentials` for a server whose data directory is `dataDirectory`.
    nonisolated func path(_ kind: PushProvider, projectId: Int64) -> String {
        "\(directory)/\(projectId)/\(kind.credentialName).json"
    }

    /// Checks `json` and stores it with mode 0600, replacing the project's earlier credential.
    /// - Throws: `CredentialError` when the credential is unusable or cannot be written.
    @discardableResult
    func put(_ kind: PushProvider, projectId: Int64, json: Data) async throws(CredentialError)
        -> CredentialSummary
    {
        let credential = try ProviderCredential.decode(kind, from: json)
        if let database {
            let now = ServerClock.milliseconds()
            do {
                try await database.putProviderCredential(
                    projectId: projectId, kind: kind.credentialName, json: try credential.encoded(), now: now)
            } catch {
                throw CredentialError("cannot store the \(kind.title) credentials in the database: \(error)")
            }
            databaseCache[path(kind, projectId: projectId)] = nil
            return CredentialSummary.of(credential, projectId: projectId, updatedAt: now)
        }
        let file = path(kind, projectId: projectId)
        let folder = (file as NSString).deletingLastPathComponent
        do {
            for dir in [directory, folder] where !FileManager.default.fileExists(atPath: dir) {
                try FileManager.default.createDirectory(
                    atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            if let problem = PrivateFile.write(try credential.encoded(), to: file) { throw CredentialError(problem) }
        } catch let error as CredentialError {
            throw error
        } catch {
            throw CredentialError("cannot store the \(kind.title) credentials under \(directory): \(error)")
        }
        cache[file] = nil
        return CredentialSummary.of(credential, projectId: projectId, updatedAt: Self.stamp(file)?.millis ?? 0)
    }

    /// The project's credential for `kind`; nil when none is configured.
    /// - Throws: `CredentialError` when the file exists but cannot be used (it names the file).
    func credential(_ kind: PushProvider, projectId: Int64) async throws(CredentialError)
        -> ProviderCredential?
    {
        if let (credential, _) = try await stored(kind, projectId: projectId) { return credential }
        return try fileCredential(kind, projectId: projectId)
    }

    /// The credential in the database and when it was written; nil without a database or a row.
    private func stored(_ kind: PushProvider, projectId: Int64) async throws(CredentialError)
        -> (ProviderCredential, Int64)?
    {
        guard let database else { return nil }
        let key = path(kind, projectId: projectId)
        let row: (json: Data, updatedAt: Int64)?
        do {
            row = try await database.providerCredential(projectId: projectId, kind: kind.credentialName)
        } catch {
            throw CredentialError("cannot read the \(kind.title) credentials from the database: \(error)")
        }
        guard let row else {
            databaseCache[key] = nil
            return nil
        }
        if let cached = databaseCache[key], cached.updatedAt == row.updatedAt {
            return (cached.credential, row.updatedAt)
        }
        do {
            let credential = try ProviderCredential.decode(kind, from: row.json)
            databaseCache[key] = (row.updatedAt, credential)
            return (credential, row.updatedAt)
        } catch {
            throw CredentialError(
                "the \(kind.title) credentials of project \(projectId) in the database: \(error.reason)")
        }
    }

    private func fileCredential(_ kind: PushProvider, projectId: Int64) throws(CredentialError) -> ProviderCredential? {
        let file = path(kind, projectId: projectId)
        guard let stamp = Self.stamp(file) else {
            cache[file] = nil
            return nil
        }
        if let cached = cache[file], cached.stamp == stamp.stamp { return cached.credential }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CredentialError("\(file) cannot be read: check its owner and mode (0600)")
        }
        do {
            let credential = try ProviderCredential.decode(kind, from: data)
            cache[file] = (stamp.stamp, credential)
            return credential
        } catch {
            throw CredentialError("\(file): \(error.reason)")
        }
    }

    /// What is configured for the project, without secrets.
    func summaries(projectId: Int64) async -> [CredentialSummary] {
        var summaries: [CredentialSummary] = []
        for kind in PushProvider.allCases {
            if let (credential, updated) = try? await stored(kind, projectId: projectId) {
                summaries.append(CredentialSummary.of(credential, projectId: projectId, updatedAt: updated))
            } else if let credential = try? fileCredential(kind, projectId: projectId) {
                let updated = Self.stamp(path(kind, projectId: projectId))?.millis ?? 0
                summaries.append(CredentialSummary.of(credential, projectId: projectId, updatedAt: updated))
            }
        }
        return summaries
    }

    /// Removes the project's credential for `kind`; false when there was none.
    @discardableResult
    func delete(_ kind: PushProvider, projectId: Int64) async -> Bool {
        let file = path(kind, projectId: projectId)
        cache[file] = nil
        databaseCache[file] = nil
        let inDatabase =
            (try? await database?.deleteProviderCredential(projectId: projectId, kind: kind.credentialName)) ?? false
        let onDisk = (try? FileManager.default.removeItem(atPath: file)) != nil
        return inDatabase || onDisk
    }

    /// The file's stamp, from `stat(2)`; nil when there is no file. Every batch of sends asks, so it
    /// is one system call: `FileManager.attributesOfItem` also looked up the owner's and the group's
    /// names, reading /etc/passwd and /etc/group each time.
    private static func stamp(_ file: String) -> (stamp: FileStamp, millis: Int64)? {
        var status = stat()
        guard stat(file, &status) == 0 else { return nil }
        #if canImport(Darwin)
            let modified = status.st_mtimespec
        #else
            let modified = status.st_mtim
        #endif
        let nanoseconds = Int64(modified.tv_sec) * 1_000_000_000 + Int64(modified.tv_nsec)
        return (
            FileStamp(inode: UInt64(status.st_ino), size: Int64(status.st_size), modifiedNanoseconds: nanoseconds),
            nanoseconds / 1_000_000
        )
    }
}
