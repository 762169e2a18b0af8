import Foundation

/// A test peer run as a child process that prints `PORT <n>` as its first line once it listens.
///
/// ```swift
/// let (process, port) = try await PeerProcess.launch(
///     ["python3", script, "--cert", certificates.certificateFile, "--key", certificates.keyFile],
///     failure: "h2peer did not start (is the Python package h2 installed?)")
/// ```
public enum PeerProcess {
    /// Starts `arguments` through `/usr/bin/env` and returns the process with the port it printed.
    /// When the first line is not `PORT <n>`, kills and reaps the process and throws `failure`
    /// followed by what it printed. Waits for that line off the cooperative threads: a Python peer
    /// takes a second or more to import and listen on a loaded machine.
    public static func launch(_ arguments: [String], failure: String) async throws -> (
        process: ChildProcess, port: Int
    ) {
        try await offThePool { try launchBlocking(arguments, failure: failure) }
    }

    private static func launchBlocking(_ arguments: [String], failure: String) throws -> (
        process: ChildProcess, port: Int
    ) {
        let output = Pipe()
        // Never the test runner's own stderr: a peer that outlived its test would hold the runner's
        // pipe open and `swift test` would wait for it forever.
        let log = try logFile(for: arguments)
        defer { try? log.close() }
        let process = try ChildProcess.run(
            "/usr/bin/env", arguments, input: .null, output: .pipe(output), error: .file(log))
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.signal(SIGKILL)
            process.waitUntilExit()
            throw TestPeerError("\(failure): \(text)")
        }
        return (process, port)
    }

    /// A fresh file in the temporary directory for the peer's diagnostics.
    private static func logFile(for arguments: [String]) throws -> FileHandle {
        let name = arguments.dropFirst().first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "peer"
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("tern-\(name)-\(UUID().uuidString).log").path
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        TemporaryFiles.removeAtExit(URL(fileURLWithPath: path))
        return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }
}
