import Foundation
import TernProtocol
import TernSQLite

extension SQLTransaction {
    static var profileColumns: String { "id, public_id, db_id, is_test, skip_triggers, created_at, updated_at" }

    func profile(id: Int64) throws -> Profile? {
        try database.queryFirst("SELECT \(Self.profileColumns) FROM profiles WHERE id = ?", [id]).map {
            Self.profile($0)
        }
    }

    /// Nil for an erased profile's public id too (``Profile/erasedPrefix``): it names no one.
    func profile(publicId: String) throws -> Profile? {
        guard !publicId.hasPrefix(Profile.erasedPrefix) else { return nil }
        return try database.queryFirst("SELECT \(Self.profileColumns) FROM profiles WHERE public_id = ?", [publicId])
            .map { Self.profile($0) }
    }

    func createProfile(dbId: Int64, publicId: String, now: Int64) throws -> Profile {
        let id = try insert(
            """
            INSERT INTO profiles (public_id, db_id, is_test, skip_triggers, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """, [publicId, dbId, false, false, now, now])
        return Profile(id: id, publicId: publicId, dbId: dbId, createdAt: now, updatedAt: now)
    }

    func profiles(dbId: Int64, field name: String, value: JSONValue) throws -> [Profile] {
        let value = Self.json(value)
        // PostgreSQL's index on field values holds their digests (a b-tree entry cannot hold a long
        // value): its query compares the digest first, then the value.
        let (equals, values): (String, [any SQLiteBindable]) =
            switch Self.dialect {
            case .sqlite: ("f.value = ?", [value])
            case .postgres: ("md5(f.value) = md5(?) AND f.value = ?", [value, value])
            }
        return try database.query(
            """
            SELECT p.id, p.public_id, p.db_id, p.is_test, p.skip_triggers, p.created_at, p.updated_at
            FROM profile_fields f JOIN profiles p ON p.id = f.profile_id
            WHERE f.name = ? AND \(equals) AND p.db_id = ? ORDER BY p.id
            """, [name] + values + [dbId]
        ).map { Self.profile($0) }
    }

    func profileFields(profileId: Int64) throws -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        for row in try database.query("SELECT name, value FROM profile_fields WHERE profile_id = ?", [profileId]) {
            fields[row.requiredString(0)] = try Self.value(row.string(1)) ?? .null
        }
        return fields
    }

    func setProfileField(profileId: Int64, name: String, value: JSONValue?) throws {
        // Nobody reads the row counts: on PostgreSQL they go with the write's next statement.
        if let value {
            try database.runBeforeNext(
                """
                INSERT INTO profile_fields (profile_id, name, value) VALUES (?, ?, ?)
                ON CONFLICT (profile_id, name) DO UPDATE SET value = excluded.value
                """, [profileId, name, Self.json(value)])
        } else {
            try database.runBeforeNext(
                "DELETE FROM profile_fields WHERE profile_id = ? AND name = ?", [profileId, name])
        }
    }

    func updateProfile(_ profile: Profile) throws {
        try database.run(
            "UPDATE profiles SET is_test = ?, skip_triggers = ?, updated_at = ? WHERE id = ?",
            [profile.isTest, profile.skipTriggers, profile.updatedAt, profile.id])
    }

    /// A profile read from ``profileColumns``, in a row where they start at column `first`.
    static func profile(_ row: Connection.Row, from first: Int = 0) -> Profile {
        Profile(
            id: row.requiredInt(first), publicId: row.requiredString(first + 1), dbId: row.requiredInt(first + 2),
            isTest: row.bool(first + 3) ?? false, skipTriggers: row.bool(first + 4) ?? false,
            createdAt: row.requiredInt(first + 5), updatedAt: row.requiredInt(first + 6))
    }
}

extension SQLTransaction {
    static var subscriptionColumns: String { subscriptionColumns(.all) }

    /// ``subscriptionColumns`` with the custom fields and categories only as `reading` asks: a
    /// `NULL` in the place of each other one, which ``subscription(_:)`` reads as empty.
    static func subscriptionColumns(_ reading: CandidateDetail) -> String {
        """
        s.id, s.profile_id, s.resource_id, s.channel, s.provider, s.token, s.status, s.hash_id, \
        \(reading.contains(.fields) ? "s.fields" : "NULL"), \(reading.contains(.cats) ? "s.cats" : "NULL"),
        s.priority, s.cc_data, s.client_time, s.created_at, s.updated_at, s.apns_environment, s.is_test
        """
    }

