import Foundation

struct H2PeerError: Error, CustomStringConvertible {
    let description: String
}

/// A test CA and a server certificate for 127.0.0.1 and localhost, made with the `openssl`
/// command line in a temporary directory.
struct TestCertificates {
    let directory: URL
    var caFile: String { directory.appendingPathComponent("ca.pem").path }
    var certificateFile: String { directory.appendingPathComponent("server.pem").path }
    var keyFile: String { directory.appendingPathComponent("server.key").path }

    static func make() throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n".utf8)
            .write(to: directory.appendingPathComponent("server.ext"))
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try openssl(
            ["req", "-x509"] + ec
                + [
                    "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Tern Test CA",
                    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
                ], in: directory)
        try openssl(
            ["req"] + ec + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"], in: directory)
        try openssl(
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "server.pem", "-days", "2", "-extfile", "server.ext",
            ], in: directory)
        return TestCertificates(directory: directory)
    }

    private static func openssl(_ arguments: [String], in directory: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = directory
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw H2PeerError(
                description: "openssl \(arguments.first ?? ""): \(String(decoding: message, as: UTF8.self))")
        }
    }
}

/// The Python HTTP/2 peer (`Tests/Peers/h2peer.py`, the `h2` package) as a child process on a free
/// loopback port; terminated by `stop()`.
final class H2Peer: Sendable {
    let port: Int
    private let process: Process

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Peers/h2peer.py").path
    }

    /// Starts the peer; TLS with `certificates`, or cleartext h2c without.
    init(certificates: TestCertificates?, maxStreams: Int = 100) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["python3", Self.script, "--max-streams", String(maxStreams)]
        if let certificates {
            arguments += ["--cert", certificates.certificateFile, "--key", certificates.keyFile]
        }
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // The first line is "PORT <n>"; reading it blocks only this test's thread, briefly.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            kill(process.processIdentifier, SIGKILL)
            throw H2PeerError(description: "h2peer did not start (is the Python package h2 installed?): \(text)")
        }
        self.port = port
        self.process = process
    }

    func url(_ path: String, tls: Bool = true) -> URL {
        URL(string: "\(tls ? "https" : "http")://127.0.0.1:\(port)\(path)")!
    }

    /// Kills the peer (SIGKILL: a child spawned from a libdispatch thread inherits blocked signals)
    /// and reaps it.
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
