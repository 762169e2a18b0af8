import Foundation

/// The limits every JSON body meets, whatever its route: the one table the decoder checks and the
/// API document (docs/api/openapi.yaml, "Limits") lists. They are checked by `JSONLimitScanner`
/// in one pass over the bytes, before anything is decoded, so a body built to be expensive
/// (70,000 keys, deep nesting) costs a scan and a 400, not the decoder's time.
///
/// ```swift
/// try JSONLimitScanner(limits: .standard).check(body)   // 400 "… has 70000 members; at most 256 …"
/// ```
public struct BodyLimits: Sendable, Equatable {
    /// Bytes of the whole body; larger ones are answered 413. (The HTTP server's own cap,
    /// `--max-body-bytes`, is the ceiling for every route.)
    var maxBodyBytes: Int
    /// Objects and arrays nested inside each other, the body itself being level 1.
    var maxDepth: Int
    /// Members of one object (`custom_fields`, `profile_fields`, `data`, tags …).
    var maxObjectMembers: Int
    /// Items of one array (`events`, `profile_ids`, `cats` …).
    var maxArrayItems: Int
    /// Characters (Unicode code points, after unescaping) of one object key; code points, because
    /// JSON Schema's `maxLength` counts them, so the API document can state the limit exactly.
    var maxKeyCharacters: Int
    /// Characters (code points, after unescaping) of one string value.
    var maxStringCharacters: Int
    /// Values in the whole body (objects, arrays and scalars): what the decoder's time grows with.
    var maxValues: Int

    /// Checks `body` against these limits (and its JSON syntax, and NUL) without decoding it.
    /// - Throws: `APIError` 400 naming the field and the limit.
    public func check(_ body: Data) throws(APIError) {
        try JSONLimitScanner(limits: self).check(body)
    }

    /// What the server enforces on every body but the event batches. Keep docs/api/openapi.yaml's
    /// "Limits" in step.
    public static let standard = BodyLimits(
        maxBodyBytes: 64 << 10, maxDepth: 8, maxObjectMembers: 256, maxArrayItems: 1000, maxKeyCharacters: 256,
        maxStringCharacters: 65_536,
        maxValues: 2_000)

    /// A bulk write of the management API (`devices/import`, `profiles/update`): up to `items`
    /// entries in its one list, in up to 1 MiB, and as many values as 1 MiB of entries with many
    /// short members holds (a tag `"k":"",` is 7 bytes), so that a file split by size alone (`tern
    /// import`, the dashboard) always fits. The scan refuses a longer list before it is decoded,
    /// naming it and the limit.
    static func bulk(items: Int) -> BodyLimits {
        var limits = BodyLimits.standard
        limits.maxBodyBytes = 1 << 20
        limits.maxValues = 150_000
        limits.maxArrayItems = items
        return limits
    }

    /// `event/push` and `event/post`: up to 1,000 events of a few fields each, in up to 1 MiB.
    static let eventBatch: BodyLimits = {
        var limits = BodyLimits.standard
        limits.maxBodyBytes = 1 << 20
        limits.maxValues = 10_000
        return limits
    }()
}
