import Foundation
import TernCore
import TernPush
import TernSDKTestKit
import Testing

/// A push call that answers its caller answers nil (or just returns) when the SDK cannot run it: under
/// an unusable configuration (each call fails with `configIsNotSet`), or when the SDK shuts down
/// first. An `await` on one never waits forever.
@Suite("Push calls with an answer are answered when the SDK cannot run them")
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

    /// A status query still queued when the SDK shuts down (it waits for a token) is answered nil.
    @Test @MainActor func aStatusQueryQueuedAtShutdownIsAnsweredNil() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        sdk.configure(apiUrl: server.apiUrl)
        let push = sdk.tern.push
        let query = Task { await answer(within: 10) { await push.subscription.latest() } }
        await sdk.tern.flushQueues()
        await sdk.close()
        let response = await query.value
        #expect(response.map { $0 == nil } == true, "latest() answered nil at shutdown")
        #expect(await server.requests.isEmpty, "without a token the query was never sent")
    }
}
