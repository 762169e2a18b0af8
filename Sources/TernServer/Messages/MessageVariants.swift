import Foundation
import Synchronization
import TernProtocol

extension MessageRequest {
    /// One version of an A/B-tested message: the fields it sets replace the message's own, the rest
    /// are the message's. Each device of the audience gets one version, chosen by its subscription
    /// (a hash of its id and the message's into 100 buckets), so the split holds across chunks,
    /// nodes and restarts without any state.
    public struct Variant: Codable, Sendable, Equatable {
        /// This version's share of the audience, 1 to 99; give it for every version or for none
        /// (then they split evenly).
        public var percent: Int?
        /// Replaces the message's title.
        public var title: String?
        /// Replaces the message's subtitle.
        public var subtitle: String?
        /// Replaces the message's body.
        public var body: String?
        /// Replaces the message's media.
        public var mediaURL: String?
        /// Replaces the message's click URL.
        public var clickURL: String?
        /// Replaces the message's buttons.
        public var buttons: [Button]?
        /// Replaces the message's custom data.
        public var data: [String: JSONValue]?

        /// A version with the message's own content, to replace field by field.
        ///
        /// - Parameters:
        ///   - percent: Its share of the audience; nil for an even split.
        ///   - title: Its title in place of the message's; nil keeps the message's.
        ///   - body: Its body in place of the message's; nil keeps the message's.
        public init(percent: Int? = nil, title: String? = nil, body: String? = nil) {
            self.percent = percent
            self.title = title
            self.body = body
        }

        /// The fields a version has, as the API names them.
        public static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case percent, title, subtitle, body, buttons, data
            case mediaURL = "media_url"
            case clickURL = "click_url"
        }
    }

    /// The request as the devices of `variant` get it: its fields in place of the message's.
    func applying(_ variant: Variant) -> MessageRequest {
        var request = self
        request.variants = nil
        if let title = variant.title { request.title = title }
        if let subtitle = variant.subtitle { request.subtitle = subtitle }
        if let body = variant.body { request.body = body }
        if let mediaURL = variant.mediaURL { request.mediaURL = mediaURL }
        if let clickURL = variant.clickURL { request.clickURL = clickURL }
        if let buttons = variant.buttons { request.buttons = buttons }
        if let data = variant.data { request.data = data }
        return request
    }

    /// The request the devices of version `index` get (``StoredMessage/variant(subscriptionId:)``);
    /// the message's own for nil.
    func version(_ index: Int?) -> MessageRequest {
        guard let index, let variants, variants.indices.contains(index) else { return self }
        return applying(variants[index])
    }
}

/// An A/B test's versions: how the audience splits among them, and which one a device gets.
///
/// A device's version comes from its subscription's id and the message's through a multiplicative
/// hash into one of 100 buckets; each version owns a run of buckets as wide as its percent. The
/// same arithmetic runs in SQL for the stats (``bucketSQL``), so the counts per version are read
/// from the deliveries without a column of their own.
enum MessageVariants {
    /// How many versions a message may have.
    static let allowed = 2...10
    /// The letter of each version, in the push ids (`m_3fa2.b.17`) and the stats.
    static let letters = Array("abcdefghij").map(String.init)

    /// The versions' shares as runs of the 100 buckets; with a test of part of the audience, of its
    /// first `sample` buckets (the rest are held back for the winner).
    struct Split: Sendable, Equatable {
        /// Each version's share, in percent; they sum to 100.
        var percents: [Int]
        /// The share of the audience tested; nil: all of it.
        var sample: Int? = nil

        /// The version of a bucket (0 to 99); a tested bucket's place among the tested ones.
        func index(bucket: Int) -> Int {
            let bucket = sample.map { bucket * 100 / max($0, 1) } ?? bucket
            var upper = 0
            for (index, percent) in percents.enumerated() {
                upper += percent
                if bucket < upper { return index }
            }
            return percents.count - 1
        }

        /// The version of the device of subscription `subscriptionId`.
        func index(subscriptionId: Int64, messageId: Int64) -> Int {
            index(bucket: MessageVariants.bucket(subscriptionId: subscriptionId, messageId: messageId))
        }
    }

    /// The shares of `variants`: as given, or even (the first ones a percent more when 100 does not
    /// divide).
    static func split(_ variants: [MessageRequest.Variant], sample: Int? = nil) -> Split {
        let given = variants.compactMap(\.percent)
        if given.count == variants.count { return Split(percents: given, sample: sample) }
        let count = max(variants.count, 1)
        return Split(percents: (0..<count).map { 100 / count + ($0 < 100 % count ? 1 : 0) }, sample: sample)
    }

    /// Whether the device of `subscriptionId` is in the tested share of message `messageId`'s
    /// audience (the rest wait for the winner).
    static func isTested(subscriptionId: Int64, messageId: Int64, sample: Int) -> Bool {
        bucket(subscriptionId: subscriptionId, messageId: messageId) < sample
    }

