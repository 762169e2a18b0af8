import Foundation

/// The web console's files (HTML, CSS, JavaScript modules), read once at start from the
/// `Web` folder SwiftPM copies beside the binary (`Tern_TernServer.resources/Web`), or from
/// `TERN_DASHBOARD_DIR` when set.
struct DashboardAssets: Sendable {
    /// File name → (content type, bytes).
    let files: [String: (contentType: String, body: Data)]
    /// Where the files were read from; nil when none were found.
    let directory: String?

    static let types = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml", "png": "image/png",
        "ico": "image/x-icon", "json": "application/json",
    ]

    /// Reads every file of the first folder found (no subfolders): `TERN_DASHBOARD_DIR`, then,
    /// unless told not to, the resource bundle beside the running binary.
    init(environment: [String: String] = ProcessInfo.processInfo.environment, searchBesideBinary: Bool = true) {
        let directory = Self.candidates(environment, searchBesideBinary: searchBesideBinary).first { path in
            FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent("index.html"))
        }
        var files: [String: (String, Data)] = [:]
        if let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory) {
            for name in names {
                let ext = (name as NSString).pathExtension.lowercased()
                guard let type = Self.types[ext],
                    let data = FileManager.default.contents(
                        atPath: (directory as NSString).appendingPathComponent(name))
                else { continue }
                files[name] = (type, data)
            }
        }
        self.files = files
        self.directory = directory
    }

    /// The file `name`, if it is one of the console's.
    func file(_ name: String) -> (contentType: String, body: Data)? { files[name] }

    static func candidates(_ environment: [String: String], searchBesideBinary: Bool) -> [String] {
        var folders: [String] = []
        if let explicit = environment["TERN_DASHBOARD_DIR"], !explicit.isEmpty { folders.append(explicit) }
        guard searchBesideBinary else { return folders }
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        for base in [Bundle.main.bundleURL, executable.deletingLastPathComponent()] {
            folders.append(base.appendingPathComponent("Tern_TernServer.resources/Web").path)
        }
        return folders
    }
}
