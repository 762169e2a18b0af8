import Foundation
import TernHTTP

/// `Tests/Peers/provider_peer.py` as a child process: an APNs, FCM or HMS stand-in over HTTP/2
/// with TLS on a free loopback port, checking credentials like the real service, with scripted
/// answers per device token and a log of what it received. The provider clients' tests and the
/// end-to-end tests both use it.
public final class ProviderPeer: Sendable {
    public let port: Int
    public let certificates: TestCertificates
    private let process: ChildProcess
    private let control: HTTP2Client

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tests/Peers/provider_peer.py").path
    }

    /// Starts the peer with `config` (`{"provider": "apns", "apns": {...}}`, see the script).
    public init(config: [String: Any], maxStreams: Int = 100) async throws {
        let certificates = try TestCertificates.make(authority: "Tern Provider Test CA")
        let configFile = certificates.directory.appendingPathComponent("peer.json")
        try JSONSerialization.data(withJSONObject: config).write(to: configFile)
        (process, port) = try await PeerProcess.launch(
            [
                "python3", Self.script, "--config", configFile.path, "--cert", certificates.certificateFile, "--key",
                certificates.keyFile, "--max-streams", String(maxStreams),
            ],
            failure: "provider_peer.py did not start (are the Python packages h2 and cryptography installed?)")
        self.certificates = certificates
        control = try HTTP2Client(configuration: .init(caFile: certificates.caFile, requestTimeout: 10))
    }

    public var origin: URL { URL(string: "https://127.0.0.1:\(port)")! }
    public var caFile: String { certificates.caFile }

    /// Answers for `token`, used in order before the peer's default (success).
    public func script(_ token: String, _ answers: [[String: Any]]) async throws {
        _ = try await post("/_peer/script", [token: answers])
    }

    /// The peer treats `token` (a provider JWT or an access token) as expired from now on.
    public func expire(_ token: String) async throws {
        _ = try await post("/_peer/expire", ["token": token])
    }

    /// Every connection ends with GOAWAY after `answers` answers (0: never).
    public func goAway(after answers: Int) async throws {
        _ = try await post("/_peer/goaway", ["after": answers])
    }

    /// The pushes the peer accepted (answered 200), oldest first: token, headers and payload of each.
    public func accepted() async throws -> [[String: Any]] {
        try await log().filter { $0["status"] as? Int == 200 }
    }

    /// Every push request the peer received, oldest first.
    public func log() async throws -> [[String: Any]] {
        try JSONSerialization.jsonObject(with: try await post("/_peer/log", [:])) as? [[String: Any]] ?? []
    }

    /// Counters: connections, max_open_streams, requests, goaways, access_tokens_issued, provider_tokens.
    public func stats() async throws -> [String: Int] {
        try JSONSerialization.jsonObject(with: try await post("/_peer/stats", [:])) as? [String: Int] ?? [:]
    }

    private func post(_ path: String, _ body: [String: Any]) async throws -> Data {
        let request = HTTP2Request(
            method: "POST", url: origin.appendingPathComponent(String(path.dropFirst())),
            body: try JSONSerialization.data(withJSONObject: body))
        let response = try await control.send(request)
        guard response.status == 200 else { throw PeerError("\(path) answered \(response.status)") }
        return response.body
    }

    /// Kills the peer (SIGKILL: a child spawned from a libdispatch thread inherits blocked signals),
    /// reaps it and removes its certificates.
    public func stop() {
        process.signal(SIGKILL)
        process.waitUntilExit()
        certificates.remove()
    }
}

public struct PeerError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
