import Foundation

/// A test CA and a server certificate for 127.0.0.1, made with the `openssl` command line in a
/// temporary directory: the provider peers serve with it, the clients trust only the CA.
struct PeerCertificates: Sendable {
    let directory: URL
    var caFile: String { directory.appendingPathComponent("ca.pem").path }
    var certificateFile: String { directory.appendingPathComponent("server.pem").path }
    var keyFile: String { directory.appendingPathComponent("server.key").path }

    static func make() throws -> PeerCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-peer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n".utf8)
            .write(to: directory.appendingPathComponent("server.ext"))
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try run(
            ["req", "-x509"] + ec
                + [
                    "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Tern Provider Test CA",
                    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
                ], in: directory)
        try run(
            ["req"] + ec + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"], in: directory)
        try run(
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "server.pem", "-days", "2", "-extfile", "server.ext",
            ], in: directory)
        return PeerCertificates(directory: directory)
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    private static func run(_ arguments: [String], in directory: URL) throws {
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
            throw PeerError("openssl \(arguments.first ?? ""): \(String(decoding: message, as: UTF8.self))")
        }
    }
}

struct PeerError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
