import Foundation
import TernHTTP
import TernProfile
import TernPush
import TernSDKTestKit
import Testing

/// `setTags` and `removeTags` against a loopback API: the wire, the wait for a token, the refusals.
@Suite(.serialized) struct TagsTests {
    @Test func tagsGoInOrderWithTheDevicesTokenOnceItArrives() async throws {
        let api = try LoopbackAPI()
        let sdk = try TestSDK(modules: ["TernPush", "TernProfile"])
        sdk.configure(apiUrl: api.apiUrl)
        let set = sdk.tern.profile.tags.setTags(["interest": "travel", "tier": "gold"])
        let removed = sdk.tern.profile.tags.removeTags(["tier", "tier"])
        #expect(set.state == .queued && removed.state == .queued)
        await sdk.settle()
        #expect(await api.requests.isEmpty, "tags wait for the device's token")

        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "apns-token-1")
        _ = try #require(await sdk.events.first("removeTagsRequestSuccessful"))
        let setEvent = try #require(await sdk.events.first("setTagsRequestSuccessful"))
        #expect(setEvent.module == "tags")
        #expect(setEvent.httpCode == 200)
        let requests = await api.requests
        #expect(requests.map(\.path) == ["/api/v1/profile/tags/set", "/api/v1/profile/tags/remove"])
        #expect(requests.map { $0.header("Idempotency-Key") } == [set.id, removed.id])
        let setBody = jsonObject(requests[0].body)
        #expect(setBody["provider"] as? String == "ios-apns")
        #expect(setBody["subscription_id"] as? String == "apns-token-1")
        #expect(setBody["tags"] as? [String: String] == ["interest": "travel", "tier": "gold"])
        #expect(jsonObject(requests[1].body)["keys"] as? [String] == ["tier"])
        api.stop()
        await sdk.close()
    }

    @Test(
        arguments: [
            ([:], "tags is empty"),
            (["": "x"], "a tag key is empty"),
            ([String(repeating: "k", count: 129): "x"], "longer than 128 characters"),
            (["k": String(repeating: "v", count: 1025)], "longer than 1024 characters"),
            (["line\nbreak": "x"], "control character"),
            (Dictionary(uniqueKeysWithValues: (0...100).map { ("k\($0)", "v") }), "send at most 100"),
        ] as [([String: String], String)])
    func badTagsAreRefusedBeforeQueueing(tags: [String: String], words: String) async throws {
        let sdk = try TestSDK(modules: ["TernPush", "TernProfile"])
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        let refused = sdk.tern.profile.tags.setTags(tags)
        guard case .failed(let reason) = refused.state else {
            Issue.record("bad tags were queued")
            return
        }
        #expect(reason.contains(words), "\(reason)")
        let event = try #require(await sdk.events.first("invalidTagsRequestData"))
        #expect(event.isError && event.reason == reason)
        await sdk.settle()
        #expect(await sdk.tern.outboxStatistics()?.enqueuedTotal == 0)
        await sdk.close()
    }

    @Test func badRemovalsAreRefusedBeforeQueueing() async throws {
        let sdk = try TestSDK(modules: ["TernPush", "TernProfile"])
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        #expect(sdk.tern.profile.tags.removeTags([]).state != .queued)
        #expect(sdk.tern.profile.tags.removeTags(["ok", ""]).state != .queued)
        await sdk.settle()
        #expect(sdk.events.all.filter { $0.name == "invalidTagsRequestData" }.count == 2)
        #expect(await sdk.tern.outboxStatistics()?.enqueuedTotal == 0)
        await sdk.close()
    }

    @Test func aRefusalIsSetTagsRequestFailedWithTheServersReason() async throws {
        let api = try LoopbackAPI()
        await api.answer(.envelopeError(404, "no profile holds this push token on resource 1"))
        let sdk = try TestSDK(modules: ["TernPush", "TernProfile"])
        sdk.configure(apiUrl: api.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "t")
        sdk.tern.profile.tags.setTags(["a": "b"])
        let failure = try #require(await sdk.events.first("setTagsRequestFailed"))
        #expect(failure.isError && !failure.isRetry)
        #expect(failure.httpCode == 404)
        #expect(failure.errorText == "no profile holds this push token on resource 1")
        api.stop()
        await sdk.close()
    }
}