    /// How many columns ``subscriptionColumns`` has: what a query selects after them starts here.
    static var subscriptionColumnCount: Int { 17 }

    func subscription(id: Int64) throws -> Subscription? {
        try database.queryFirst("SELECT \(Self.subscriptionColumns) FROM subscriptions s WHERE s.id = ?", [id])
            .map(Self.subscription)
    }

    func subscriptions(profileId: Int64) throws -> [Subscription] {
        try database.query(
            """
            SELECT \(Self.subscriptionColumns) FROM subscriptions s WHERE s.profile_id = ?
            ORDER BY s.created_at DESC, s.id DESC
            """, [profileId]
        ).map(Self.subscription)
    }

    func subscriptions(resourceId: Int64, channel: SubscriptionChannel, provider: PushProvider?, token: String) throws
        -> [Subscription]
    {
        try subscriptionsWithProfiles(resourceId: resourceId, channel: channel, provider: provider, token: token)
            .map(\.subscription)
    }

    func subscriptionsWithProfiles(
        resourceId: Int64, channel: SubscriptionChannel, provider: PushProvider?, token: String
    ) throws -> [(subscription: Subscription, profile: Profile, othersStatus: SubscriptionStatus?)] {
        // The statement names neither the channel nor the resource in a way an index could use, so
        // the token index, (provider, token), is the only one that answers it, on both stores, at
        // any size: the rows (one, nearly always) are kept here. With `channel = 'push'` in the text,
        // the partial index `subscriptions_push_by_resource` matched too: SQLite walked it (the unary
        // `+` keeps it from the resource), and PostgreSQL's plan for the prepared statement, chosen
        // while the table was empty, read the resource's every push subscription on each call from
        // then on (a new deployment's subscribes fell from 2,200 to 300 a second in a minute).
        // They are ordered here too: `ORDER BY updated_at` made SQLite build a sorter for each lookup,
        // as the token index does not hold `updated_at` (and must not: every write of a
        // subscription changes it). Each row's profile comes with it, found by its key, and its other
        // subscriptions' strongest status: an rToken caller's profile is a holder of the token, its
        // status is part of a write's answer, and on PostgreSQL a second query is a round trip.
        try database.query(Self.tokenOnResourceQuery, [resourceId, channel.storedProvider(provider), token])
            .map { row in
                let profile = Self.profile(row, from: Self.subscriptionColumnCount)
                let others = row.int(Self.subscriptionColumnCount + 7).map { Self.statusRanks[Int($0)] }
                return (try Self.subscription(row), profile, others)
            }
            .filter { $0.subscription.channel == channel }
            .sorted {
                ($0.subscription.updatedAt, $0.subscription.id) > ($1.subscription.updatedAt, $1.subscription.id)
            }
    }

    /// ``subscriptionsWithProfiles(resourceId:channel:provider:token:)``'s statement (its plans are tested).
    static var tokenOnResourceQuery: String {
        """
        SELECT \(subscriptionColumns), p.id, p.public_id, p.db_id, p.is_test, p.skip_triggers, p.created_at,
            p.updated_at,
            (SELECT MIN(CASE o.status WHEN 'subscribed' THEN 0 WHEN 'suspended' THEN 1 ELSE 2 END)
                FROM subscriptions o WHERE o.profile_id = p.id AND o.id <> s.id)
        FROM subscriptions s JOIN profiles p ON p.id = s.profile_id
        WHERE +s.resource_id = ? AND s.provider = ? AND s.token = ?
        """
    }

    /// The statuses in the order a profile's status takes them (``ProfilePresenter/status(of:)``),
    /// by the rank ``tokenOnResourceQuery`` gives them; any other stored status counts as
    /// unsubscribed, as there.
    private static var statusRanks: [SubscriptionStatus] { [.subscribed, .suspended, .unsubscribed] }

    func subscriptions(dbId: Int64, provider: PushProvider, token: String) throws -> [Subscription] {
        // Push subscriptions only, kept here for the reason the lookup above gives.
        try database.query(Self.tokenInDatabaseQuery, [provider.rawValue, token, dbId])
            .map(Self.subscription).filter { $0.channel == .push }
    }

