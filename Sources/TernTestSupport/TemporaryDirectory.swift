import Foundation

/// A fresh directory under the system's temporary directory, for tests that need real files.
///
/// ```swift
/// let dir = try TemporaryDirectory(prefix: "store")
/// defer { dir.remove() }
/// let store = try SQLiteStore(path: dir.path("tern.sqlite"))
/// ```
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public init(prefix: String = "tern") throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        url = base.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        TemporaryFiles.removeAtExit(url)
    }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Deletes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
