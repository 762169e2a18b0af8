import Foundation

/// Runs the built `tern` binary once and waits for it: the command-line tests' one way to call it.
///
/// ```swift
/// let run = try await TernCommand.run(["send", "--help"])
/// #expect(run.status == 0 && run.output.hasPrefix("usage: tern send"))
/// ```
public enum TernCommand {
    /// `tern <arguments>`: its exit status, standard output and standard error. `environment` is
    /// added to this process's (a nil value removes a variable).
    ///
    /// The pipes are read and the child is waited for off the cooperative threads (``offThePool(_:)``):
    /// a command that blocked one for its whole run (`tern send` waits until its message is done)
    /// would starve every other test.
    public static func run(_ arguments: [String], environment: [String: String?] = [:]) async throws -> (
        status: Int32, output: String, error: String
    ) {
        try await offThePool { try runBlocking(arguments, environment: environment) }
    }

    private static func runBlocking(_ arguments: [String], environment: [String: String?]) throws -> (
        status: Int32, output: String, error: String
    ) {
        var merged = ProcessInfo.processInfo.environment
        for (name, value) in environment { merged[name] = value }
        // Standard error goes to a file, so a chatty child never blocks on a full pipe while standard
        // output is read here.
        let scratch = try TemporaryDirectory(prefix: "tern-command")
        defer { scratch.remove() }
        let errorPath = scratch.path("stderr")
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        let errorFile = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        let out = Pipe()
        let child: ChildProcess
        do {
            defer { try? errorFile.close() }
            child = try ChildProcess.run(
                try ServerProcess.binaryURL().path, arguments, environment: merged, output: .pipe(out),
                error: .file(errorFile))
        }
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let status = child.waitUntilExit()
        let error = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        return (status, output, error)
    }
}
