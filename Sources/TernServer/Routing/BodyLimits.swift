import Foundation

/// The limits every JSON body meets, whatever its route: the one table the decoder checks and the
/// API document (docs/api/openapi.yaml, "Limits") lists. They are checked by ``JSONLimitScanner``
/// in one pass over the bytes, before anything is decoded, so a body built to be expensive
/// (70,000 keys, deep nesting) costs a scan and a 400, not the decoder's time.
///
/// ```swift
/// try JSONLimitScanner(limits: .standard).check(body)   // 400 "… has 70000 members; at most 256 …"
/// ```
public struct BodyLimits: Sendable, Equatable {
    /// Objects and arrays nested inside each other, the body itself being level 1.
    public var maxDepth: Int
    /// Members of one object (`custom_fields`, `profile_fields`, `data`, tags …).
    public var maxObjectMembers: Int
    /// Items of one array (`events`, `profile_ids`, `cats` …).
    public var maxArrayItems: Int
    /// Bytes of one object key (UTF-8, after unescaping).
    public var maxKeyBytes: Int
    /// Bytes of one string value (UTF-8, after unescaping).
    public var maxStringBytes: Int

    public init(maxDepth: Int, maxObjectMembers: Int, maxArrayItems: Int, maxKeyBytes: Int, maxStringBytes: Int) {
        self.maxDepth = maxDepth
        self.maxObjectMembers = maxObjectMembers
        self.maxArrayItems = maxArrayItems
        self.maxKeyBytes = maxKeyBytes
        self.maxStringBytes = maxStringBytes
    }

    /// What the server enforces on every body. Keep docs/api/openapi.yaml's "Limits" in step.
    public static let standard = BodyLimits(
        maxDepth: 8, maxObjectMembers: 256, maxArrayItems: 1000, maxKeyBytes: 256, maxStringBytes: 65_536)
}
