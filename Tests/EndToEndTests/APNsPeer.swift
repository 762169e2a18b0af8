import Foundation
import TernCrypto
import TernHTTP

/// The APNs stand-in (`Tests/Peers/provider_peer.py`) for the end-to-end test: HTTP/2 over TLS
/// with a test CA made by the `openssl` command line, trusting one freshly made .p8 key.
final class APNsPeer: Sendable {
    static let teamId = "TEAM123456"
    static let keyId = "KEY1234567"
    static let topic = "com.example.tern"

    let port: Int
    let directory: URL
    /// The .p8 key the peer trusts (PKCS#8 PEM).
    let privateKey: String
    private let process: Process
    private let control: HTTP2Client

    var origin: String { "https://127.0.0.1:\(port)" }
    var caFile: String { directory.appendingPathComponent("ca.pem").path }

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-e2e-apns-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n".utf8)
            .write(to: directory.appendingPathComponent("server.ext"))
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        for arguments in [
            ["req", "-x509"] + ec + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj", "/CN=Tern E2E CA"],
            ["req"] + ec + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"],
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                "server.pem", "-days", "1", "-extfile", "server.ext",
            ],
        ] {
            try Self.run(["openssl"] + arguments, in: directory)
        }
        let key = try JWTSigningKey.generate(.es256)
        let config: [String: Any] = [
            "provider": "apns",
            "apns": ["team_id": Self.teamId, "key_id": Self.keyId, "public_key": key.publicKeyPEM ?? ""],
        ]
        try JSONSerialization.data(withJSONObject: config).write(to: directory.appendingPathComponent("peer.json"))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Peers/provider_peer.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", script, "--config", directory.appendingPathComponent("peer.json").path, "--cert",
            directory.appendingPathComponent("server.pem").path, "--key",
            directory.appendingPathComponent("server.key").path,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw PeerFailure(
                description: "provider_peer.py did not start (python3 with h2 and cryptography?): \(text)")
        }
        self.port = port
        self.directory = directory
        self.process = process
        privateKey = key.privateKeyPEM ?? ""
        control = try HTTP2Client(
            configuration: .init(caFile: directory.appendingPathComponent("ca.pem").path, requestTimeout: 10))
    }

    /// The pushes the peer accepted, oldest first: token, headers and payload of each.
    func accepted() async throws -> [[String: Any]] {
        let response = try await control.send(
            HTTP2Request(method: "POST", url: URL(string: origin + "/_peer/log")!, body: Data("{}".utf8)))
        let log = try JSONSerialization.jsonObject(with: response.body) as? [[String: Any]] ?? []
        return log.filter { $0["status"] as? Int == 200 }
    }

    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func run(_ arguments: [String], in directory: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PeerFailure(description: "\(arguments.prefix(2).joined(separator: " ")) failed")
        }
    }
}

struct PeerFailure: Error, CustomStringConvertible {
    let description: String
}
