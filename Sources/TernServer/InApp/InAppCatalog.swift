import Foundation
import TernCrypto
import TernProtocol

/// A campaign ready to be placed: what `inapp/placements` filters on, and its placement's JSON
/// without the `smid`, encoded once when the campaign is loaded rather than on every request.
struct LiveCampaign: Sendable {
    let id: Int64
    let priority: Int64
    let anonymous: Bool
    let startsAt: Int64?
    let endsAt: Int64?
    /// nil: shown on any screen (an `open_app` or `custom` trigger, or `open_page` for any screen);
    /// else the screens its `open_page` triggers name.
    let screens: Set<String>?
    let audience: AudienceFilter?
    /// The audience's `filter`, on the device's push binding.
    let expression: AudienceExpression?
    /// The placement's JSON before and after the smid's value.
    let head: String
    let tail: String

    init(_ record: InAppCampaignRecord, servesStatic: Bool) throws {
        id = record.id
        priority = record.priority
        startsAt = record.startsAt
        endsAt = record.endsAt
        let definition = try record.decodedDefinition()
        anonymous = definition.anonymous
        var screens: Set<String>? = []
        for trigger in definition.triggers {
            if trigger.type == .openPage, let names = trigger.screens, !names.isEmpty {
                screens?.formUnion(names)
            } else {
                screens = nil
            }
        }
        self.screens = screens
        audience = definition.audience.flatMap { $0.isEmpty ? nil : $0.filter(resourceId: record.resourceId) }
        expression = try definition.audience?.filter.map { json in
            do { return try AudienceExpression.parse(json, path: "audience.filter") } catch {
                throw StoreError.backend("in-app campaign \(record.id): its stored filter is refused: \(error)")
            }
        }
        let placement = try record.placement(smid: Self.placeholder, servesStatic: servesStatic)
        var json = String(decoding: try JSONCoders.encoder.encode(placement), as: UTF8.self)
        // A campaign that targets an audience (its categories, fields, tags or filter) says so: the
        // SDK shows it only while the app lets it collect audience data (`collectionEnabled`).
        if audience != nil || expression != nil, json.first == "{" {
            json = #"{"audience":true,"# + json.dropFirst()
        }
        // A string inside the content cannot hold this unescaped: its quotes would be `\"`.
        guard let member = json.range(of: #""smid":"\#(Self.placeholder)""#) else {
            throw StoreError.backend("in-app campaign \(record.id): its placement did not encode as expected")
        }
        head = String(json[..<member.lowerBound]) + #""smid":""#
        tail = "\"" + String(json[member.upperBound...])
    }

    static let placeholder = "smid-placeholder"

    /// The placement's JSON with its smid (digits, a dot and hex: nothing to escape).
    func json(smid: String) -> String { head + smid + tail }

    /// True when it is live at `now` (ms), on `screen` (nil: any).
    func holds(now: Int64, screen: String?) -> Bool {
        if let startsAt, now < startsAt { return false }
        if let endsAt, now >= endsAt { return false }
        if let screen, let screens, !screens.contains(screen) { return false }
        return true
    }
}

