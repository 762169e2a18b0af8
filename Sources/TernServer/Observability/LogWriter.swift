import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Log lines on their way to a file descriptor, written by a thread of its own.
///
/// Every request logs a line. Written by the request's thread, each line cost a `write(2)` under
/// a lock that every request thread took in turn, and a write that the file system held up (a
/// journal commit behind a checkpoint's `fsync`) held up every request behind that lock. Here a
/// line is copied into a buffer; the thread writes what gathered at most every ``linger`` with one
/// `write(2)`, so a busy server makes hundreds of writes a second, not one per request.
///
/// Nothing waits for the descriptor but the thread and ``flush()``: past ``capacity`` bytes
/// waiting (the descriptor stopped taking them), lines are dropped and counted, and the next write
/// says how many. Warnings and errors are written before their call returns, with every line
/// before them (``append(_:urgent:)``), and ``flush()`` writes what waits (a server stopping calls
/// it last).
final class LogWriter: Sendable {
    /// How long the thread lets lines gather after a write before it writes again.
    static let linger = Duration.milliseconds(5)
    /// Bytes that may wait; past this, lines are dropped (and counted).
    static let capacity = 8 << 20

    private struct Waiting {
        var bytes: [UInt8] = []
        var dropped = 0
        /// The thread sleeps until a line comes (it found nothing to write).
        var idle = false
    }

    private let descriptor: Int32
    private let capacity: Int
    private let waiting = Mutex(Waiting())
    /// Held while bytes are written, by the thread or a caller: lines leave in the order they came.
    private let writing = Mutex(())
    private let wake = DispatchSemaphore(value: 0)

    /// The process's stderr, as ``Logger`` writes it by default.
    static let standardError = LogWriter(descriptor: 2)

    init(descriptor: Int32, capacity: Int = LogWriter.capacity) {
        self.descriptor = descriptor
        self.capacity = capacity
        let thread = Thread { [self] in run() }
        thread.name = "tern.log"
        thread.start()
    }

    /// Queues `line`; with `urgent`, writes it and everything before it before returning.
    func append(_ line: [UInt8], urgent: Bool = false) {
        let wakeThread = waiting.withLock { waiting -> Bool in
            if waiting.bytes.count + line.count > capacity {
                waiting.dropped += 1
            } else {
                waiting.bytes.append(contentsOf: line)
            }
            // An urgent line is written right here; the thread, if it sleeps, may go on sleeping.
            let wakes = waiting.idle && !urgent
            if wakes { waiting.idle = false }
            return wakes
        }
        if urgent {
            flush()
        } else if wakeThread {
            wake.signal()
        }
    }

    /// Writes every line queued so far; returns once they are written.
    func flush() {
        _ = writing.withLock { _ in writeWaiting() }
    }

    private func run() {
        while true {
            let wrote = writing.withLock { _ in writeWaiting() }
            if wrote {
                usleep(UInt32(Self.linger.components.attoseconds / 1_000_000_000_000))
                continue
            }
            let sleeps = waiting.withLock { waiting -> Bool in
                guard waiting.bytes.isEmpty && waiting.dropped == 0 else { return false }
                waiting.idle = true
                return true
            }
            if sleeps { wake.wait() }
        }
    }

    /// Takes what waits and writes it (the caller holds `writing`); false when nothing waited.
    private func writeWaiting() -> Bool {
        var (bytes, dropped) = waiting.withLock { waiting -> ([UInt8], Int) in
            defer {
                waiting.bytes = []
                waiting.dropped = 0
            }
            return (waiting.bytes, waiting.dropped)
        }
        guard !bytes.isEmpty || dropped > 0 else { return false }
        if dropped > 0 {
            var line: [UInt8] = Array(#"{"ts":""#.utf8)
            Logger.appendTimestamp(to: &line)
            line += Array(#"","level":"warn","msg":"log lines dropped: the log was not taking them","count":"#.utf8)
            line += Array("\(dropped)}\n".utf8)
            bytes += line
        }
        Self.writeAll(bytes, to: descriptor)
        return true
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return  // closed or failing: a log line is not worth blocking or crashing for
                }
            }
        }
    }
}
