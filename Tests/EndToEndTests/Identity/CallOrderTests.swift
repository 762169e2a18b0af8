import Foundation
import TernCore
import TernProtocol
import TernPush
import TernSDKTestKit
import TernTestSupport
import Testing

/// The order the app called in is the order the server sees: the SDK's own follow-ups (the
/// re-subscribe after the hand-over of `authenticate()`/`logOut()`, a token change) go through the
/// same mailbox as the app's calls and never overtake or undo the app's later call. Against a real
/// `tern serve`, for several gaps between the two calls.
@Suite(.serialized) struct CallOrderTests {
    /// How long the app waits between its two calls.
    enum Gap: CaseIterable {
        case none, yield, oneMillisecond, fiveMilliseconds, twentyMilliseconds, afterTheHandOver

        func wait(_ stream: EventLog) async {
            switch self {
            case .none: break
            case .yield: await Task.yield()
            case .oneMillisecond: try? await Task.sleep(nanoseconds: 1_000_000)
            case .fiveMilliseconds: try? await Task.sleep(nanoseconds: 5_000_000)
            case .twentyMilliseconds: try? await Task.sleep(nanoseconds: 20_000_000)
            case .afterTheHandOver: _ = await stream.next("unsuspendRequestSuccessful", timeout: 10)
            }
        }
    }

    /// A device on its own token, signed in or anonymous, subscribed.
    struct Device {
        let tern: Tern
        let jwt: JWTManager
        let stream: EventLog
        let token: String
        let directory: TemporaryDirectory

        static func subscribed(_ server: JWTServer, signedIn: Bool, name: String) async throws -> Device {
            let directory = try TemporaryDirectory(prefix: "tern-e2e-order")
            let token = "order-\(name)-\(UUID().uuidString.prefix(8))"
            let tern = FirstSubscriptionTests.makeSDK(directory)
            let stream = EventLog(tern)
            let jwt = JWTManager()
            jwt.set(
                signedIn
                    ? try server.jwt(db: server.registeredDatabase, matching: ["email": "\(token)@example.com"])
                    : try server.jwt(
                        db: server.anonymousDatabase, matching: ["provider": "ios-apns", "subscription_id": token]))
            tern.setAppGroup(groupName: "group.tern.order")
            tern.setJWTProvider(provider: jwt)
            tern.initialization(
                configuration: TernConfiguration.Builder(apiUrl: server.process.apiURL.absoluteString)
                    .setRToken(server.process.rToken).build())
            tern.push.token.setToken(provider: "ios-apns", pushToken: token)
            if signedIn { tern.authFunctions.authenticate() }
            tern.push.subscription.subscribe()
            #expect(await stream.next("pushSubscribeRequestSuccessful") != nil, "\(name): the first subscribe failed")
            return Device(tern: tern, jwt: jwt, stream: stream, token: token, directory: directory)
        }

        /// Returns once everything the calls set off, follow-ups included, reached the server.
        func settle() async {
            // Until the outbox is empty (a loaded machine can stall the server for seconds), three
            // times over, so a follow-up posted by a late answer is sent too.
            for _ in 0..<3 {
                await tern.flushQueues()
                var emptied = false
                for _ in 0..<12 where !emptied { emptied = await tern.flush(timeout: 10) }
            }
        }

        func end() async {
            await tern.shutdown()
            directory.remove()
        }
    }

    @Test func logOutThenUnsubscribeLeavesTheDeviceUnsubscribed() async throws {
        let server = try await JWTServer.start()
        for gap in Gap.allCases {
            let device = try await Device.subscribed(server, signedIn: true, name: "logout-\(gap)")
            device.jwt.set(
                try server.jwt(
                    db: server.anonymousDatabase, matching: ["provider": "ios-apns", "subscription_id": device.token]))
            device.tern.authFunctions.logOut()
            await gap.wait(device.stream)
            device.tern.push.subscription.unsubscribe()
            await device.settle()
            let statuses = try await server.statuses(token: device.token)
            // The anonymous profile had no subscription: the hand-over's re-subscribe must not land
            // after (or instead of) the app's unsubscribe.
            #expect(!statuses.values.contains("subscribed"), "gap \(gap): \(statuses)")
            #expect(statuses.values.contains("unsubscribed"), "gap \(gap): \(statuses)")
            await device.end()
        }
        await server.process.stop()
    }

    @Test func authenticateThenSuspendLeavesTheDeviceSuspended() async throws {
        let server = try await JWTServer.start()
        for gap in Gap.allCases {
            let device = try await Device.subscribed(server, signedIn: false, name: "auth-\(gap)")
            device.jwt.set(
                try server.jwt(db: server.registeredDatabase, matching: ["email": "\(device.token)@example.com"]))
            device.tern.authFunctions.authenticate()
            await gap.wait(device.stream)
            device.tern.push.subscription.suspend()
            await device.settle()
            let statuses = try await server.statuses(token: device.token)
            let seen = device.stream.names
            #expect(!statuses.values.contains("subscribed"), "gap \(gap): \(statuses) \(seen)")
            #expect(statuses.values.contains("suspended"), "gap \(gap): \(statuses)")
            await device.end()
        }
        await server.process.stop()
    }

    @Test func aTokenChangeInBetweenKeepsTheAppsLastCall() async throws {
        let server = try await JWTServer.start()
        for gap in Gap.allCases {
            let device = try await Device.subscribed(server, signedIn: false, name: "token-\(gap)")
            let newToken = device.token + "-new"
            device.jwt.set(
                try server.jwt(db: server.registeredDatabase, matching: ["email": "\(device.token)@example.com"]))
            device.tern.authFunctions.authenticate()
            device.tern.push.token.setToken(provider: "ios-apns", pushToken: newToken)
            await gap.wait(device.stream)
            device.tern.push.subscription.suspend()
            await device.settle()
            let old = try await server.statuses(token: device.token)
            let new = try await server.statuses(token: newToken)
            #expect(!old.values.contains("subscribed"), "gap \(gap): old token \(old)")
            #expect(!new.values.contains("subscribed"), "gap \(gap): new token \(new)")
            #expect(new.values.contains("suspended"), "gap \(gap): new token \(new)")
            await device.end()
        }
        await server.process.stop()
    }
}