/// The active campaigns of each (project, resource), highest priority first, kept for a moment so
/// `inapp/placements` reads no campaign rows: reloaded when this server changes a campaign, and
/// at most ``ttl`` milliseconds after another server sharing the store did.
actor InAppCatalog {
    struct Entry {
        let campaigns: [LiveCampaign]
        let projectCapsJSON: String
        let needsTags: Bool
        let loadedAt: Int64
    }

    static let ttl: Int64 = 2000
    private var entries: [String: Entry] = [:]
    private var loading: [String: Task<Entry, any Error>] = [:]
    private var generation = 0

    /// The entry of (project, resource). A missing one is loaded once however many requests wait
    /// for it; a stale one is answered while one reload runs behind it.
    func entry(projectId: Int64, resourceId: Int64, store: any Store, now: Int64) async throws -> Entry {
        let key = "\(projectId).\(resourceId)"
        if let entry = entries[key] {
            if now - entry.loadedAt >= Self.ttl || now < entry.loadedAt, loading[key] == nil {
                _ = load(key, projectId: projectId, resourceId: resourceId, store: store, now: now)
            }
            return entry
        }
        let task = loading[key] ?? load(key, projectId: projectId, resourceId: resourceId, store: store, now: now)
        return try await task.value
    }

    private func load(_ key: String, projectId: Int64, resourceId: Int64, store: any Store, now: Int64)
        -> Task<Entry, any Error>
    {
        let started = generation
        let task = Task<Entry, any Error> {
            do {
                let entry = try await Self.read(projectId: projectId, resourceId: resourceId, store: store, now: now)
                self.loaded(key, entry, generation: started)
                return entry
            } catch {
                self.failed(key, generation: started)
                throw error
            }
        }
        loading[key] = task
        return task
    }

    private func loaded(_ key: String, _ entry: Entry, generation started: Int) {
        // A change made while this loaded may be missing from it: it answers its own waiters only.
        guard started == generation else { return }
        loading[key] = nil
        entries[key] = entry
    }

    private func failed(_ key: String, generation started: Int) {
        if started == generation { loading[key] = nil }
    }

    private static func read(projectId: Int64, resourceId: Int64, store: any Store, now: Int64) async throws -> Entry {
        try await store.read { tx in
            let records = try tx.inAppCampaigns(
                projectId: projectId, resourceId: resourceId, status: InAppCampaignStatus.active.rawValue,
                limit: 100_000)
            let campaigns = try records.sorted { ($0.priority, -$0.id) > ($1.priority, -$1.id) }.map { record in
                try LiveCampaign(record, servesStatic: !(try tx.inAppStaticNames(campaignId: record.id)).isEmpty)
            }
            let caps = try InAppService.projectCaps(tx, projectId: projectId)
            let capsJSON = String(decoding: try JSONCoders.encoder.encode(caps), as: UTF8.self)
            return Entry(
                campaigns: campaigns, projectCapsJSON: capsJSON,
                needsTags: campaigns.contains { $0.audience?.needsTags == true || $0.expression != nil },
                loadedAt: now)
        }
    }

    /// Forgets everything: a campaign or the project's caps changed here.
    func invalidate() {
        generation += 1
        entries.removeAll()
        loading.removeAll()
    }
}

/// How many times each campaign was placed, added up in memory and written to its statistics at
/// most a second later (and before statistics are read), so a placements request writes nothing.
actor InAppPlacedCounter {
    private var pending: [Int64: Int64] = [:]
    private var lastFlush: Int64 = 0
    private var flushing = false

    /// Adds one placement of each campaign; true when a flush is due.
    func add(_ ids: [Int64], now: Int64) -> Bool {
        for id in ids { pending[id, default: 0] += 1 }
        return !flushing && !pending.isEmpty && now - lastFlush >= 1000
    }

    /// Writes what is pending; on failure it stays pending for the next flush.
    func flush(store: any Store, now: Int64) async {
        guard !flushing, !pending.isEmpty else { return }
        flushing = true
        let batch = pending
        pending = [:]
        do {
            try await store.write { tx in
                for (id, count) in batch.sorted(by: { $0.key < $1.key }) {
                    try tx.addInAppStat(campaignId: id, kind: InAppStatKind.placed.rawValue, item: "", count: count)
                }
            }
        } catch {
            for (id, count) in batch { pending[id, default: 0] += count }
        }
        lastFlush = now
        flushing = false
    }
}

/// The `smid` of a placement: `<campaign_id>.<16 hex>`, stable for the campaign and who it is placed for.
enum InAppSmid {
    static func make(campaignId: Int64, subject: String) -> String {
        "\(campaignId)." + Digest.sha256Hex("\(campaignId)\u{0}\(subject)").prefix(16)
    }

    /// The campaign id an smid names, nil when it is not an smid.
    static func campaignId(of smid: String) -> Int64? {
        guard let dot = smid.firstIndex(of: ".") else { return nil }
        return Int64(smid[..<dot])
    }
}
