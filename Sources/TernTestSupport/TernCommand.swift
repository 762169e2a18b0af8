import Foundation

/// Runs the built `tern` binary once and waits for it: the command-line tests' one way to call it.
///
/// ```swift
/// let run = try TernCommand.run(["send", "--help"])
/// #expect(run.status == 0 && run.output.hasPrefix("usage: tern send"))
/// ```
public enum TernCommand {
    /// `tern <arguments>`: its exit status, standard output and standard error.
    public static func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let out = Pipe()
        let err = Pipe()
        let child = try ChildProcess.run(
            try ServerProcess.binaryURL().path, arguments, output: .pipe(out), error: .pipe(err))
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let error = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let status = child.waitUntilExit()
        return (status, output, error)
    }
}
