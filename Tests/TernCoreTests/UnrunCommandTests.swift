import Foundation
import TernSDKTestKit
import Testing

@testable import TernCore

/// A call that owes its caller an answer (a completion, an `await`) is answered even when the SDK
/// lets its command go without running it: `perform(_:unrun:_:)`.
@Suite("Commands let go unrun still answer their callers")
struct UnrunCommandTests {
    /// What each call's closures reported, in order.
    final class Answers: Sendable {
        let stream: AsyncStream<String>
        let continuation: AsyncStream<String>.Continuation

        init() { (stream, continuation) = AsyncStream.makeStream(of: String.self) }

        func post(_ answer: String) { continuation.yield(answer) }

        /// The next answer, nil when none comes within five seconds.
        func next() async -> String? {
            let stream = stream
            return await answer(within: 5) {
                for await value in stream { return value }
                return "(ended)"
            }
        }
    }

    @Test @MainActor func anUnusableConfigurationCallsUnrunOnTheMainQueueAfterConfigIsNotSet() async throws {
        let sdk = try TestSDK()
        let answers = Answers()
        let events = sdk.events
        sdk.tern.initialization(configuration: TernConfiguration.Builder(apiUrl: "").build())
        sdk.tern.core.perform("status", unrun: { answers.post("unrun, main: \(DispatchQueue.isMainQueue)") }) { _ in
            answers.post("ran")
        }
        let first = await answers.next()
        #expect(first == "unrun, main: true")
        let error = try #require(await events.first(CoreEvents.configIsNotSet))
        #expect(error.function == "status")
        await sdk.close()
    }

    @Test @MainActor func aCommandThatRunsNeverCallsUnrun() async throws {
        let sdk = try TestSDK()
        let answers = Answers()
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        for index in 0..<20 {
            sdk.tern.core.perform("status", unrun: { answers.post("unrun \(index)") }) { _ in
                answers.post("ran \(index)")
            }
        }
        for index in 0..<20 { #expect(await answers.next() == "ran \(index)") }
        await sdk.tern.flushCommands()
        await sdk.tern.core.bus.flush()
        try await Task.sleep(for: .milliseconds(200))
        sdk.tern.core.perform("marker", unrun: { answers.post("unrun marker") }) { _ in answers.post("marker") }
        #expect(await answers.next() == "marker", "no unrun came between the commands and the marker")
        await sdk.close()
    }

    @Test @MainActor func aCommandPostedAfterShutdownCallsUnrun() async throws {
        let sdk = try TestSDK()
        let answers = Answers()
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        await sdk.tern.flushCommands()
        await sdk.close()
        sdk.tern.core.perform("status", unrun: { answers.post("unrun") }) { _ in answers.post("ran") }
        #expect(await answers.next() == "unrun")
        // The event bus is shut down too: waiting for it ends at once.
        let bus = sdk.tern.core.bus
        #expect(await answer(within: 5) { await bus.flush() } != nil)
    }

    @Test @MainActor func readyCoreAnswersOnceInitializedAtOnceWhenUnusableAndAfterItsTimeoutWhenNeither() async throws
    {
        let waiting = try TestSDK()
        let core = waiting.tern.core
        let early = Task { await core.readyCore("early", timeout: 10) }
        waiting.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        let ready = await answer(within: 5) { await early.value }
        #expect(ready.map { $0 != nil } == true, "initialized: the ready core")
        await waiting.close()

        let unusable = try TestSDK()
        unusable.tern.initialization(configuration: TernConfiguration.Builder(apiUrl: "").build())
        let unusableCore = unusable.tern.core
        let refused = await answer(within: 5) { await unusableCore.readyCore("refused", timeout: 30) }
        #expect(refused.map { $0 == nil } == true, "unusable: nil at once, not after 30 s")
        await unusable.close()

        let never = try TestSDK()
        let neverCore = never.tern.core
        let started = Date()
        let timedOut = await answer(within: 5) { await neverCore.readyCore("never", timeout: 0.3) }
        #expect(timedOut.map { $0 == nil } == true, "never initialized: nil after the timeout")
        #expect(Date().timeIntervalSince(started) >= 0.3)
        await never.close()
    }
}
