import Foundation
import Synchronization
import TernCore
import TernPush
import TernSDKTestKit
import Testing

@Suite("A follow-up runs in the mailbox and its caller hears back")
struct FollowUpTests {
    /// The SDK's ready core, taken from inside a command.
    static func readyCore(_ sdk: TestSDK) async -> ReadyCore {
        await withCheckedContinuation { (got: CheckedContinuation<ReadyCore, Never>) in
            sdk.tern.core.perform("test") { ready in got.resume(returning: ready) }
        }
    }

    final class Flag: Sendable {
        private let state = Mutex(false)
        var isSet: Bool { state.withLock { $0 } }
        func set() { state.withLock { $0 = true } }

        /// Polls for up to `seconds`.
        func becomesSet(within seconds: Double) async throws -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline, !isSet { try await Task.sleep(for: .milliseconds(10)) }
            return isSet
        }
    }

    @Test func aFollowUpRunsAndReturnsAfterItsBody() async throws {
        let sdk = try TestSDK(modules: ["TernPush"])
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        let ready = await Self.readyCore(sdk)
        let ran = Flag()
        await ready.followUp("test") { _ in ran.set() }
        #expect(ran.isSet)
        await sdk.close()
    }

    /// The letter is dropped with the closed mailbox; its caller must not wait for it forever.
    @Test func aFollowUpPostedAfterShutdownReturnsWithoutRunning() async throws {
        let sdk = try TestSDK(modules: ["TernPush"])
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        let ready = await Self.readyCore(sdk)
        await sdk.close()
        let ran = Flag()
        let returned = Flag()
        Task {
            await ready.followUp("test") { _ in ran.set() }
            returned.set()
        }
        #expect(try await returned.becomesSet(within: 5))
        #expect(!ran.isSet)
    }

    /// The push reporter waits for its row like a follow-up: after shutdown it returns, unwritten.
    @Test func aDeliveryReportMadeAfterShutdownReturns() async throws {
        let sdk = try TestSDK(modules: ["TernPush"])
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        _ = await Self.readyCore(sdk)
        await sdk.close()
        let returned = Flag()
        let core = sdk.tern.core
        Task {
            await OutboxPushEventReporter(core: core).reportDelivery(messageId: "m-late")
            returned.set()
        }
        #expect(try await returned.becomesSet(within: 5))
    }
}
