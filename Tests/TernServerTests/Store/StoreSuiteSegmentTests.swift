import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Audience filters and segments, on every backend: each filter compiled to SQL admits exactly
/// the subscriptions its in-memory meaning admits, built-in columns follow the fields, segments
/// keep their names unique per project.
@Suite struct StoreSuiteSegmentTests {
    static let day: Int64 = 86_400_000
    static let now: Int64 = 1_800_000_000_000

    /// Twelve push subscriptions with different versions, sessions, languages, custom fields and
    /// tags, plus three the push rules leave out (suspended, another channel, invalid token).
    static func seed(_ fixture: StoreFixture) async throws -> [(Subscription, [String: String])] {
        let (database, resource) = (fixture.database, fixture.resource)
        let versions = ["1.9", "2.0", "2.0.1", "2.10", "10.0", "2.9", "1.0", "3.0 (45)", "2", "0.9", "2.1", "abc"]
        return try await fixture.store.write { tx in
            var made: [(Subscription, [String: String])] = []
            for index in 0..<15 {
                let profile = try tx.createProfile(dbId: database.id, publicId: "p\(index)", now: 1)
                var fields: [String: JSONValue] = [
                    BuiltInField.appVersion.key: .string(versions[index % versions.count]),
                    BuiltInField.sessionCount.key: .int(Int64(index % 6)),
                    BuiltInField.foregroundTime.key: .int(Int64(index * 37)),
                    BuiltInField.lastSession.key: .int(now - Int64(index) * day),
                    BuiltInField.firstSession.key: .int(now - 100 * day),
                    "plan": .string(index % 3 == 0 ? "gold" : "free"),
                    "score": index % 4 == 0 ? .double(Double(index) + 0.5) : .int(Int64(index)),
                    "vip": .bool(index % 5 == 0),
                ]
                if index % 2 == 0 { fields[BuiltInField.language.key] = .string(index % 4 == 0 ? "en" : "fr") }
                if index == 7 { fields["plan"] = .int(7) }
                let channel: SubscriptionChannel = index == 13 ? .email : .push
                let subscription = try tx.insertSubscription(
                    SubscriptionValues(
                        profileId: profile.id, resourceId: resource.id, channel: channel,
                        provider: channel == .push ? .apns : nil, token: "tok\(index)",
                        status: index == 12 ? .suspended : .subscribed, hashId: "h\(index)", fields: fields,
                        clientTime: 1), now: 10)
                var tags: [String: String] = [:]
                if index % 3 != 2 { tags["interest"] = index % 2 == 0 ? "travel" : "food" }
                if index > 9 { tags["tier"] = "b" }
                if !tags.isEmpty { try tx.setTags(subscriptionId: subscription.id, tags, now: 10) }
                if index == 14 {
                    _ = try tx.markTokenInvalid(
                        provider: .apns, token: "tok14", reason: "Unregistered", since: nil, now: 20)
                }
                made.append((subscription, tags))
            }
            return made
        }
    }

