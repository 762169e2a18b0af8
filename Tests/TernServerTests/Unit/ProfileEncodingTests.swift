import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// The answer's profile written straight to bytes is byte for byte what JSONEncoder writes, and
/// steps aside (nil) where it would not be.
@Suite struct ProfileEncodingTests {
    static let profiles: [ProfileData] = [
        ProfileData(id: nil, status: nil, isTest: nil, subscription: nil),
        ProfileData(id: "p_1", status: "active", acid: "a/b", isTest: false, subscription: nil),
        ProfileData(
            id: "p_2", status: "active", isTest: true,
            subscription: SubscriptionData(
                subscriptionId: "tok\"en\\1\n\t\r", hashId: "h", provider: "ios-apns", status: "subscribed",
                fields: [
                    "_os": "IOS", "B": 1, "_x": .null, "a10": true, "a9": [1, "x", ["k": -5]], "é": "ünï 😀",
                    "empty": .object([:]), "list": .array([]),
                ],
                cats: [CategoryData(name: "news", title: "News", steady: false, active: true), CategoryData()])),
        ProfileData(
            id: "p_3", status: nil, isTest: nil,
            subscription: SubscriptionData(
                subscriptionId: nil, hashId: nil, provider: nil, status: nil, fields: [:], cats: [])),
    ]

    @Test(arguments: profiles)
    func bytesMatchJSONEncoder(_ profile: ProfileData) throws {
        let fast = try #require(ProfileEncoding.envelope(profile))
        let foundation = try EnvelopeCoding.encode(.ok(profile))
        #expect(String(decoding: fast, as: UTF8.self) == String(decoding: foundation, as: UTF8.self))
        #expect(try Answer.ok(profile).body == foundation)
    }

    @Test func valuesItWouldWriteDifferentlyFallBack() throws {
        for fields: [String: JSONValue] in [["n": .double(1.5)], ["s": "bell\u{7}"], ["\u{1}": 1]] {
            let profile = ProfileData(
                id: "p", status: "active", isTest: nil,
                subscription: SubscriptionData(
                    subscriptionId: "t", hashId: nil, provider: nil, status: nil, fields: fields, cats: nil))
            #expect(ProfileEncoding.envelope(profile) == nil)
            #expect(try Answer.ok(profile).body == (try EnvelopeCoding.encode(.ok(profile))))
        }
    }
}
