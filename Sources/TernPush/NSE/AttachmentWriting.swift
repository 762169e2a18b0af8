import Foundation

/// Where a downloaded file is kept until the system takes it as an attachment: the port behind the
/// extension's files.
///
/// ``FileAttachmentWriter`` keeps them in a directory of the extension's own (the system moves an
/// attachment's file into its store when the notification is shown).
public protocol AttachmentWriting: Sendable {
    /// Moves `file` into the attachment store under a new name with `fileExtension` (iOS reads an
    /// attachment's type from it); returns where it is now.
    func store(_ file: URL, fileExtension: String) throws -> URL
}

/// Keeps attachments as files in one directory, created when first needed.
///
/// ```swift
/// let writer = FileAttachmentWriter()   // under the temporary directory
/// ```
public struct FileAttachmentWriter: AttachmentWriting {
    /// Where attachments are kept; default `tern-attachments` under the temporary directory.
    public var directory: URL

    /// A writer keeping files in `directory`.
    ///
    /// - Parameter directory: The directory; made when the first file is stored.
    public init(directory: URL = FileManager.default.temporaryDirectory.appendingPathComponent("tern-attachments")) {
        self.directory = directory
    }

    /// Moves `file` into ``directory`` under a new unique name with `fileExtension`.
    ///
    /// - Parameters:
    ///   - file: The downloaded file; it is moved, not copied.
    ///   - fileExtension: The extension iOS reads the attachment's type from, e.g. `jpg`.
    /// - Returns: The file's new location.
    /// - Throws: The file system's error when the directory cannot be made or the file moved.
    public func store(_ file: URL, fileExtension: String) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let destination = directory.appendingPathComponent(UUID().uuidString).appendingPathExtension(fileExtension)
        try FileManager.default.moveItem(at: file, to: destination)
        return destination
    }
}
