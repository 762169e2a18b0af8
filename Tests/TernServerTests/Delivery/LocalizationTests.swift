import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// A message in several languages: each device gets the texts of its own language (its whole code,
/// else its language alone), personalized as any text, and the message's own where its language has
/// none; what does not go with it is refused by name.
@Suite struct LocalizationTests {
    @Test(arguments: StoreFactory.all)
    func eachDeviceGetsItsLanguagesTexts(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        var profiles: [String: String] = [:]
        for (token, language) in [
            ("es-phone", "es"), ("br-phone", "pt-BR"), ("pt-phone", "pt"), ("mx-phone", "es_MX"), ("de-phone", "de"),
            ("none-phone", nil),
        ] as [(String, String?)] {
            profiles[token] = try await harness.subscribe(token, fields: language.map { ["_os_language": $0] } ?? [:])
        }
        let reply = try await harness.create([
            "title": "Sale {{_fname|friend}}", "body": "30% off",
            "localizations": [
                "es": ["title": "Rebajas {{_fname|amigo}}"], "pt": ["body": "30% hoje"], "pt-BR": ["title": "Promoção"],
            ],
            "inbox": true, "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.status) \(reply.errorText)")
        while try await harness.engine.drain() > 0 {}
        var shown: [String: (String?, String?)] = [:]
        for push in harness.sender.pushes {
            let (_, title, body) = try MessageVariantTests.shown(push)
            shown[push.token] = (title, body)
        }
        #expect(shown.count == 6)
        #expect(shown["es-phone"]?.0 == "Rebajas amigo" && shown["es-phone"]?.1 == "30% off")
        #expect(shown["mx-phone"]?.0 == "Rebajas amigo", "es_MX takes es's texts")
        #expect(shown["br-phone"]?.0 == "Promoção" && shown["br-phone"]?.1 == "30% off", "pt-BR's entry alone")
        #expect(shown["pt-phone"]?.0 == "Sale friend" && shown["pt-phone"]?.1 == "30% hoje")
        #expect(shown["de-phone"]?.0 == "Sale friend" && shown["de-phone"]?.1 == "30% off")
        #expect(shown["none-phone"]?.0 == "Sale friend")
        // Each person's inbox copy is in their device's language too.
        for (token, title) in [("es-phone", "Rebajas amigo"), ("pt-phone", "Sale friend"), ("br-phone", "Promoção")] {
            let inbox = try await harness.server.admin("GET", "/profiles/\(try #require(profiles[token]))/inbox")
            let copy = (inbox.json["messages"] as? [[String: Any]])?.first
            #expect(copy?["title"] as? String == title, "\(token): \(inbox.json)")
        }
    }

    @Test(arguments: StoreFactory.all)
    func eachDeviceGetsItsLanguagesClickURLAndMediaOnEveryProvider(factory: StoreFactory) async throws {
        let fcm = RecordingSender(provider: .firebase)
        let hms = RecordingSender(provider: .huawei)
        let harness = try await DeliveryHarness.make(store: factory, others: [fcm, hms])
        defer { Task { await harness.finish() } }
        var profiles: [String: String] = [:]
        for (token, provider, language) in [
            ("es-apns", "ios-apns", "es"), ("es-fcm", "ios-firebase", "es-MX"), ("es-hms", "ios-huawei", "es"),
            ("fr-apns", "ios-apns", "fr"), ("fr-fcm", "ios-firebase", "fr"), ("pt-apns", "ios-apns", "pt"),
        ] {
            profiles[token] = try await harness.subscribe(token, provider: provider, fields: ["_os_language": language])
        }
        let reply = try await harness.create([
            "title": "Sale", "click_url": "https://example.com/sale", "media_url": "https://cdn.example.com/sale.jpg",
            "localizations": [
                "es": [
                    "title": "Rebajas", "click_url": "https://example.com/es/rebajas?ref={{ref|app}}",
                    "media_url": "https://cdn.example.com/rebajas.jpg",
                ],
                // A language may change its link alone: its texts stay the message's.
                "pt": ["click_url": "https://example.com/pt/promocao"],
            ],
            "inbox": true, "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.status) \(reply.errorText)")
        while try await harness.engine.drain() > 0 {}
        var shown: [String: (title: String?, link: String?, media: String?)] = [:]
        for push in harness.sender.pushes + fcm.pushes + hms.pushes {
            let json = try #require(try JSONSerialization.jsonObject(with: push.payload) as? [String: Any])
            let alert = (json["aps"] as? [String: Any])?["alert"] as? [String: Any]
            let tern = json[TernPushPayload.key] as? [String: Any]
            shown[push.token] = (
                alert?["title"] as? String, tern?["click_url"] as? String, tern?["media_url"] as? String
            )
        }
        #expect(shown.count == 6, "\(shown.keys)")
        for token in ["es-apns", "es-fcm", "es-hms"] {
            #expect(shown[token]?.title == "Rebajas", "\(token)")
            #expect(shown[token]?.link == "https://example.com/es/rebajas?ref=app", "\(token)")
            #expect(shown[token]?.media == "https://cdn.example.com/rebajas.jpg", "\(token)")
        }
        for token in ["fr-apns", "fr-fcm"] {
            #expect(shown[token]?.title == "Sale", "\(token)")
            #expect(shown[token]?.link == "https://example.com/sale", "\(token): no fr entry, the message's own")
            #expect(shown[token]?.media == "https://cdn.example.com/sale.jpg", "\(token)")
        }
        #expect(shown["pt-apns"]?.title == "Sale" && shown["pt-apns"]?.link == "https://example.com/pt/promocao")
        #expect(shown["pt-apns"]?.media == "https://cdn.example.com/sale.jpg", "pt has no media of its own")
        // The inbox copy keeps its language's link and image too.
        for (token, link, image) in [
            ("es-apns", "https://example.com/es/rebajas?ref=app", "https://cdn.example.com/rebajas.jpg"),
            ("fr-apns", "https://example.com/sale", "https://cdn.example.com/sale.jpg"),
        ] {
            let inbox = try await harness.server.admin("GET", "/profiles/\(try #require(profiles[token]))/inbox")
            let copy = (inbox.json["messages"] as? [[String: Any]])?.first
            #expect(
                copy?["link"] as? String == link && copy?["image_url"] as? String == image, "\(token): \(inbox.json)")
        }
    }

    @Test func whatDoesNotGoWithLocalizationsIsRefusedByName() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        let many = Dictionary(
            uniqueKeysWithValues: (0..<51).map {
                ("x\(String(UnicodeScalar(97 + $0 % 26)!))\($0 / 26 == 0 ? "" : "-\($0)")", ["title": "t"])
            })
        for (body, fragment) in [
            (["localizations": ["spanish language": ["title": "x"]]], "is not a language"),
            (
                ["localizations": ["es": [String: String]()]],
                "localizations.es has no title, subtitle, body, click_url or media_url"
            ),
            (
                ["localizations": ["es": ["media_url": "http://cdn.example.com/a.jpg"]]],
                "localizations.es: media_url must be https"
            ),
            (
                ["localizations": ["es": ["click_url": "not a url"]]],
                "localizations.es: click_url not a url is not an absolute URL"
            ),
            (
                ["localizations": ["es": ["click_url": "https://example.com/?ref={{ref"]]],
                "localizations.es.click_url has a {{ with no }}"
            ),
            (["localizations": [String: Any]()], "localizations is empty"),
            (["localizations": many], "more than 50"),
            (
                ["localizations": ["es": ["title": String(repeating: "x", count: 1025)]]],
                "localizations.es: title is longer"
            ),
            (
                ["localizations": ["es": ["body": String(repeating: "é", count: 2100)]]],
                "localizations.es: the payload would be"
            ),
            (
                [
                    "localizations": ["es": ["title": "x"]],
                    "variants": [["percent": 50], ["percent": 50, "title": "B"]],
                ],
                "localizations do not go with variants"
            ),
        ] as [([String: Any], String)] {
            var json = body
            json["title"] = "Hi"
            json["audience"] = audience
            let reply = try await harness.create(json)
            #expect(reply.status == 400, "\(body.keys)")
            #expect(reply.errorText.contains(fragment), "\(reply.errorText)")
        }
        let background = try await harness.create([
            "push_type": "background", "localizations": ["es": ["title": "x"]], "audience": audience,
        ])
        #expect(background.status == 400 && background.errorText.contains("background push"), "\(background.errorText)")
    }
}
