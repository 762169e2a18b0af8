import Foundation
import TernHTTP
import TernProtocol
import TernSDKTestKit
import Testing

@testable import TernCore

/// The SDK reports the built-in fields on its own schedule: when a session starts (real
/// foreground activity, never initialization alone) and when the app leaves the foreground, as
/// `device/report` rows of the ordered outbox.
@Suite("The SDK reports app version, language and sessions on its own")
struct DeviceReportTests {
    static func reports(_ server: ScriptedServer, count: Int) async throws -> [[String: Any]] {
        for _ in 0..<300 {
            let found = await server.requests.filter { $0.path.hasSuffix(Endpoint.deviceReport.rawValue) }
            if found.count >= count { return found.map { jsonObject($0.body) } }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        return await server.requests.filter { $0.path.hasSuffix(Endpoint.deviceReport.rawValue) }
            .map { jsonObject($0.body) }
    }

    static func configure(_ tern: Tern, _ server: ScriptedServer, collection: Bool = true) {
        tern.setAppGroup(groupName: "group.test")
        tern.initialization(
            configuration: TernConfiguration.Builder(apiUrl: server.apiUrl).setRToken("rt_test")
                .setAppInfo(AppInfo(appID: "com.example", appIID: "iid-1", appVer: "2.1.0"))
                .setCollectionEnabled(collection).build())
        tern.core.perform("setToken") { ready in
            try? await ready.setToken(TokenData(provider: "ios-apns", token: "tok-report"))
        }
    }

    @Test @MainActor func eachSessionStartAndEachTripToTheBackgroundIsReported() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let lifecycle = ManualAppLifecycle()
        let sdk = try TestSDK(lifecycle: lifecycle, sessionTimeout: 0)
        Self.configure(sdk.tern, server)
        await sdk.settle()
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(try await Self.reports(server, count: 0).isEmpty, "initialization alone starts no session")

        await lifecycle.set(.foreground)
        let first = try #require(try await Self.reports(server, count: 1).first)
        #expect(first["session_count"] as? Int == 1)
        #expect(first["app_version"] as? String == "2.1.0")
        let language = await HostDeviceInfo(model: "iPhone14,7", name: "iPhone", osVersion: "18.6.2").current().language
        #expect(first["language"] as? String == language)
        // The device's offset now, so a message at a local time follows a device that travelled.
        #expect(first["time_zone"] as? String == DeviceFields.timeZone(TimeZone.current.secondsFromGMT()))
        #expect(first["provider"] as? String == "ios-apns" && first["subscription_id"] as? String == "tok-report")
        let start = try #require(first["first_session"] as? Int)
        #expect(first["last_session"] as? Int == start)

        try await Task.sleep(nanoseconds: 1_100_000_000)
        await lifecycle.set(.background)
        await lifecycle.set(.foreground)
        let all = try await Self.reports(server, count: 3)
        try #require(all.count == 3, "\(all)")
        #expect(all[1]["session_count"] as? Int == 1)
        #expect((all[1]["foreground_time"] as? Int ?? 0) >= 1, "the stretch in front was counted: \(all[1])")
        #expect(all[2]["session_count"] as? Int == 2)
        #expect(all[2]["first_session"] as? Int == start)
        #expect((all[2]["last_session"] as? Int ?? 0) > start)
        await sdk.close()
    }

    @Test @MainActor func noReportWhileCollectionIsOff() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let lifecycle = ManualAppLifecycle()
        let sdk = try TestSDK(lifecycle: lifecycle, sessionTimeout: 0)
        Self.configure(sdk.tern, server, collection: false)
        await sdk.settle()
        await lifecycle.set(.foreground)
        await lifecycle.set(.background)
        try await Task.sleep(nanoseconds: 300_000_000)
        await sdk.settle()
        #expect(try await Self.reports(server, count: 0).isEmpty)
        await sdk.close()
    }

    @Test func aSessionStartOrAnEndedStretchIsWorthAReport() {
        let t0 = Date(timeIntervalSince1970: 1_000)
        let started = SessionRecord().enteringForeground(at: t0, timeout: 60)
        #expect(started.isReportable(after: SessionRecord()))
        let away = started.enteringBackground(at: t0 + 10)
        #expect(away.isReportable(after: started))
        let back = away.enteringForeground(at: t0 + 20, timeout: 60)
        #expect(!back.isReportable(after: away), "back within the timeout: the same session")
        let report = away.report(
            token: TokenData(provider: "ios-apns", token: "t"), appVersion: "", language: "en", timeZone: "-0530",
            now: t0 + 30)
        #expect(report.sessionCount == 1 && report.foregroundTime == 10 && report.appVersion == nil)
        #expect(report.firstSession == 1_000_000 && report.language == "en")
        #expect(report.fields["_os_tz"] == .string("-0530"))
    }
}
