import Foundation
import Synchronization
import TernSDKTestKit
import TernTestSupport
import Testing

/// Every inbox, preference and topic write survives a SIGKILL of the SDK's process between queueing
/// and sending: `tern device` queues it against an address nobody answers, is killed once the write
/// is in its outbox, and a second run on the same data sends it.
@Suite(.serialized) struct InboxCrashTests {
    @Test func writesQueuedBeforeASIGKILLReachTheServerOnTheNextRun() async throws {
        let server = try await RealServer.start()
        let ada = try await InboxEndToEndTests.person(server, "ada@example.com")
        try await InboxEndToEndTests.put(server, ada.profileId, "read me")
        try await InboxEndToEndTests.put(server, ada.profileId, "delete me")
        let inbox = try await server.admin("GET", "/profiles/\(ada.profileId)/inbox")
        let messages = inbox.json?["messages"] as? [[String: Any]] ?? []
        let readId = try #require(messages.first { $0["title"] as? String == "read me" }?["id"] as? String)
        let deleteId = try #require(messages.first { $0["title"] as? String == "delete me" }?["id"] as? String)

        let data = try TemporaryDirectory(prefix: "inbox-crash")
        defer { data.remove() }
        let common: [String] = ["--data", data.url.path, "--rtoken", server.rToken, "--jwt", ada.jwt]
        let nowhere: [String] = ["--api-url", "http://127.0.0.1:9/api/v1", "--wait", "120"]
        let writes: [[String]] = [
            ["inbox-read", readId], ["inbox-delete", deleteId], ["preference", "push.marketing=off"],
            ["follow", "release-notes"],
        ]
        for command in writes {
            let device = try KilledDevice.start(common + nowhere + command)
            // In the outbox (the device says so once its row is written); nothing can have been sent.
            let queued = await device.waitForOutput(containing: #""queued":"\#(command[0])""#, timeout: 60)
            try await Task.sleep(for: .milliseconds(200))
            device.kill()
            #expect(queued, "\(command) was not queued before the kill: \(device.output)")
            #expect(await device.wait() == SIGKILL)
        }

        let flush = try KilledDevice.start(common + ["--api-url", server.apiUrl, "--wait", "60", "flush"])
        #expect(await flush.wait() == 0, "\(flush.output)")

        let after = try await server.admin("GET", "/profiles/\(ada.profileId)/inbox")
        let left = after.json?["messages"] as? [[String: Any]] ?? []
        #expect(left.map { $0["id"] as? String } == [readId])
        #expect(left.first?["read"] as? Bool == true)
        let preferences = try await server.admin("GET", "/profiles/\(ada.profileId)/preferences")
        #expect(preferences.json?["preferences"] as? [String: [String: Bool]] == ["push": ["marketing": false]])
        let followers = try await server.admin(
            "GET", "/projects/\(server.process.projectId)/topics/release-notes/followers")
        #expect(followers.json?["profile_ids"] as? [String] == [ada.profileId])
        await server.stop()
    }
}

/// `tern device …` in its own process (the kit's `ChildProcess`), its standard output collected as
/// it comes.
final class KilledDevice: Sendable {
    let process: ChildProcess
    private let collected = Mutex<String>("")

    private init(_ process: ChildProcess) { self.process = process }

    static func start(_ arguments: [String]) throws -> KilledDevice {
        let pipe = Pipe()
        let process = try ChildProcess.run(
            try ServerProcess.binaryURL().path, ["device"] + arguments, output: .pipe(pipe), error: .null)
        let device = KilledDevice(process)
        let handle = pipe.fileHandleForReading
        // A thread of its own: the loop blocks for the device's whole life.
        Thread.detachNewThread {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                device.collected.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
            }
        }
        return device
    }

    var output: String { collected.withLock { $0 } }

    func waitForOutput(containing text: String, timeout: TimeInterval) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if output.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    func kill() { process.signal(SIGKILL) }

    func wait() async -> Int32 { await process.wait() }
}
