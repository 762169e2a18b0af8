import Foundation

/// A test CA and a server certificate for 127.0.0.1 and localhost, made with the `openssl`
/// command line in a temporary directory: a test peer serves with it, the client trusts only the CA.
///
/// ```swift
/// let certificates = try TestCertificates.make()
/// defer { certificates.remove() }
/// let client = try HTTP2Client(configuration: .init(caFile: certificates.caFile))
/// ```
public struct TestCertificates: Sendable {
    public let directory: URL
    public var caFile: String { directory.appendingPathComponent("ca.pem").path }
    public var certificateFile: String { directory.appendingPathComponent("server.pem").path }
    public var keyFile: String { directory.appendingPathComponent("server.key").path }

    /// Makes a fresh CA named `authority` and a P-256 server certificate it signed, valid for two days.
    public static func make(authority: String = "Tern Test CA") throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        TemporaryFiles.removeAtExit(directory)
        try Data("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n".utf8)
            .write(to: directory.appendingPathComponent("server.ext"))
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try openssl(
            ["req", "-x509"] + ec
                + [
                    "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=\(authority)",
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

    /// Deletes the directory with the keys and certificates.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    private static func openssl(_ arguments: [String], in directory: URL) throws {
        let errors = Pipe()
        let child = try ChildProcess.run(
            "/usr/bin/env", ["openssl"] + arguments, directory: directory.path, output: .null, error: .pipe(errors))
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        guard child.waitUntilExit() == 0 else {
            throw TestPeerError("openssl \(arguments.first ?? ""): \(String(decoding: message, as: UTF8.self))")
        }
    }
}

/// Why a test peer (or its certificates) could not be set up.
public struct TestPeerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
