import Foundation
import TernCore
import TernPush
import TernSDKTestKit
import Testing

/// With an unusable configuration the SDK fails each call with `configIsNotSet`; a call that
/// answers its caller answers nil (or just returns) instead of leaving an `await` waiting forever.
@Suite("Push calls with an answer, under an unusable configuration")
struct UnusableConfigurationTests {
    @Test @MainActor func everyPushCallThatAnswersIsAnsweredAndReportsConfigIsNotSet() async throws {
        let sdk = try TestSDK(modules: ["TernPush"])
        sdk.tern.initialization(configuration: TernConfiguration.Builder(apiUrl: "").build())
        let push = sdk.tern.push

        let token = await answer(within: 10) { await push.token.getToken() }
        #expect(token.map { $0 == nil } == true, "getToken() answered nil")
        typealias Status = ResponseModel.ResponseWithHttpCode<ResponseModel.ResponseWithProfile>
        let queries: [(String, @Sendable () async -> Status?)] = [
            ("latest", { @Sendable in await push.subscription.latest() }),
            ("current", { @Sendable in await push.subscription.current() }),
            ("latestForProvider", { @Sendable in await push.subscription.latestForProvider() }),
            ("unSuspend", { @Sendable in await push.subscription.unSuspend() }),
        ]
        for (function, query) in queries {
            let response: Status?? = await answer(within: 10, query)
            #expect(response.map { $0 == nil } == true, "\(function)() answered nil")
        }
        #expect(await answer(within: 10) { await push.token.deleteToken(provider: "ios-firebase") } != nil)
        #expect(await answer(within: 10) { await push.token.forcedTokenUpdate() } != nil)

        await sdk.settle()
        let failed = Set(sdk.events.all.filter { $0.name == "configIsNotSet" }.map(\.function))
        #expect(
            failed.isSuperset(of: [
                "getToken", "latest", "current", "latestForProvider", "unSuspend", "deleteToken", "forcedTokenUpdate",
            ]))
        await sdk.close()
    }
}
