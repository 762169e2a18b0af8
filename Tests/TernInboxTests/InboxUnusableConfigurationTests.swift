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
    @Test @MainActor func theyAnswerAtOnceWithTheReason() async throws {
        let sdk = try TestSDK(modules: ["TernInbox", "TernProfile"])
        sdk.tern.initialization(configuration: TernConfiguration.Builder(apiUrl: "").build())
        let inbox = sdk.tern.inbox
        let profile = sdk.tern.profile
        let snapshot = await answer(within: 5) { await inbox.snapshot() }
        #expect(snapshot?.messages.isEmpty == true, "snapshot() answered the empty inbox")
        let sync = await answer(within: 5) { () -> String in
            do {
                _ = try await inbox.sync()
                return "synced"
            } catch { return "\(error)" }
        }
        #expect(sync?.contains("configIsNotSet") == true, "\(sync ?? "no answer within 5 s")")
        let preferences = await answer(within: 5) { () -> String in
            do {
                _ = try await profile.preferences()
                return "read"
            } catch { return "\(error)" }
        }
        #expect(preferences?.contains("configIsNotSet") == true, "\(preferences ?? "no answer within 5 s")")
        await sdk.close()
    }
}
