import Foundation
import TernTestSupport
import Testing

/// The tests' child processes start however many descriptors the test process holds, and inherit
/// none of them (Foundation's `Process.run()` crashed the whole run at about 1,360).
@Suite struct ChildProcessTests {
    @Test func aChildStartsWithManyDescriptorsOpenAndInheritsNone() throws {
        var opened: [Int32] = []
        defer { for descriptor in opened { close(descriptor) } }
        while opened.count < 1_500 {
            let descriptor = open("/dev/null", O_RDONLY)  // no O_CLOEXEC: the child must close it itself
            try #require(descriptor >= 0)
            opened.append(descriptor)
        }
        let output = Pipe()
        let child = try ChildProcess.run("/bin/sh", ["-c", "ls /proc/$$/fd"], output: .pipe(output))
        let listed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(whereSeparator: \.isNewline).compactMap { Int32($0) }
        #expect(child.waitUntilExit() == 0)
        // 0, 1 and 2, and the directory `ls` reads: nothing of the 1,500.
        #expect(Set(listed).isDisjoint(with: opened.filter { $0 > 3 }), "inherited: \(listed)")
        #expect(listed.count <= 4, "\(listed)")
    }

    @Test func exitStatusSignalAndAMissingProgramAreReported() async throws {
        #expect(try ChildProcess.run("/bin/sh", ["-c", "exit 7"]).waitUntilExit() == 7)
        let sleeper = try ChildProcess.run("/bin/sleep", ["30"])
        #expect(sleeper.isRunning)
        sleeper.signal(SIGTERM)
        #expect(await sleeper.wait() == SIGTERM)
        #expect(!sleeper.isRunning)
        #expect(throws: ChildProcessError.self) { try ChildProcess.run("/nonexistent/tern-program", []) }
    }
}
