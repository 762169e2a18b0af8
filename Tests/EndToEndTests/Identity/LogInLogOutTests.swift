import Foundation
import TernCore
import TernProtocol
import TernPush
import TernSDKTestKit
import TernTestSupport
import Testing

/// The reference's log-in / log-out example against a real `tern serve`, across two profile
/// databases: anonymous JWT_1 → database #1, registered JWT_2 → database #2.
@Suite(.serialized) struct LogInLogOutTests {
    static let token = "e2e-login-apns-token-77aa"

    /// An app on the anonymous JWT, subscribed: its profile is in database #1.
    static func anonymousApp(_ server: JWTServer, _ directory: TemporaryDirectory) throws
        -> (Tern, JWTManager, EventLog)
    {
        let tern = FirstSubscriptionTests.makeSDK(directory)
        let stream = EventLog(tern)
        let jwt = JWTManager()
        jwt.set(
            try server.jwt(db: server.anonymousDatabase, matching: ["provider": "ios-apns", "subscription_id": token]))
        tern.setAppGroup(groupName: "group.tern.login")
        tern.setJWTProvider(provider: jwt)
        tern.initialization(
            configuration: TernConfiguration.Builder(apiUrl: server.process.apiURL.absoluteString)
                .setRToken(server.process.rToken).build())
        tern.push.token.setToken(provider: "ios-apns", pushToken: token)
        tern.push.subscription.subscribe()
        return (tern, jwt, stream)
    }

    @Test func theReferenceLogInAndLogOutMoveTheSubscriptionBetweenDatabases() async throws {
        let server = try await JWTServer.start()
        let directory = try TemporaryDirectory(prefix: "tern-e2e-login")
        let (tern, jwt, stream) = try Self.anonymousApp(server, directory)
        let anonymous = try #require(await stream.next("pushSubscribeRequestSuccessful")?.profile?.id)
        let registeredJWT = try server.jwt(db: server.registeredDatabase, matching: ["email": "ada@example.com"])
        let anonymousJWT = try #require(jwt.getToken())

        // logIn(), as the reference writes it.
        func logIn() {
            jwt.set(registeredJWT)
            tern.push.subscription.unSuspend { result in
                if result?.httpCode == 200, result?.response?.profile?.subscription == nil {
                    tern.push.subscription.subscribe()
                }
            }
        }
        func logOut() {
            jwt.set(anonymousJWT)
            tern.push.subscription.unSuspend { result in
                if result?.httpCode == 200, result?.response?.profile?.subscription == nil {
                    tern.push.subscription.subscribe()
                }
            }
        }

        logIn()
        let unsuspended = try #require(await stream.next("unsuspendRequestSuccessful"), "push/unsuspend failed")
        #expect(unsuspended.httpCode == 200)
        // Database #2 had no subscription with this token: the profile came back without one.
        #expect(unsuspended.profile?.subscription == nil)
        let registered = try #require(
            await stream.next("pushSubscribeRequestSuccessful")?.profile, "logIn did not subscribe the new profile")
        let registeredId = try #require(registered.id)
        #expect(registeredId != anonymous)
        #expect(registered.subscription?.status == "subscribed")
        #expect(try await server.statuses(token: Self.token) == [anonymous: "suspended", registeredId: "subscribed"])

        logOut()
        let back = try #require(await stream.next("unsuspendRequestSuccessful"), "push/unsuspend on log-out failed")
        // The anonymous profile's subscription already exists: no new one is made.
        #expect(back.profile?.id == anonymous)
        #expect(back.profile?.subscription?.status == "subscribed")
        #expect(await stream.next("pushSubscribeRequestSuccessful", timeout: 1) == nil)
        #expect(try await server.statuses(token: Self.token) == [anonymous: "subscribed", registeredId: "suspended"])

        await tern.shutdown()
        await server.process.stop()
        directory.remove()
    }

    @Test func authenticateAndLogOutHandTheTokenOverByThemselves() async throws {
        let server = try await JWTServer.start()
        let directory = try TemporaryDirectory(prefix: "tern-e2e-handover")
        let (tern, jwt, stream) = try Self.anonymousApp(server, directory)
        let anonymous = try #require(await stream.next("pushSubscribeRequestSuccessful")?.profile?.id)
        let anonymousJWT = try #require(jwt.getToken())

        // Sign-in: the token becomes the user's.
        jwt.set(try server.jwt(db: server.registeredDatabase, matching: ["email": "grace@example.com"]))
        tern.authFunctions.authenticate()
        #expect(await stream.next("authenticateSuccessful") != nil)
        #expect(await stream.next("unsuspendRequestSuccessful") != nil)
        let user = try #require(await stream.next("pushSubscribeRequestSuccessful")?.profile?.id)
        #expect(try await server.statuses(token: Self.token) == [anonymous: "suspended", user: "subscribed"])

        // Sign-out: the token is the install's again; the next person does not get the user's pushes.
        jwt.set(anonymousJWT)
        tern.authFunctions.logOut()
        #expect(await stream.next("userLogOut") != nil)
        let back = try #require(await stream.next("unsuspendRequestSuccessful"))
        #expect(back.profile?.id == anonymous)
        #expect(try await server.statuses(token: Self.token) == [anonymous: "subscribed", user: "suspended"])

        await tern.shutdown()
        await server.process.stop()
        directory.remove()
    }
}
