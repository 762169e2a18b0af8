import Foundation
import TernTestSupport
import Testing

@Suite("The simulated device keeps every event through SIGKILLs", .serialized)
struct ReliabilityTests {
    static let sids = ["rel-a", "rel-b", "rel-c", "rel-d"]

    @Test func aThousandGoalsSurviveTwentySIGKILLsAndReachTheServerExactlyOnce() async throws {
        let server = try await ServerProcess.start()
        let admin = Admin(server: server)
        for sid in Self.sids { try await admin.createPixel(sid) }
        let data = try TemporaryDirectory(prefix: "tern-device")
        defer { data.remove() }
        let arguments = [
            "--data", data.url.path, "--api-url", server.apiURL.absoluteString, "--rtoken", server.rToken, "--quiet",
            "goals", "--sids", Self.sids.joined(separator: ","), "--count", "1000", "--prefix", "r",
        ]
        // Paced so that the killed runs together cannot finish the series (50 s of pacing) even
        // when this test's own sleeps overrun on a loaded machine; the last run goes unpaced.
        let paced = arguments + ["--pace", "0.05"]
        var generator = SystemRandomNumberGenerator()
        var killed = 0
        for _ in 0..<20 {
            let device = try DeviceProcess.start(paced)
            try await Task.sleep(nanoseconds: UInt64.random(in: 20_000_000...300_000_000, using: &generator))
            device.kill()
            if await device.wait() == SIGKILL { killed += 1 }
        }
        // Each run is paced to outlast its kill: the test is about the kills, so it insists they happened.
        #expect(killed >= 18)
        let last = try await DeviceProcess.run(arguments + ["--pace", "0", "--wait", "60"])
        #expect(last.status == 0)
        let names = try await admin.allGoalNames(Self.sids)
        let expected = Set((0..<1000).map { "r-\($0)" })
        #expect(names.count == 1000 && Set(names) == expected, "\(discrepancies(names, expected: expected))")
        await server.stop()
    }
}
