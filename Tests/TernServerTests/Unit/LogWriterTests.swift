import Foundation
import Testing

@testable import TernServer

#if canImport(Glibc)
    import Glibc
#endif

/// The log's writer thread: lines arrive whole and in order, warnings before their call returns,
/// and a descriptor that stops taking lines never holds up the callers.
@Suite struct LogWriterTests {
    /// A pipe whose read end the test drains.
    final class Pipe: Sendable {
        let read: Int32
        let write: Int32

        init() throws {
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            read = ends[0]
            write = ends[1]
            _ = fcntl(read, F_SETFL, fcntl(read, F_GETFL) | O_NONBLOCK)
        }

        deinit {
            close(read)
            close(write)
        }

        /// What the pipe holds now.
        func available() -> String {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = Glibc.read(read, &chunk, chunk.count)
                guard count > 0 else { break }
                bytes += chunk.prefix(count)
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// Reads until `done` says the text so far is complete, or ten seconds passed. It reads once
        /// more after each sleep, however long the sleep took: the whole suite runs at once, and this
        /// task may wait seconds for a thread while the writer's thread has long written everything.
        func read(until done: (String) -> Bool) async throws -> String {
            var text = ""
            let deadline = ContinuousClock.now + .seconds(10)
            while true {
                text += available()
                if done(text) || ContinuousClock.now >= deadline { return text }
                try await Task.sleep(for: .milliseconds(2))
            }
        }
    }

    static func line(_ text: String) -> [UInt8] { Array((text + "\n").utf8) }

    @Test func linesArriveWholeAndInOrderWithoutAFlush() async throws {
        let pipe = try Pipe()
        let writer = LogWriter(descriptor: pipe.write)
        for number in 0..<2000 { writer.append(Self.line("line \(number)")) }
        let text = try await pipe.read { $0.hasSuffix("line 1999\n") }
        #expect(text.split(separator: "\n") == (0..<2000).map { "line \($0)"[...] })
    }

    @Test func aWarningIsWrittenBeforeItsCallReturnsAfterTheLinesBeforeIt() throws {
        let pipe = try Pipe()
        let writer = LogWriter(descriptor: pipe.write)
        let logger = Logger(minimum: .info, output: writer)
        logger.info("first", [:])
        logger.warn("second", ["n": 2])
        let lines = pipe.available().split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.contains(#""level":"info","msg":"first""#) == true)
        #expect(lines.last?.contains(#""level":"warn","msg":"second","n":2"#) == true)
    }

    @Test func flushWritesWhatWaits() throws {
        let pipe = try Pipe()
        let writer = LogWriter(descriptor: pipe.write)
        for number in 0..<100 { writer.append(Self.line("line \(number)")) }
        writer.flush()
        #expect(pipe.available().split(separator: "\n").count == 100)
    }

    @Test func aDescriptorThatTakesNothingDropsLinesInsteadOfHoldingTheCallers() async throws {
        let pipe = try Pipe()
        let writer = LogWriter(descriptor: pipe.write, capacity: 4096)
        // More than the pipe (64 KiB) and the writer (4 KiB) hold: the thread blocks in write(2)
        // while the test does not read, and the callers go on.
        let line = Self.line(String(repeating: "x", count: 99))
        let started = ContinuousClock.now
        for _ in 0..<2000 { writer.append(line) }
        #expect(ContinuousClock.now - started < .seconds(5), "appends never wait for the descriptor")
        var text = try await pipe.read { $0.contains("log lines dropped") }
        writer.flush()
        text += pipe.available()
        let lines = text.split(separator: "\n")
        let dropped = try lines.filter { $0.contains("log lines dropped") }.map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["count"] as? Int ?? 0
        }
        let count = dropped.reduce(0, +)
        let written = lines.filter { $0 == String(repeating: "x", count: 99) }.count
        #expect(count > 0)
        #expect(written + count == 2000, "every line is written or counted as dropped")
    }
}
