import Foundation
import Testing

@testable import TernTarget

/// The four subscription types on the wire: `channel` as the discriminator, snake_case keys, and
/// decoded back to the same values.
@Suite struct SubscriptionCodingTests {
    static func json(_ subscription: any Subscription) throws -> [String: Any] {
        try #require(
            JSONSerialization.jsonObject(with: JSONEncoder().encode(AnySubscription(subscription))) as? [String: Any])
    }

    static func roundTrip(_ subscription: any Subscription) throws -> any Subscription {
        try JSONDecoder().decode(AnySubscription.self, from: JSONEncoder().encode(AnySubscription(subscription))).base
    }

    @Test func emailEncodesItsChannelAndSnakeCaseKeysAndDecodesBack() throws {
        let email = EmailSubscription(
            resourceId: 7, email: "ada@example.com", status: "subscribed", priority: 2,
            customFields: ["source": "app", "vip": true], cats: ["news", "offers"])
        let json = try Self.json(email)
        #expect(json["channel"] as? String == "email")
        #expect(json["resource_id"] as? Int == 7)
        #expect(json["email"] as? String == "ada@example.com")
        #expect(json["status"] as? String == "subscribed")
        #expect(json["priority"] as? Int == 2)
        #expect((json["custom_fields"] as? [String: Any])?["source"] as? String == "app")
        #expect(json["cats"] as? [String] == ["news", "offers"])
        #expect(Set(json.keys) == ["channel", "resource_id", "email", "status", "priority", "custom_fields", "cats"])
        #expect(try Self.roundTrip(email) as? EmailSubscription == email)
    }

    @Test func smsAndPushEncodeTheirOwnFields() throws {
        let sms = SmsSubscription(resourceId: 3, phone: "+351912345678")
        let smsJSON = try Self.json(sms)
        #expect(Set(smsJSON.keys) == ["channel", "resource_id", "phone"])
        #expect(smsJSON["channel"] as? String == "sms")
        #expect(smsJSON["phone"] as? String == "+351912345678")
        #expect(try Self.roundTrip(sms) as? SmsSubscription == sms)

        let push = PushSubscription(
            resourceId: 1, provider: "ios-apns", subscriptionId: "token-9", customFields: ["_os": "IOS"])
        let json = try Self.json(push)
        #expect(json["channel"] as? String == "push")
        #expect(json["provider"] as? String == "ios-apns")
        #expect(json["subscription_id"] as? String == "token-9")
        #expect(json["subscriptionId"] == nil)
        #expect(try Self.roundTrip(push) as? PushSubscription == push)
    }

    @Test(arguments: ["telegram_bot", "whatsapp", "viber", "notify"])
    func ccDataKeepsItsChannelAndData(channel: String) throws {
        let subscription = CcDataSubscription(
            resourceId: 4, channel: channel, ccData: ["chat_id": "123456789", "extra": ["a": 1]], cats: ["bots"])
        let json = try Self.json(subscription)
        #expect(json["channel"] as? String == channel)
        #expect((json["cc_data"] as? [String: Any])?["chat_id"] as? String == "123456789")
        let back = try #require(try Self.roundTrip(subscription) as? CcDataSubscription)
        #expect(back == subscription)
    }

    @Test func decodingRefusesUnknownChannelsAndMismatchedTypes() throws {
        let unknown = Data(#"{"channel":"fax","resource_id":1}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(AnySubscription.self, from: unknown) }
        let sms = Data(#"{"channel":"sms","resource_id":1,"phone":"+1"}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(EmailSubscription.self, from: sms) }
        let badCc = Data(#"{"channel":"email","resource_id":1,"cc_data":{}}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(CcDataSubscription.self, from: badCc) }
        let noEmail = Data(#"{"channel":"email","resource_id":1}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(AnySubscription.self, from: noEmail) }
    }

    @Test func eachTypeBecomesTheGoalsWireSubscription() throws {
        let email = try SubscriptionWire.make(EmailSubscription(resourceId: 2, email: "a@b.c", cats: ["x"])).get()
        #expect(email == GoalSubscription(channel: "email", resourceId: 2, cats: ["x"], email: "a@b.c"))
        let push = try SubscriptionWire.make(
            PushSubscription(resourceId: 1, provider: "ios-firebase", subscriptionId: "t", priority: 5)
        ).get()
        #expect(
            push
                == GoalSubscription(
                    channel: "push", resourceId: 1, priority: 5, provider: "ios-firebase", subscriptionId: "t"))
        let cc = try SubscriptionWire.make(
            CcDataSubscription(resourceId: 4, channel: "viber", ccData: ["phone": "+1"], status: "suspended")
        ).get()
        #expect(cc == GoalSubscription(channel: "viber", resourceId: 4, status: "suspended", ccData: ["phone": "+1"]))
    }

    @Test(
        arguments: [
            (
                CcDataSubscription(resourceId: 4, channel: "icq", ccData: ["uin": "1"]) as any Subscription,
                "subscription.channel"
            ),
            (EmailSubscription(resourceId: 2, email: "a@b.c", status: "active"), "subscription.status"),
            (EmailSubscription(resourceId: 0, email: "a@b.c"), "subscription.resourceId"),
            (EmailSubscription(resourceId: 2, email: ""), "subscription.email"),
            (SmsSubscription(resourceId: 2, phone: ""), "subscription.phone"),
            (PushSubscription(resourceId: 1, provider: "android", subscriptionId: "t"), "subscription.provider"),
            (PushSubscription(resourceId: 1, provider: "ios-apns", subscriptionId: ""), "subscription.subscriptionId"),
            (CcDataSubscription(resourceId: 4, channel: "notify", ccData: [:]), "subscription.ccData"),
            (
                SmsSubscription(resourceId: 2, phone: "+1", customFields: ["nested": ["a": 1]]),
                "subscription.customFields.nested"
            ),
            (SmsSubscription(resourceId: 2, phone: "+1", cats: [""]), "subscription.cats"),
        ] as [(any Subscription, String)])
    func incompleteSubscriptionsAreRefusedNamingTheField(subscription: any Subscription, field: String) {
        guard case .failure(let problem) = SubscriptionWire.make(subscription) else {
            Issue.record("\(subscription) was accepted")
            return
        }
        #expect(problem.field == field)
        #expect(!problem.reason.isEmpty)
    }
}