    static let modulus: Int64 = 1 << 31
    /// About 2³¹ divided by the golden ratio, odd: consecutive keys land far apart (Knuth's
    /// multiplicative hashing), so an audience of every n-th subscription still splits evenly.
    static let multiplier: Int64 = 1_327_217_885
    /// Moves each message's buckets, so that a device is not in the same version of every test.
    static let messageStride: Int64 = 40_503

    /// The message's part of a device's key, computed here for SQL too.
    static func offset(messageId: Int64) -> Int64 { (messageId % modulus) * messageStride % modulus }

    /// A device's bucket, 0 to 99. Every product stays under 2⁶², so SQL's 64-bit integers compute
    /// the same.
    static func bucket(subscriptionId: Int64, messageId: Int64) -> Int {
        let key = (subscriptionId % modulus + offset(messageId: messageId)) % modulus
        return Int(key * multiplier % modulus * 100 / modulus)
    }

    /// ``bucket(subscriptionId:messageId:)`` in SQL (SQLite's and PostgreSQL's integer arithmetic),
    /// of the column `subscription_id`; binds the message's ``offset(messageId:)``.
    static var bucketSQL: String { bucketSQL(subscription: "subscription_id", offset: "?") }

    /// ``bucketSQL`` of the expressions given: a subscription's id, and the message's offset.
    static func bucketSQL(subscription: String, offset: String) -> String {
        "((((\(subscription) % \(modulus)) + \(offset)) % \(modulus)) * \(multiplier) % \(modulus) * 100 / \(modulus))"
    }

    /// SQL true when the letter bound (twice; null for none) is the version of the delivery `d` of
    /// the message `m` (``StoredMessage/variantLetters``), so a report names its delivery's version
    /// or, for a message of one version, none. An A/B test made before the letters were kept takes
    /// any letter.
    static var letterMatchesSQL: String {
        let offset = "((m.id % \(modulus)) * \(messageStride) % \(modulus))"
        return """
            (CASE WHEN m.variant_letters IS NULL THEN (CAST(? AS TEXT) IS NULL) = (m.variant_payloads IS NULL)
            ELSE substr(
                m.variant_letters, CAST(\(bucketSQL(subscription: "d.subscription_id", offset: offset)) + 1 AS INTEGER), 1)
                = CAST(? AS TEXT) END)
            """
    }

    /// A version as a refusal names it: `variants[1] (b)`.
    static func name(_ index: Int) -> String { "variants[\(index)] (\(letters[index]))" }

    /// The push id's part that names the version: `.b` (nothing without versions).
    static func pushIdPart(_ index: Int?) -> String { index.map { "." + letters[$0] } ?? "" }

    /// Each version's figures: its deliveries (`targeted`, counted from them unless given) and its
    /// devices' reports, by the version their push ids carry.
    static func figures(_ tx: any StoreTransaction, _ message: StoredMessage, targeted: [Int64]? = nil) throws
        -> [VariantFigures]
    {
        guard !message.variants.isEmpty else { return [] }
        let targets = try targeted ?? tx.variantTargets(message)
        return try message.variants.indices.map { index in
            let prefix = message.publicId + pushIdPart(index) + "."
            let reports = try tx.pushEventCounts(messageIdPrefix: prefix)
            return VariantFigures(
                targeted: targets.indices.contains(index) ? targets[index] : 0, delivered: reports[.delivery] ?? 0,
                opened: reports[.open] ?? 0, converted: try tx.conversions(messageIdPrefix: prefix, eventName: nil))
        }
    }

    /// Checks the versions of an alert push: 2 to 10, every share or none given, and shares that
    /// sum to 100. Each version's content is checked by ``MessagePlan`` as a message of its own.
    static func check(_ request: MessageRequest, background: Bool) throws(APIError) {
        guard let variants = request.variants else { return }
        guard allowed.contains(variants.count) else {
            throw .badRequest(
                "variants must list \(allowed.lowerBound) to \(allowed.upperBound) versions, not \(variants.count) "
                    + "(leave it out to send one version)")
        }
        guard !background else {
            throw .badRequest(
                "variants are for alert pushes: a background push shows nothing to compare and reports no opens")
        }
        let given = variants.compactMap(\.percent)
        guard given.isEmpty || given.count == variants.count else {
            throw .badRequest("give percent for every variant or for none (then they split evenly)")
        }
        for (index, percent) in given.enumerated() where !(1...99).contains(percent) {
            throw .badRequest("variants[\(index)].percent must be 1 to 99, not \(percent)")
        }
        let sum = given.reduce(0, +)
        guard given.isEmpty || sum == 100 else {
            throw .badRequest("the variants' percents must add up to 100, not \(sum)")
        }
    }

