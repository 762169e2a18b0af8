import Foundation
import Synchronization

/// Files and directories the tests make under the system's temporary directory, removed when the
/// test process exits. A test that removes its own sooner still may; what it leaves (an SDK's
/// directory kept for a restart, a peer's log, a test CA) no longer piles up in /tmp run after run
/// (a full run left some 150 entries). `TERN_KEEP_TEST_FILES=1` keeps them, to read after a run.
public enum TemporaryFiles {
    private static let registered = Mutex<(paths: [String], hooked: Bool)>(([], false))

    /// Removes `url` (a file, or a directory and everything in it) when the process exits.
    public static func removeAtExit(_ url: URL) {
        let hook = registered.withLock { state -> Bool in
            state.paths.append(url.path)
            defer { state.hooked = true }
            return !state.hooked
        }
        if hook { atexit { TemporaryFiles.removeAll() } }
    }

    private static func removeAll() {
        guard ProcessInfo.processInfo.environment["TERN_KEEP_TEST_FILES"] != "1" else { return }
        for path in registered.withLock({ $0.paths }) {
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
