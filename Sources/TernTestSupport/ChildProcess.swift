import CSpawn
import Dispatch
import Foundation
import Synchronization

/// A program the tests run as a child process: the tests' one way to start one (`tern serve`,
/// `tern device`, `openssl`, the Python peers, `scripts/postgres.sh`).
///
/// Not Foundation's `Process`: on Linux its `run()` reads past glibc's directory buffer while it
/// lists /proc/self/fd once the test process has about 1,340 descriptors open, and the whole test
/// run dies with SIGSEGV when the page after that buffer is unmapped (swift-corelibs-foundation
/// PR #5472; Swift 6.3.1 still has it). This one spawns through `posix_spawn` (the `CSpawn` shim),
/// closes every inherited descriptor past 2 in the child, and reaps the child on a thread of its own.
///
/// ```swift
/// let output = Pipe()
/// let child = try ChildProcess.run("/usr/bin/env", ["openssl", "version"], output: .pipe(output))
/// let text = output.fileHandleForReading.readDataToEndOfFile()
/// #expect(child.waitUntilExit() == 0)
/// ```
public final class ChildProcess: Sendable {
    /// Where one of the child's standard descriptors goes.
    public enum Stream: Sendable {
        /// The test process's own descriptor.
        case inherit
        /// /dev/null.
        case null
        /// An open file (the caller keeps it and closes it).
        case file(FileHandle)
        /// A pipe: the child gets the end it reads (input) or writes (output); the parent's copy of
        /// that end is closed once the child runs.
        case pipe(Pipe)
    }

    /// The child's process id.
    public let processIdentifier: pid_t
    private let status = Mutex<Int32?>(nil)
    private let exited = DispatchGroup()

    private init(processIdentifier: pid_t) {
        self.processIdentifier = processIdentifier
    }

    /// Starts `executable` (a path) with `arguments`; `environment` nil passes the test process's own.
    /// Throws `ChildProcessError` when it cannot start (the errno's text and the path).
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        directory: String? = nil, input: Stream = .null, output: Stream = .inherit, error: Stream = .inherit
    ) throws -> ChildProcess {
        var devNull: FileHandle?
        func descriptor(_ stream: Stream, reading: Bool) throws -> Int32 {
            switch stream {
            case .inherit: return -1
            case .null:
                if devNull == nil { devNull = try FileHandle(forUpdating: URL(fileURLWithPath: "/dev/null")) }
                return devNull!.fileDescriptor
            case .file(let handle): return handle.fileDescriptor
            case .pipe(let pipe):
                return reading ? pipe.fileHandleForReading.fileDescriptor : pipe.fileHandleForWriting.fileDescriptor
            }
        }
        let descriptors = (
            try descriptor(input, reading: true), try descriptor(output, reading: false),
            try descriptor(error, reading: false)
        )
        let environment = environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = tern_spawn(
            &pid, executable, argv, envp, directory, descriptors.0, descriptors.1, descriptors.2)
        try? devNull?.close()
        // The parent's copies of the ends the child uses: the reader sees end of file once the child
        // (and nothing else) has closed its end.
        if case .pipe(let pipe) = input { try? pipe.fileHandleForReading.close() }
        if case .pipe(let pipe) = output { try? pipe.fileHandleForWriting.close() }
        if case .pipe(let pipe) = error, !isSame(pipe, as: output) { try? pipe.fileHandleForWriting.close() }
        guard result == 0 else {
            throw ChildProcessError("cannot run \(executable): \(String(cString: strerror(result)))")
        }
        let child = ChildProcess(processIdentifier: pid)
        child.exited.enter()
        Thread.detachNewThread { child.reap() }
        return child
    }

    private static func isSame(_ pipe: Pipe, as stream: Stream) -> Bool {
        if case .pipe(let other) = stream { return other === pipe }
        return false
    }

    /// Waits for the child (blocking this thread) and records how it ended.
    private func reap() {
        var raw: Int32 = 0
        while waitpid(processIdentifier, &raw, 0) == -1 && errno == EINTR {}
        // Exit status, or the signal's number when a signal ended it (as Foundation's Process says).
        let signal = raw & 0x7f
        status.withLock { $0 = signal == 0 ? (raw >> 8) & 0xff : signal }
        exited.leave()
    }

    /// Whether the child has not ended yet.
    public var isRunning: Bool { status.withLock { $0 == nil } }

    /// How it ended: its exit status, or the number of the signal that ended it; nil while running.
    public var terminationStatus: Int32? { status.withLock { $0 } }

    /// Blocks until the child ends; its exit status (or the signal's number).
    @discardableResult
    public func waitUntilExit() -> Int32 {
        exited.wait()
        return status.withLock { $0 ?? -1 }
    }

    /// Waits, off the cooperative threads, until the child ends; its exit status (or the signal's number).
    @discardableResult
    public func wait() async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            exited.notify(queue: .global()) { continuation.resume() }
        }
        return status.withLock { $0 ?? -1 }
    }

    /// Sends `signal` to the child if it is still running.
    public func signal(_ signal: Int32) {
        if isRunning { kill(processIdentifier, signal) }
    }
}

/// Why a child process could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