    /// ``subscriptions(dbId:provider:token:)``'s statement (its plans are tested).
    static var tokenInDatabaseQuery: String {
        """
        SELECT \(subscriptionColumns) FROM subscriptions s JOIN profiles p ON p.id = s.profile_id
        WHERE s.provider = ? AND s.token = ? AND p.db_id = ?
        ORDER BY s.updated_at DESC, s.id DESC
        """
    }

    func subscriptionStatuses(profileId: Int64) throws -> [SubscriptionStatus] {
        try database.query("SELECT status FROM subscriptions WHERE profile_id = ?", [profileId]).map {
            SubscriptionStatus(rawValue: $0.requiredString(0)) ?? .unsubscribed
        }
    }

    func insertSubscription(_ new: SubscriptionValues, now: Int64) throws -> Subscription {
        let id = try insert(Self.subscriptionInsert, Self.subscriptionInsertValues(new, now: now))
        return Subscription(id: id, values: new, createdAt: now, updatedAt: now)
    }

    func addSubscription(_ new: SubscriptionValues, now: Int64) throws {
        try database.runBeforeNext(Self.subscriptionInsert, Self.subscriptionInsertValues(new, now: now))
    }

    private static var subscriptionInsert: String {
        """
        INSERT INTO subscriptions (profile_id, resource_id, channel, provider, token, status, hash_id, fields,
            cats, priority, cc_data, client_time, created_at, updated_at, apns_environment, is_test,
            app_version_key, language, first_session, last_session, session_count, foreground_time, pushable)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, \(BuiltInColumns.pushableSQL))
        """
    }

    private static func subscriptionInsertValues(_ new: SubscriptionValues, now: Int64) -> [any SQLiteBindable] {
        [
            new.profileId, new.resourceId, new.channel.rawValue, new.channel.storedProvider(new.provider),
            new.token, new.status.rawValue,
            new.hashId, Self.json(new.fields), Self.json(new.cats), new.priority,
            Self.jsonOptional(new.ccData), new.clientTime, now, now, new.apnsEnvironment?.rawValue, new.isTest,
        ] + BuiltInColumns(new.fields).values + BuiltInColumns.pushableValues(new, updatedAt: now)
    }

