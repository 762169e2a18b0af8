import Foundation
import TernTestSupport

/// The Python HTTP/2 peer (`Tests/Peers/h2peer.py`, the `h2` package) as a child process on a free
/// loopback port; terminated by `stop()`.
final class H2Peer: Sendable {
    let port: Int
    private let process: ChildProcess

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Peers/h2peer.py").path
    }

    /// Starts the peer; TLS with `certificates`, or cleartext h2c without.
    /// `goAwayAfter`: each connection answers that many requests, then refuses the rest by GOAWAY.
    /// `silent`: completes TLS, then never sends an HTTP/2 frame.
    init(certificates: TestCertificates?, maxStreams: Int = 100, goAwayAfter: Int = 0, silent: Bool = false)
        async throws
    {
        var arguments = [
            "python3", Self.script, "--max-streams", String(maxStreams), "--goaway-after", String(goAwayAfter),
        ]
        if silent { arguments.append("--silent") }
        if let certificates {
            arguments += ["--cert", certificates.certificateFile, "--key", certificates.keyFile]
        }
        (process, port) = try await PeerProcess.launch(
            arguments, failure: "h2peer did not start (is the Python package h2 installed?)")
    }

    func url(_ path: String, tls: Bool = true) -> URL {
        URL(string: "\(tls ? "https" : "http")://127.0.0.1:\(port)\(path)")!
    }

    /// Kills the peer (SIGKILL: a child spawned from a libdispatch thread inherits blocked signals)
    /// and reaps it.
    func stop() {
        process.signal(SIGKILL)
        process.waitUntilExit()
    }
}
