import Foundation

/// Files only the server's user may read (bootstrap keys, provider credentials): written with mode
/// 0600 to a temporary file, then renamed over the old one, so a crash never leaves half a file.
enum PrivateFile {
    /// - Returns: nil when written; otherwise why not, in words for the operator.
    static func write(_ data: Data, to path: String) -> String? {
        let temporary = path + ".tmp"
        try? FileManager.default.removeItem(atPath: temporary)
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600])
        else { return "cannot write \(temporary): check the data directory's permissions" }
        guard rename(temporary, path) == 0 else {
            return "cannot rename \(temporary) to \(path): \(String(cString: strerror(errno)))"
        }
        return nil
    }
}