    static let filters: [String] = [
        #"{"field": "session_count", "op": ">=", "value": 3}"#,
        #"{"and": [{"field": "session_count", "op": "≥", "value": 3}, {"field": "app_version", "op": "≥", "value": "2.0"}]}"#,
        #"{"field": "app_version", "op": "<", "value": "2.9.1"}"#,
        #"{"field": "app_version", "op": "=", "value": "2.0.0"}"#,
        #"{"field": "app_version", "op": "in", "value": ["2", "10"]}"#,
        #"{"field": "app_version", "op": "not_exists"}"#,
        #"{"field": "session_count", "op": ">", "value": 2.5}"#,
        #"{"field": "session_count", "op": "!=", "value": 2}"#,
        #"{"field": "session_count", "op": "in", "value": [0, 5, 1.5]}"#,
        #"{"field": "foreground_time", "op": "<=", "value": 148}"#,
        #"{"field": "language", "op": "eq", "value": "en"}"#,
        #"{"field": "language", "op": "ne", "value": "en"}"#,
        #"{"field": "language", "op": "not_exists"}"#,
        #"{"field": "last_session", "op": "within_days", "value": 4}"#,
        #"{"field": "last_session", "op": "before", "value": "2027-01-11T00:00:00Z"}"#,
        #"{"field": "first_session", "op": "after", "value": 1}"#,
        #"{"field": "fields.plan", "op": "=", "value": "gold"}"#,
        #"{"field": "fields.plan", "op": "ne", "value": "gold"}"#,
        #"{"field": "fields.plan", "op": "in", "value": ["gold", "free"]}"#,
        #"{"field": "fields.score", "op": ">", "value": 6}"#,
        #"{"field": "fields.score", "op": "in", "value": [4.5, 5]}"#,
        #"{"field": "fields.vip", "op": "eq", "value": true}"#,
        #"{"field": "fields.vip", "op": "ne", "value": true}"#,
        #"{"field": "fields.missing", "op": "exists"}"#,
        #"{"field": "fields.score", "op": "exists"}"#,
        #"{"field": "tags.interest", "op": "=", "value": "travel"}"#,
        #"{"field": "tags.interest", "op": "≠", "value": "travel"}"#,
        #"{"field": "tags.interest", "op": "not_exists"}"#,
        #"{"field": "tags.tier", "op": "in", "value": ["a", "b"]}"#,
        #"{"or": [{"field": "tags.tier", "op": "exists"}, {"and": [{"field": "fields.plan", "op": "=", "value": "gold"}, {"field": "session_count", "op": "<", "value": 4}]}]}"#,
        // Alternatives on one tag are merged into one `in` in SQL; other alternatives stay beside it.
        #"{"or": [{"field": "tags.interest", "op": "=", "value": "travel"}, {"field": "tags.interest", "op": "in", "value": ["food", "none"]}]}"#,
        #"{"and": [{"or": [{"field": "tags.interest", "op": "=", "value": "travel"}, {"field": "tags.interest", "op": "=", "value": "food"}]}, {"field": "session_count", "op": "<", "value": 4}]}"#,
        #"{"or": [{"field": "tags.interest", "op": "=", "value": "food"}, {"field": "tags.tier", "op": "=", "value": "b"}, {"field": "tags.interest", "op": "!=", "value": "food"}, {"field": "session_count", "op": ">=", "value": 5}]}"#,
    ]

    /// A tag condition beside conditions on built-in fields: read from the tag's rows, which carry
    /// their subscription's built-in fields (`FilterSQL.tagRows(_:dialect:now:)`); then shapes
    /// that are not (two tags, a custom field) and read the subscriptions.
    static let tagBesideBuiltIns: [String] = [
        #"{"and": [{"or": [{"field": "tags.interest", "op": "=", "value": "travel"}, {"field": "tags.interest", "op": "=", "value": "food"}]}, {"field": "app_version", "op": ">", "value": "2.9"}, {"field": "session_count", "op": "<", "value": 5}]}"#,
        #"{"and": [{"field": "tags.interest", "op": "!=", "value": "food"}, {"or": [{"field": "language", "op": "=", "value": "en"}, {"field": "app_version", "op": "not_exists"}]}]}"#,
        #"{"and": [{"field": "tags.tier", "op": "exists"}, {"and": [{"field": "last_session", "op": "within_days", "value": 13}, {"field": "foreground_time", "op": "<=", "value": 450}]}]}"#,
        #"{"and": [{"field": "tags.interest", "op": "in", "value": ["travel", "none"]}, {"field": "first_session", "op": "after", "value": 1}, {"field": "language", "op": "=", "value": "fr"}]}"#,
        #"{"and": [{"field": "tags.interest", "op": "=", "value": "travel"}, {"field": "tags.tier", "op": "exists"}]}"#,
        #"{"and": [{"field": "tags.interest", "op": "=", "value": "travel"}, {"field": "fields.plan", "op": "=", "value": "gold"}]}"#,
    ]

