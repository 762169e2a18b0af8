import Foundation

/// Where the SDK keeps its database: the app-group container shared by the app and its
/// Notification Service Extension.
public protocol AppGroupContainer: Sendable {
    /// The directory for `groupName`; for nil, a directory private to this process's app.
    /// Throws with a reason when the directory cannot be found or made.
    func directory(forGroup groupName: String?) throws -> URL
}

/// The container as a plain directory: `root/<group>` (or `root/private` without a group). Used on
/// Linux, in tests and by the simulated device; two processes given the same root share the database.
public struct DirectoryContainer: AppGroupContainer {
    /// The directory that holds one folder per app group (and `private` for none).
    public let root: URL

    /// A container under `root`.
    ///
    /// - Parameter root: The directory to keep the SDK's folders in; made when first needed.
    public init(root: URL) {
        self.root = root
    }

    public func directory(forGroup groupName: String?) throws -> URL {
        let name = groupName.map { $0.replacingOccurrences(of: "/", with: "_") } ?? "private"
        let directory = root.appendingPathComponent(name, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw TernError("cannot create the SDK's directory \(directory.path): \(error.localizedDescription)")
        }
        return directory
    }
}
