import Foundation

/// Where downloaded media is written before it is attached: the port behind the extension's files.
///
/// ``FileAttachmentWriter`` writes to a directory of the extension's own (the system moves an
/// attachment's file into its store when the notification is shown).
public protocol AttachmentWriting: Sendable {
    /// A new, empty file with this extension.
    func makeFile(fileExtension: String) throws -> any AttachmentFile
}

/// A file being written, chunk by chunk.
public protocol AttachmentFile: AnyObject {
    func append(_ data: Data) throws
    /// Closes the file and hands back where it is.
    func finish() throws -> URL
    /// Closes and deletes the file (a download that failed half-way).
    func discard()
}

/// Writes attachments as files in one directory, created when first needed.
///
/// ```swift
/// let writer = FileAttachmentWriter()   // under the temporary directory
/// ```
public struct FileAttachmentWriter: AttachmentWriting {
    public var directory: URL

    public init(directory: URL = FileManager.default.temporaryDirectory.appendingPathComponent("tern-attachments")) {
        self.directory = directory
    }

    public func makeFile(fileExtension: String) throws -> any AttachmentFile {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(UUID().uuidString).appendingPathExtension(fileExtension)
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw MediaDownloadError.file("cannot create \(url.path)")
        }
        return try HandleFile(url: url)
    }
}

/// A file written through a `FileHandle`.
final class HandleFile: AttachmentFile {
    let url: URL
    private let handle: FileHandle
    private var closed = false

    init(url: URL) throws {
        self.url = url
        handle = try FileHandle(forWritingTo: url)
    }

    func append(_ data: Data) throws {
        try handle.write(contentsOf: data)
    }

    func finish() throws -> URL {
        try close()
        return url
    }

    func discard() {
        try? close()
        try? FileManager.default.removeItem(at: url)
    }

    private func close() throws {
        guard !closed else { return }
        closed = true
        try handle.close()
    }

    deinit {
        if !closed { try? handle.close() }
    }
}
