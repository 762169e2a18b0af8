import Foundation

/// `profile/tags/set`: adds or overwrites tags of the install's current binding — the push
/// subscription of the device's token in the profile the request names (the JWT's, or with an rToken
/// the profile holding the token). Keys not named keep their values.
public struct TagsSetRequest: Codable, Sendable, Equatable {
    /// The device's push provider; names the install.
    public var provider: String
    /// The device's push token.
    public var subscriptionId: String
    /// The tags to add or overwrite: key to value (see ``TagLimits``).
    public var tags: [String: String]

    /// A set-tags request.
    ///
    /// - Parameters:
    ///   - provider: The device's provider.
    ///   - subscriptionId: The device's token.
    ///   - tags: The tags.
    public init(provider: String, subscriptionId: String, tags: [String: String]) {
        self.provider = provider
        self.subscriptionId = subscriptionId
        self.tags = tags
    }

    enum CodingKeys: String, CodingKey {
        case provider, tags
        case subscriptionId = "subscription_id"
    }
}

/// `profile/tags/remove`: removes tags of the install's current binding by key; unknown keys are
/// ignored.
public struct TagsRemoveRequest: Codable, Sendable, Equatable {
    /// The device's push provider; names the install.
    public var provider: String
    /// The device's push token.
    public var subscriptionId: String
    /// The keys of the tags to remove.
    public var keys: [String]

    /// A remove-tags request.
    ///
    /// - Parameters:
    ///   - provider: The device's provider.
    ///   - subscriptionId: The device's token.
    ///   - keys: The keys to remove.
    public init(provider: String, subscriptionId: String, keys: [String]) {
        self.provider = provider
        self.subscriptionId = subscriptionId
        self.keys = keys
    }

    enum CodingKeys: String, CodingKey {
        case provider, keys
        case subscriptionId = "subscription_id"
    }
}

/// What both halves accept as tags; the SDK refuses anything else before queueing, the server
/// answers 400.
public enum TagLimits {
    /// Longest key, in characters (code points, counted by ``TextLength``).
    public static let maxKeyBytes = 128
    /// Longest value, in characters (code points, counted by ``TextLength``).
    public static let maxValueBytes = 1024
    /// Most tags (or keys) in one request.
    public static let maxPerRequest = 100
    /// Most tags one binding keeps.
    public static let maxPerBinding = 200

    /// Why `key` cannot be a tag key, nil when it can.
    public static func problem(key: String) -> String? {
        if key.isEmpty { return "a tag key is empty: name each tag (e.g. \"interest\")" }
        if !TextLength.fits(key, max: maxKeyBytes) {
            return "tag key \"\(key.prefix(32))…\" is longer than \(maxKeyBytes) characters"
        }
        if key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "tag key \"\(key.prefix(32))\" contains a control character"
        }
        return nil
    }

    /// Why `value` cannot be the value of tag `key`, nil when it can.
    public static func problem(key: String, value: String) -> String? {
        if !TextLength.fits(value, max: maxValueBytes) {
            return "the value of tag \"\(key.prefix(32))\" is longer than \(maxValueBytes) characters"
        }
        return nil
    }

    /// Why a request with `count` tags (or keys) is refused, nil when it is not.
    public static func problem(count: Int, field: String) -> String? {
        if count == 0 { return "\(field) is empty: send at least one" }
        if count > maxPerRequest { return "\(field) has \(count) entries: send at most \(maxPerRequest) at once" }
        return nil
    }
}