    @Test(arguments: StoreFactory.all)
    func everyFilterAdmitsInSQLWhatItMeansInMemory(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let seeded = try await Self.seed(fixture)
        // The push rules: the suspended (12), the email (13) and the invalid token (14) never count.
        let eligible = seeded.filter { [12, 13, 14].contains(Int($0.0.id - seeded[0].0.id)) == false }
        let scope = AudienceScope(projectId: fixture.project.id, resourceId: fixture.resource.id)
        let everyone = try await fixture.store.read { try $0.audienceCount(scope, filter: nil, now: Self.now) }
        #expect(everyone == 12)
        for text in Self.filters + Self.tagBesideBuiltIns {
            let filter = try AudienceExpression.parse(try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
            let expected = eligible.filter { filter.matches(fields: $0.0.fields, tags: $0.1, now: Self.now) }
                .map(\.0.id)
            let (count, sample) = try await fixture.store.read { tx in
                (
                    try tx.audienceCount(scope, filter: filter, now: Self.now),
                    try tx.audienceSample(scope, filter: filter, now: Self.now, limit: 100).map(\.id).sorted()
                )
            }
            #expect(count == Int64(expected.count), "\(text)")
            #expect(sample == expected, "\(text)")
            let candidates = try await fixture.store.read {
                try $0.pushCandidates(
                    AudienceScope(projectId: fixture.project.id, resourceId: nil), filter: filter, now: Self.now,
                    after: 0, limit: 100, reading: .all)
            }
            #expect(candidates.map(\.subscription.id) == expected, "project-wide: \(text)")
        }
    }

    @Test(arguments: StoreFactory.all)
    func knownFiltersAdmitTheSubscriptionsTheyName(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let seeded = try await Self.seed(fixture)
        let scope = AudienceScope(projectId: fixture.project.id, resourceId: fixture.resource.id)
        func ids(_ text: String) async throws -> [Int] {
            let filter = try AudienceExpression.parse(try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
            let first = seeded[0].0.id
            return try await fixture.store.read {
                try $0.audienceSample(scope, filter: filter, now: Self.now, limit: 100)
            }
            .map { Int($0.id - first) }.sorted()
        }
        // Versions compare part by part: 2.10 and 10.0 are above 2.9; 1.9, 1.0, 0.9 and "abc" are not ≥ 2.0.
        #expect(try await ids(#"{"field": "app_version", "op": ">", "value": "2.9"}"#) == [3, 4, 7])
        #expect(try await ids(#"{"field": "app_version", "op": "=", "value": "2"}"#) == [1, 8])
        #expect(
            try await ids(
                #"{"and": [{"field": "session_count", "op": ">=", "value": 3}, {"field": "app_version", "op": ">=", "value": "2.0"}]}"#
            ) == [3, 4, 5, 10])
        #expect(try await ids(#"{"field": "tags.interest", "op": "=", "value": "food"}"#) == [1, 3, 7, 9])
        #expect(try await ids(Self.tagBesideBuiltIns[0]) == [3, 4, 7], "travel or food, above 2.9, under 5 sessions")
    }

    /// A segment of a whole project fans out over each of its resources merged by id, chunk by
    /// chunk from the cursor: every match once, in id order.
    @Test(arguments: StoreFactory.all)
    func chunksOfAProjectWalkEveryResourceInIdOrder(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let (project, database, first) = (fixture.project, fixture.database, fixture.resource)
        let expected = try await fixture.store.write { tx in
            let second = try tx.createResource(
                projectId: project.id, dbId: database.id, name: "other", channels: [.push], rToken: "rt_other", now: 1)
            var matching: [Int64] = []
            for index in 0..<20 {
                let profile = try tx.createProfile(dbId: database.id, publicId: "c\(index)", now: 1)
                let subscription = try tx.insertSubscription(
                    SubscriptionValues(
                        profileId: profile.id, resourceId: index % 3 == 0 ? second.id : first.id, channel: .push,
                        provider: .apns, token: "c\(index)", status: .subscribed, hashId: "c\(index)",
                        fields: [BuiltInField.sessionCount.key: .int(Int64(index % 4))], clientTime: 1), now: 10)
                if index % 4 != 0 { matching.append(subscription.id) }
            }
            return matching
        }
        let filter = try AudienceExpression.parse(.object(["field": "session_count", "op": ">=", "value": 1]))
        let scope = AudienceScope(projectId: project.id, resourceId: nil)
        var cursor: Int64 = 0
        var reached: [Int64] = []
        while true {
            let chunk = try await fixture.store.read { [cursor] in
                try $0.pushCandidates(scope, filter: filter, now: 0, after: cursor, limit: 4, reading: .all).map(
                    \.subscription.id)
            }
            reached += chunk
            guard chunk.count == 4, let last = chunk.last else { break }
            cursor = last
        }
        #expect(reached == expected)
        #expect(
            try await fixture.store.read { try $0.audienceCount(scope, filter: filter, now: 0) }
                == Int64(expected.count))
    }