    /// Writes `s` over its stored row, `pushable` included (from its invalid-token mark). What the
    /// `UPDATE` names is chosen per backend, because naming a column costs each differently:
    ///
    /// - SQLite rewrites an index whenever the `SET` list names one of its columns, even with its
    ///   own value, and fires every trigger `AFTER UPDATE OF` a named column (naming every column
    ///   was 35 % of the writer's time under push/update). So the row's indexed columns and the
    ///   `pushable` the write would give it are read first, by key (no round trip on SQLite), and
    ///   only the groups that differ are named: the address (channel, provider, token), `is_test`,
    ///   the built-in field columns, `pushable`. The rest is not indexed and always written.
    /// - PostgreSQL compares values for its indexes: an update whose indexed columns keep theirs
    ///   adds no index entry (HOT) however many it names. But it sets up the `WHEN` of every
    ///   trigger whose columns the `SET` list names (the audience triggers: the built-in columns
    ///   and `pushable`), about 20 µs of its CPU, and takes from the list which indexes an update
    ///   that adds entries leaves unchanged, whose entries for old versions it then clears before
    ///   splitting a page. A read first cost a round trip and a row lock (`FOR UPDATE`, or a mark
    ///   committed between it and the write was left on a row the write made newer). So one
    ///   statement, sent with the write's next one (``SQLConnection/runBeforeNext(_:_:)``), decides
    ///   on the row itself: `kept` writes the rest when the row's built-in columns and `pushable`
    ///   already are what `s` gives them, else the outer `UPDATE` writes them too, `pushable`
    ///   computed. One of the two writes the row; a concurrent write's new version is what each
    ///   re-checks its condition on. The address and `is_test` are named only when they differ
    ///   from `read`, the caller's view of the row. A mark committed before the statement is in
    ///   its `pushable`; a mark's update after it finds the row as new as this write (one that
    ///   commits while the statement waits for the row's lock is not in its snapshot: the row
    ///   stays pushable until a send meets the provider's answer again, as with the locked read).
    func updateSubscription(_ s: Subscription, from read: Subscription?) throws {
        var columns = "status = ?, fields = ?, cats = ?, priority = ?, cc_data = ?, client_time = ?, updated_at = ?, "
        columns += "apns_environment = ?"
        var values: [any SQLiteBindable] = [
            s.status.rawValue, Self.json(s.fields), Self.json(s.cats), s.priority, Self.jsonOptional(s.ccData),
            s.clientTime, s.updatedAt, s.apnsEnvironment?.rawValue,
        ]
        let provider = s.channel.storedProvider(s.provider)
        func name(address: Bool, test: Bool) {
            if address {
                columns += ", channel = ?, provider = ?, token = ?"
                values += [s.channel.rawValue, provider, s.token]
            }
            if test {
                columns += ", is_test = ?"
                values.append(s.isTest)
            }
        }
        let builtIns = BuiltInColumns(s.fields)
        let builtInsNamed = BuiltInColumns.names.map { "\($0) = ?" }.joined(separator: ", ")
        let pushable = BuiltInColumns.pushableValues(s.values, updatedAt: s.updatedAt)
        // Nobody reads the row count: on PostgreSQL the statement goes with the write's next one.
        switch Self.dialect {
        case .postgres:
            name(
                address: read?.channel != s.channel || read?.provider != s.provider || read?.token != s.token,
                test: read?.isTest != s.isTest)
            // The row as it is with `s`'s built-in columns and `pushable`: then `kept` writes the
            // rest, naming no trigger's column; otherwise the outer update names them too.
            let unchanged =
                "pushable = \(BuiltInColumns.pushableSQL) AND "
                + BuiltInColumns.names.map { "\($0) IS NOT DISTINCT FROM ?" }.joined(separator: " AND ")
            try database.runBeforeNext(
                """
                WITH kept AS (UPDATE subscriptions SET \(columns) WHERE id = ? AND \(unchanged) RETURNING id)
                UPDATE subscriptions SET \(columns), \(builtInsNamed), pushable = \(BuiltInColumns.pushableSQL)
                WHERE id = ? AND NOT EXISTS (SELECT 1 FROM kept)
                """,
                values + [s.id] + pushable + builtIns.values + values + builtIns.values + pushable + [s.id])
        case .sqlite:
            guard
                let stored = try database.queryFirst(
                    """
                    SELECT channel, provider, token, is_test, pushable, \(BuiltInColumns.pushableSQL),
                        \(BuiltInColumns.names.joined(separator: ", "))
                    FROM subscriptions WHERE id = ?
                    """, pushable + [s.id])
            else { return }  // gone meanwhile: as an UPDATE of no row, nothing to write
            name(
                address: stored.string(0) != s.channel.rawValue || stored.string(1) != provider
                    || stored.string(2) != s.token,
                test: stored.bool(3) != s.isTest)
            if stored.int(4) != stored.int(5) {
                columns += ", pushable = ?"
                values.append(stored.int(5))
            }
            if BuiltInColumns(stored, from: 6) != builtIns {
                columns += ", " + builtInsNamed
                values += builtIns.values
            }
            try database.runBeforeNext("UPDATE subscriptions SET \(columns) WHERE id = ?", values + [s.id])
        }
    }

    static func subscription(_ row: Connection.Row) throws -> Subscription {
        let channel = try SubscriptionChannel.stored(row.requiredString(3))
        return Subscription(
            id: row.requiredInt(0),
            values: SubscriptionValues(
                profileId: row.requiredInt(1), resourceId: row.requiredInt(2),
                channel: channel, provider: try PushProvider.stored(row.requiredString(4), channel: channel),
                token: row.requiredString(5),
                status: SubscriptionStatus(rawValue: row.requiredString(6)) ?? .unsubscribed,
                hashId: row.requiredString(7),
                fields: try object(row.string(8)) ?? [:],
                cats: try flags(row.string(9)) ?? [:], priority: row.int(10),
                ccData: try object(row.string(11)), clientTime: row.requiredInt(12),
                apnsEnvironment: row.string(15).flatMap(APNsEnvironment.init(rawValue:)), isTest: row.bool(16) ?? false),
            createdAt: row.requiredInt(13), updatedAt: row.requiredInt(14))
    }
}
