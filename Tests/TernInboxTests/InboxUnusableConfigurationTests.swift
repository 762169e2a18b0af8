import Foundation
import TernCore
import TernInbox
import TernProfile
import TernSDKTestKit
import Testing

/// The inbox's and the preferences' `async` calls answer at once when the SDK cannot run calls (an
/// unusable configuration, reported as `configIsNotSet`), instead of waiting out their timeouts of
/// 10 and 30 seconds for an initialization that will not come.
@Suite("Inbox and preferences under an unusable configuration")
struct InboxUnusableConfigurationTests {
    /// "ok", or the error `call` threw as text; nil when it did not answer within five seconds.
    static func outcome(_ call: @escaping @Sendable () async throws -> Void) async -> String? {
        await answer(within: 5) {
            do {
                try await call()
                return "ok"
            } catch { return "\(error)" }
        }
    }

    @Test @MainActor func theyAnswerAtOnceWithTheReason() async throws {
        let sdk = try TestSDK(modules: ["TernInbox", "TernProfile"])
        sdk.tern.initialization(configuration: TernConfiguration.Builder(apiUrl: "").build())
        let inbox = sdk.tern.inbox
        let profile = sdk.tern.profile
        let snapshot = await answer(within: 5) { await inbox.snapshot() }
        #expect(snapshot?.messages.isEmpty == true, "snapshot() answered the empty inbox")
        let sync = await Self.outcome { _ = try await inbox.sync() }
        #expect(sync?.contains("configIsNotSet") == true, "\(sync ?? "no answer within 5 s")")
        let preferences = await Self.outcome { _ = try await profile.preferences() }
        #expect(preferences?.contains("configIsNotSet") == true, "\(preferences ?? "no answer within 5 s")")
        await sdk.close()
    }
}
