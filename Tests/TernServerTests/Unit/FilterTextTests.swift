import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// `tern`'s `--where`: the short text form reads into the API's JSON (and then checks as it does);
/// versions compare part by part.
@Suite struct FilterTextTests {
    static func json(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    @Test func andBindsTighterThanOrAndParenthesesGroup() throws {
        let parsed = try FilterText.parse(
            "session_count >= 3 and app_version >= 2.10 or (tags.interest in (travel, 'city break') and fields.vip = true)"
        )
        let expected = try Self.json(
            #"""
            {"or": [
              {"and": [{"field": "session_count", "op": ">=", "value": 3}, {"field": "app_version", "op": ">=", "value": "2.10"}]},
              {"and": [{"field": "tags.interest", "op": "in", "value": ["travel", "city break"]}, {"field": "fields.vip", "op": "=", "value": true}]}
            ]}
            """#)
        #expect(parsed == expected)
        _ = try AudienceExpression.parse(parsed)
    }

    @Test func presenceAndTimesReadAsTheirOperators() throws {
        let parsed = try FilterText.parse(
            "language not exists or last_session within 7 days or first_session before 2026-01-01T00:00:00Z")
        let expected = try Self.json(
            #"""
            {"or": [{"field": "language", "op": "not_exists"},
                    {"field": "last_session", "op": "within_days", "value": 7},
                    {"field": "first_session", "op": "before", "value": "2026-01-01T00:00:00Z"}]}
            """#)
        #expect(parsed == expected)
        _ = try AudienceExpression.parse(parsed)
    }

    @Test func mistakesSayWhere() {
        #expect(throws: APIError.badRequest("filter: ends where a value after >= should be")) {
            try FilterText.parse("session_count >=")
        }
        #expect(throws: APIError.badRequest("filter: ends where a closing ) should be")) {
            try FilterText.parse("(session_count >= 3 and language = en")
        }
        #expect(throws: APIError.badRequest("filter: unexpected \")\" after a complete filter")) {
            try FilterText.parse("session_count >= 3)")
        }
    }

    @Test func versionKeysSortAsVersions() throws {
        let ordered = ["0.9", "1.9.2", "2", "2.0.1", "2.9", "2.10", "3.0 (45)", "10.0"]
        let keys = ordered.map { VersionKey.key($0) }
        #expect(keys.allSatisfy { $0 != nil })
        #expect(keys.map { $0 ?? "" } == keys.map { $0 ?? "" }.sorted())
        #expect(VersionKey.key("2") == VersionKey.key("2.0.0"))
        #expect(VersionKey.key("beta") == nil)
    }
}
