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
            (["localizations": ["es": [String: String]()]], "localizations.es has no title, subtitle or body"),
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
