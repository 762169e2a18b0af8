import Foundation
import TernTestSupport

/// `Tests/Peers/connect_proxy.py`: an HTTP CONNECT proxy on a free loopback port, optionally
/// asking for Basic credentials; terminated by `stop()`.
final class ConnectProxy: Sendable {
    struct Stats: Decodable {
        let tunnels: Int
        let refused: Int
        let target: String
    }

    let port: Int
    private let process: ChildProcess

    init(user: String? = nil, password: String = "") async throws {
        let script = URL(fileURLWithPath: H2Peer.script).deletingLastPathComponent()
            .appendingPathComponent("connect_proxy.py").path
        var arguments = ["python3", script]
        if let user { arguments += ["--user", user, "--password", password] }
        (process, port) = try await PeerProcess.launch(arguments, failure: "connect_proxy did not start")
    }

    /// Its counters, asked with a plain HTTP/1.1 GET on the proxy's own port.
    func stats() async throws -> Stats {
        let answer = try await JSONHTTPClient().get(URL(string: "http://127.0.0.1:\(port)/stats")!)
        return try JSONDecoder().decode(Stats.self, from: answer.body)
    }

    func stop() {
        process.signal(SIGKILL)
        process.waitUntilExit()
    }
}