    @Test(arguments: StoreFactory.all)
    func builtInColumnsFollowTheFieldsAndAReportKeepsUpdatedAt(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let (database, resource) = (fixture.database, fixture.resource)
        let subscription = try await fixture.store.write { tx in
            let profile = try tx.createProfile(dbId: database.id, publicId: "p", now: 1)
            return try tx.insertSubscription(
                SubscriptionValues(
                    profileId: profile.id, resourceId: resource.id, channel: .push, provider: .apns, token: "t",
                    status: .subscribed, hashId: "h", fields: ["x": 1], clientTime: 1), now: 10)
        }
        let scope = AudienceScope(projectId: fixture.project.id, resourceId: resource.id)
        let engaged = try AudienceExpression.parse(
            .object(["field": "session_count", "op": ">=", "value": 3]))
        #expect(try await fixture.store.read { try $0.audienceCount(scope, filter: engaged, now: 0) } == 0)
        var fields = subscription.fields
        fields[BuiltInField.sessionCount.key] = 4
        try await fixture.store.write { [fields] in try $0.setSubscriptionFields(id: subscription.id, fields: fields) }
        #expect(try await fixture.store.read { try $0.audienceCount(scope, filter: engaged, now: 0) } == 1)
        let read = try #require(try await fixture.store.read { try $0.subscription(id: subscription.id) })
        #expect(read.fields == fields && read.updatedAt == 10)
        var back = read
        back.fields[BuiltInField.sessionCount.key] = 1
        back.updatedAt = 20
        try await fixture.store.write { [back] in try $0.updateSubscription(back) }
        #expect(try await fixture.store.read { try $0.audienceCount(scope, filter: engaged, now: 0) } == 0)
    }