    /// The longest wait before the server picks a test's winner: 30 days.
    static let maxWinnerAfterMinutes = 43_200

    /// `test_audience_percent` goes with variants, 1 to 99; `winner_after_minutes` with it.
    static func checkSample(_ request: MessageRequest) throws(APIError) {
        if let metric = request.winnerBy {
            guard request.winnerAfterMinutes != nil else {
                throw .badRequest("winner_by goes with winner_after_minutes: it is how the server picks the winner")
            }
            guard WinnerMetric(rawValue: metric) != nil else {
                throw .badRequest("winner_by must be opens or conversions, not \(metric.prefix(32))")
            }
        }
        if let goal = request.winnerGoal {
            guard request.winnerBy == WinnerMetric.conversions.rawValue else {
                throw .badRequest("winner_goal goes with winner_by conversions: the goal whose conversions count")
            }
            try Validation.text(goal, field: "winner_goal")
        }
        if let minutes = request.winnerAfterMinutes {
            guard request.testAudiencePercent != nil, request.test != true else {
                throw .badRequest(
                    "winner_after_minutes goes with test_audience_percent: the winner goes to the share of the "
                        + "audience the test held back")
            }
            guard (1...maxWinnerAfterMinutes).contains(minutes) else {
                throw .badRequest(
                    "winner_after_minutes must be 1 to \(maxWinnerAfterMinutes) (30 days), not \(minutes) (leave it "
                        + "out to pick the winner yourself)")
            }
        }
        guard let sample = request.testAudiencePercent else { return }
        guard request.variants != nil else {
            throw .badRequest(
                "test_audience_percent goes with variants: it is the share of the audience an A/B test goes to first")
        }
        guard (1...99).contains(sample) else {
            throw .badRequest(
                "test_audience_percent must be 1 to 99, not \(sample) (leave it out to test on the whole audience)")
        }
    }
}

/// A version's payload as the outbox keeps it.
struct VariantPayload: Codable, Sendable, Equatable {
    /// The version's share of the audience.
    var percent: Int
    /// The payload up to the push id, and after it (``PushPayloadBuilder/Template``).
    var prefix: Data
    var suffix: Data

    /// The versions of a stored message and the share of its audience tested, as their column keeps
    /// them.
    struct Stored: Codable, Sendable, Equatable {
        var versions: [VariantPayload]
        var sample: Int?
    }

    /// The versions of a stored message, from their column; empty for none.
    static func decode(_ data: Data?, messageId: String) throws -> Stored {
        guard let data, !data.isEmpty else { return Stored(versions: []) }
        do {
            return try JSONCoders.decoder.decode(Stored.self, from: data)
        } catch {
            throw StoreError.backend("message \(messageId) has unreadable variants: \(error)")
        }
    }

    /// The column's value for `variants`; nil for none.
    static func encode(_ variants: [VariantPayload], sample: Int?) throws -> Data? {
        variants.isEmpty ? nil : try JSONCoders.encoder.encode(Stored(versions: variants, sample: sample))
    }
}

/// One version's figures in an A/B test's stats, as kept once the message's rows per device go
/// (``MessageHistory/variants``).
public struct VariantFigures: Codable, Sendable, Equatable {
    /// Its devices (one delivery each).
    public var targeted: Int64
    /// Its devices whose extension reported the push; nil until counted.
    public var delivered: Int64?
    /// Its devices that opened it; nil until counted.
    public var opened: Int64?
    /// Its devices that opened it and reached a goal naming the push; nil until counted (and in
    /// figures kept before conversions were counted).
    public var converted: Int64?

    /// Figures of `targeted` devices, their reports not counted yet.
    public init(targeted: Int64, delivered: Int64? = nil, opened: Int64? = nil, converted: Int64? = nil) {
        self.targeted = targeted
        self.delivered = delivered
        self.opened = opened
        self.converted = converted
    }
}

/// Each finished A/B test's deliveries per version, kept once counted: they no longer change once
/// its fan-out is done, and counting them scans the message's deliveries (a third of a second for
/// a million on SQLite), which the dashboard's message page asks for every two seconds.
final class VariantTargetCache: Sendable {
    private let counted = Mutex<[Int64: [Int64]]>([:])
    /// Messages kept at most; past it the cache starts again.
    static let capacity = 1_000

    /// The message's counts, counted now unless kept; kept only once its fan-out is done.
    func targets(_ message: StoredMessage, count: () throws -> [Int64]) rethrows -> [Int64] {
        if let kept = counted.withLock({ $0[message.id] }) { return kept }
        let targets = try count()
        if message.fanOutDone {
            counted.withLock { kept in
                if kept.count >= Self.capacity { kept.removeAll() }
                kept[message.id] = targets
            }
        }
        return targets
    }
}
