import Foundation
import TernProtocol
import TernServer
import Testing

/// push/update, push/status and push/unsuspend.
@Suite struct PushTokenFlowTests {
    @Test func updateMovesTheSubscriptionToTheNewTokenAndKeepsItsIdentity() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let created = try await server.sdk(
            .pushSubscribe, InProcessServer.subscription(token: "old", extra: ["custom_fields": ["a": 1]]))
        let updated = try await server.sdk(
            .pushUpdate,
            [
                "old_provider": "ios-apns", "old_subscription_id": "old", "provider": "ios-firebase",
                "subscription_id": "new", "custom_fields": ["b": 2],
            ])
        #expect(updated.status == 200)
        let subscription = try #require(updated.profile?.subscription)
        #expect(subscription.subscriptionId == "new")
        #expect(subscription.provider == "ios-firebase")
        #expect(subscription.hashId == created.profile?.subscription?.hashId)
        #expect(subscription.fields == ["a": 1, "b": 2])
        #expect(updated.profile?.id == created.profile?.id)
        let current = try await server.sdk(
            .pushStatus, ["mode": "current", "provider": "ios-firebase", "subscription_id": "new"])
        #expect(current.profile?.subscription?.subscriptionId == "new")
    }

    @Test func updateOfAnUnknownTokenIs404WithAReason() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let reply = try await server.sdk(
            .pushUpdate, ["old_subscription_id": "never", "provider": "ios-apns", "subscription_id": "new"])
        #expect(reply.status == 404)
        #expect(reply.errorText.contains("subscribe first"))
        let missing = try await server.sdk(.pushUpdate, ["provider": "ios-apns", "subscription_id": "new"])
        #expect(missing.status == 400)
        #expect(missing.errorText.contains("old_subscription_id"))
    }

    @Test func statusAnswersLatestCurrentAndLatestForProvider() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let db = try await JWTAuthTests.databaseId(server)
        let jwt = try signer.token(["db_id": db, "email": "s@example.com"])
        _ = try await server.sdk(.pushSubscribe, InProcessServer.subscription(token: "apns-1", time: 1), jwt: jwt)
        _ = try await server.sdk(
            .pushSubscribe, ["time": 2, "provider": "ios-firebase", "subscription_id": "fcm-1", "sync": true], jwt: jwt)
        _ = try await server.sdk(.pushSuspend, InProcessServer.subscription(token: "apns-2", time: 3), jwt: jwt)

        let latest = try await server.sdk(.pushStatus, ["mode": "latest"], jwt: jwt)
        #expect(latest.profile?.subscription?.subscriptionId == "apns-2")
        #expect(latest.profile?.subscription?.status == "suspended")
        let current = try await server.sdk(
            .pushStatus, ["mode": "current", "provider": "ios-apns", "subscription_id": "apns-1"], jwt: jwt)
        #expect(current.profile?.subscription?.subscriptionId == "apns-1")
        let forProvider = try await server.sdk(
            .pushStatus, ["mode": "latest_for_provider", "provider": "ios-firebase"], jwt: jwt)
        #expect(forProvider.profile?.subscription?.subscriptionId == "fcm-1")
        let none = try await server.sdk(
            .pushStatus, ["mode": "latest_for_provider", "provider": "ios-huawei"], jwt: jwt)
        #expect(none.status == 200)
        #expect(none.profile?.id == latest.profile?.id)
        #expect(none.profile?.subscription == nil)
        let needsProvider = try await server.sdk(.pushStatus, ["mode": "latest_for_provider"], jwt: jwt)
        #expect(needsProvider.status == 400)
    }

    @Test func statusOfAnUnknownDeviceAnswersNullProfile() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let reply = try await server.sdk(
            .pushStatus, ["mode": "current", "provider": "ios-apns", "subscription_id": "nobody"])
        #expect(reply.status == 200)
        #expect(reply.json["profile"] is NSNull)
    }

    /// The reference's log-in walk-through: an anonymous database and a registered one.
    @Test func unsuspendLogInAndLogOutAcrossTwoDatabases() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let anonymousDb = try await JWTAuthTests.databaseId(server)
        let registered = try await server.admin(
            "POST", "/projects/\(server.bootstrap.projectId)/databases", json: ["name": "registered"])
        let registeredDb = try #require(registered.json["id"] as? Int)
        let jwt1 = try signer.token(["db_id": anonymousDb, "field_name": "device", "field_value": "dev-1"])
        let jwt2 = try signer.token(["db_id": registeredDb, "email": "user@example.com"])
        let token: [String: Any] = ["provider": "ios-apns", "subscription_id": "token-1"]

        // Anonymous subscription in #1.
        let anonymous = try await server.sdk(.pushSubscribe, InProcessServer.subscription(time: 1), jwt: jwt1)
        #expect(anonymous.profile?.subscription?.status == "subscribed")

        // Log in: #1's subscription is suspended; #2 has no profile yet, so the answer is null.
        let logIn = try await server.sdk(.pushUnsuspend, token, jwt: jwt2)
        #expect(logIn.status == 200)
        #expect(logIn.profile?.subscription == nil)
        let afterLogIn = try await server.sdk(.pushStatus, ["mode": "latest"], jwt: jwt1)
        #expect(afterLogIn.profile?.subscription?.status == "suspended")

        // The app then subscribes in #2, creating the profile there.
        let subscribed = try await server.sdk(.pushSubscribe, InProcessServer.subscription(time: 2), jwt: jwt2)
        #expect(subscribed.profile?.subscription?.status == "subscribed")
        #expect(subscribed.profile?.id != anonymous.profile?.id)

        // Log out: #2's subscription is suspended, #1's comes back, and the answer carries it.
        let logOut = try await server.sdk(.pushUnsuspend, token, jwt: jwt1)
        #expect(logOut.status == 200)
        #expect(logOut.profile?.id == anonymous.profile?.id)
        #expect(logOut.profile?.subscription?.status == "subscribed")
        let registeredNow = try await server.sdk(.pushStatus, ["mode": "latest"], jwt: jwt2)
        #expect(registeredNow.profile?.subscription?.status == "suspended")

        // Log in again: #2 exists with a suspended subscription, which comes back.
        let again = try await server.sdk(.pushUnsuspend, token, jwt: jwt2)
        #expect(again.profile?.subscription?.status == "subscribed")
        let anonymousNow = try await server.sdk(.pushStatus, ["mode": "latest"], jwt: jwt1)
        #expect(anonymousNow.profile?.subscription?.status == "suspended")
    }

    /// An rToken-only push/update changes the token's holder on the resource: of the profiles in the
    /// resource's database, the one whose subscription is subscribed (the newest such), not a
    /// newer suspended one, nor a newer one in another database.
    @Test func updateWithoutAJWTChangesTheSubscribedHolderInTheResourcesDatabase() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let resourceDb = try await JWTAuthTests.databaseId(server)
        let other = try await server.admin(
            "POST", "/projects/\(server.bootstrap.projectId)/databases", json: ["name": "other"])
        let otherDb = try #require(other.json["id"] as? Int)
        let first = try signer.token(["db_id": resourceDb, "field_name": "device", "field_value": "dev-1"])
        let second = try signer.token(["db_id": resourceDb, "field_name": "device", "field_value": "dev-2"])
        let elsewhere = try signer.token(["db_id": otherDb, "email": "user@example.com"])
        let token: [String: Any] = ["provider": "ios-apns", "subscription_id": "token-1"]

        // The subscribed holder is older than the suspended one: newest first alone would miss it.
        let holder = try await server.sdk(.pushSubscribe, InProcessServer.subscription(time: 1), jwt: second)
        let suspended = try await server.sdk(.pushSubscribe, InProcessServer.subscription(time: 2), jwt: first)
        #expect(try await server.sdk(.pushUnsuspend, token, jwt: second).status == 200)
        let suspendedNow = try await server.sdk(.pushStatus, ["mode": "latest"], jwt: first)
        #expect(suspendedNow.profile?.subscription?.status == "suspended")
        let newest = try await server.sdk(.pushSubscribe, InProcessServer.subscription(time: 3), jwt: elsewhere)
        #expect(newest.profile?.subscription?.status == "subscribed")

        let updated = try await server.sdk(
            .pushUpdate,
            [
                "old_subscription_id": "token-1", "provider": "ios-apns", "subscription_id": "token-1",
                "custom_fields": ["seen": 1],
            ])
        #expect(updated.status == 200, "\(updated.errorText)")
        #expect(updated.profile?.id == holder.profile?.id)
        #expect(updated.profile?.subscription?.fields?["seen"] == 1)
        for (jwt, profile) in [(first, suspended), (elsewhere, newest)] {
            let status = try await server.sdk(.pushStatus, ["mode": "latest"], jwt: jwt)
            #expect(status.profile?.id == profile.profile?.id)
            #expect(status.profile?.subscription?.fields?["seen"] == nil)
        }
    }

    @Test func unsuspendNeedsAJWTAndAToken() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let rTokenOnly = try await server.sdk(.pushUnsuspend, ["provider": "ios-apns", "subscription_id": "t"])
        #expect(rTokenOnly.status == 401)
        #expect(rTokenOnly.errorText.contains("needs a JWT"))
        let signer = try await TestSigner.register(on: server)
        let jwt = try signer.token(["db_id": try await JWTAuthTests.databaseId(server), "email": "a@b"])
        let noToken = try await server.sdk(.pushUnsuspend, [:], jwt: jwt)
        #expect(noToken.status == 400)
    }
}