    @Test(arguments: StoreFactory.all)
    func segmentsAreUniqueByNameInTheirProjectAndEditable(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let projectId = fixture.project.id
        let made = try await fixture.store.write {
            try $0.insertSegment(
                SegmentRecord(
                    id: 0, projectId: projectId, resourceId: nil, name: "engaged", filter: "{}", createdAt: 1,
                    updatedAt: 1))
        }
        #expect(made.id > 0)
        let error = await #expect(throws: StoreError.self) {
            try await fixture.store.write {
                try $0.insertSegment(
                    SegmentRecord(
                        id: 0, projectId: projectId, resourceId: nil, name: "engaged", filter: "{}", createdAt: 2,
                        updatedAt: 2))
            }
        }
        #expect(error?.isConflict == true, "\(String(describing: error))")
        var changed = made
        changed.name = "active"
        changed.resourceId = fixture.resource.id
        changed.filter = #"{"field":"language","op":"eq","value":"en"}"#
        changed.updatedAt = 5
        try await fixture.store.write { [changed] in try $0.updateSegment(changed) }
        #expect(try await fixture.store.read { try $0.segment(id: made.id) } == changed)
        #expect(try await fixture.store.read { try $0.segments(projectId: projectId) } == [changed])
        #expect(try await fixture.store.read { try $0.segments(projectId: projectId + 100) } == [])
        #expect(try await fixture.store.write { try $0.deleteSegment(id: made.id) })
        #expect(try await !fixture.store.write { try $0.deleteSegment(id: made.id) })
    }
    /// The filters whose counts take a shortcut (groups of `audience_counts`, the tags' own rows),
    /// beside ones that read the rows.
    static let shortcutFilters: [String?] = [
        nil,
        #"{"field": "session_count", "op": ">=", "value": 3}"#,
        #"{"and": [{"field": "session_count", "op": "≥", "value": 3}, {"field": "app_version", "op": "≥", "value": "2.0"}]}"#,
        #"{"or": [{"field": "language", "op": "=", "value": "en"}, {"field": "app_version", "op": "not_exists"}]}"#,
        #"{"field": "language", "op": "in", "value": ["fr", "de"]}"#,
        #"{"field": "tags.interest", "op": "=", "value": "travel"}"#,
        #"{"field": "tags.interest", "op": "in", "value": ["travel", "food"]}"#,
        #"{"field": "tags.interest", "op": "!=", "value": "travel"}"#,
        #"{"field": "tags.tier", "op": "exists"}"#,
        #"{"and": [{"field": "tags.interest", "op": "=", "value": "travel"}, {"field": "session_count", "op": ">=", "value": 2}]}"#,
        #"{"field": "last_session", "op": "within_days", "value": 4}"#,
        #"{"or": [{"field": "tags.interest", "op": "=", "value": "travel"}, {"field": "tags.interest", "op": "=", "value": "food"}]}"#,
    ]

    @Test(arguments: StoreFactory.all)
    func countsFollowEveryWriteAndEqualTheRowsASendReaches(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let seeded = try await Self.seed(fixture)
        let texts = Self.shortcutFilters + Self.tagBesideBuiltIns.map(Optional.some)
        let filters = try texts.map { text in
            try text.map { try AudienceExpression.parse(try JSONDecoder().decode(JSONValue.self, from: Data($0.utf8))) }
        }
        func tagRows(_ index: Int) throws -> Bool {
            FilterSQL.tagRows(try #require(filters[index]), dialect: .sqlite, now: Self.now) != nil
        }
        let (grouped, mixed) = (try #require(filters[2]), try #require(filters[9]))
        #expect(FilterSQL.countsByGroup(grouped) && !FilterSQL.countsByGroup(mixed))
        #expect(try tagRows(6) && tagRows(9), "a tag, alone or beside built-in fields, is counted from its rows")
        #expect(try tagRows(11), "alternatives on one tag are one tag condition")
        #expect(
            try (12...15).allSatisfy(tagRows) && !tagRows(16) && !tagRows(17),
            "two tags or a custom field read the rows")
        func check(_ moment: String) async throws {
            for scope in [
                AudienceScope(projectId: fixture.project.id, resourceId: fixture.resource.id),
                AudienceScope(projectId: fixture.project.id, resourceId: nil),
            ] {
                for (filter, text) in zip(filters, texts) {
                    let (count, reached) = try await fixture.store.read { tx in
                        (
                            try tx.audienceCount(scope, filter: filter, now: Self.now),
                            try tx.pushCandidates(
                                scope, filter: filter, now: Self.now, after: 0, limit: 1000, reading: .all
                            ).count
                        )
                    }
                    #expect(count == Int64(reached), "\(moment): \(text ?? "everyone")")
                }
            }
        }
        try await check("seeded")
        let ids = seeded.map(\.0.id)
        let (database, resource) = (fixture.database, fixture.resource)
        try await fixture.store.write { tx in
            // A report moves a subscription to another group; a suspension and a resubscription
            // change the push rules; a token marked invalid leaves; tags change, go and come.
            var fields = try #require(try tx.subscription(id: ids[0])).fields
            fields[BuiltInField.sessionCount.key] = 9
            fields[BuiltInField.appVersion.key] = "4.0"
            fields[BuiltInField.language.key] = nil
            try tx.setSubscriptionFields(id: ids[0], fields: fields)
            // Reports on tagged subscriptions move their tag rows' built-in fields too.
            for index in [6, 10] {
                var reported = try #require(try tx.subscription(id: ids[index])).fields
                reported[BuiltInField.lastSession.key] = .int(Self.now)
                reported[BuiltInField.foregroundTime.key] = 10
                reported[BuiltInField.sessionCount.key] = 1
                reported[BuiltInField.appVersion.key] = "3.1"
                try tx.setSubscriptionFields(id: ids[index], fields: reported)
            }
            var suspended = try #require(try tx.subscription(id: ids[1]))
            suspended.status = .suspended
            suspended.updatedAt = 30
            try tx.updateSubscription(suspended)
            var back = try #require(try tx.subscription(id: ids[12]))
            back.status = .subscribed
            back.updatedAt = 30
            try tx.updateSubscription(back)
            _ = try tx.markTokenInvalid(
                provider: .apns, token: "tok2", reason: "Unregistered", since: nil, now: 40)
            try tx.setTags(subscriptionId: ids[0], ["interest": "food", "tier": "a"], now: 40)
            try tx.setTags(subscriptionId: ids[5], ["interest": "travel"], now: 40)
            try tx.removeTags(subscriptionId: ids[3], keys: ["interest"])
            try tx.clearTags(subscriptionId: ids[4])
            let profile = try tx.createProfile(dbId: database.id, publicId: "late", now: 40)
            let late = try tx.insertSubscription(
                SubscriptionValues(
                    profileId: profile.id, resourceId: resource.id, channel: .push, provider: .apns,
                    token: "late", status: .subscribed, hashId: "late",
                    fields: [BuiltInField.sessionCount.key: 5, BuiltInField.appVersion.key: "2.0"], clientTime: 1),
                now: 40)
            try tx.setTags(subscriptionId: late.id, ["interest": "travel", "tier": "b"], now: 40)
        }
        try await check("after the writes")
        // A resubscription of the invalid token brings it and its tags back.
        try await fixture.store.write { tx in
            var again = try #require(try tx.subscription(id: ids[2]))
            again.updatedAt = 50
            try tx.updateSubscription(again)
        }
        try await check("after the resubscription")
        let scope = AudienceScope(projectId: fixture.project.id, resourceId: fixture.resource.id)
        #expect(
            try await fixture.store.read { try $0.audienceCount(scope, filter: nil, now: Self.now) } == 13,
            "twelve, one suspended, one back, one new")
    }
}
