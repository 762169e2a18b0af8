import Foundation

/// A person's preferences: channel → category → whether they take it. A category never set is on;
/// `transactional` is always on.
public typealias PreferenceMap = [String: [String: Bool]]

/// `profile/preferences/set`: sets these (channel, category) switches of the signed-in person;
/// switches not named keep their values.
public struct PreferencesSetRequest: Codable, Sendable, Equatable {
    /// Channel → category → on/off.
    public var preferences: PreferenceMap

    /// A request setting `preferences`.
    public init(preferences: PreferenceMap) { self.preferences = preferences }
}

/// The answer to `profile/preferences/get`: every switch the person set.
public struct PreferencesAnswer: Codable, Sendable, Equatable {
    /// Channel → category → on/off, as set.
    public var preferences: PreferenceMap

    /// An answer.
    public init(preferences: PreferenceMap) { self.preferences = preferences }
}

/// `profile/topics/follow` and `profile/topics/unfollow`: a topic of the caller's project.
public struct TopicRequest: Codable, Sendable, Equatable {
    /// The topic's name: letters, digits, `_`, `-` and `.`, up to 64 bytes.
    public var topic: String

    /// A request about `topic`.
    public init(topic: String) { self.topic = topic }
}

/// What both halves accept as preferences and topics; the SDK refuses anything else before
/// queueing, the server answers 400 naming the field.
public enum PreferenceRules {
    /// The channels a preference is about.
    public static let channels = ["email", "sms", "whatsapp", "push"]
    /// The category that is always on.
    public static let transactional = "transactional"
    /// Longest category name, in bytes.
    public static let maxCategoryBytes = 64
    /// Longest topic name, in bytes.
    public static let maxTopicBytes = 64
    /// Most switches in one request.
    public static let maxSwitches = 200

    /// Why `preferences` cannot be set, naming the field; nil when it can.
    public static func problem(_ preferences: PreferenceMap) -> String? {
        var count = 0
        for channel in preferences.keys.sorted() {
            guard channels.contains(channel) else {
                return
                    "preferences.\(channel.prefix(32)): unknown channel; use one of \(channels.joined(separator: ", "))"
            }
            for (category, on) in (preferences[channel] ?? [:]).sorted(by: { $0.key < $1.key }) {
                count += 1
                if let problem = problem(category: category) { return "preferences.\(channel).\(problem)" }
                if category == transactional, !on {
                    return "preferences.\(channel).transactional: transactional is always on and cannot be turned off"
                }
            }
        }
        if count > maxSwitches { return "preferences: \(count) switches, at most \(maxSwitches) in one request" }
        return nil
    }

    /// Why `category` cannot name a category (prefixed with the name), nil when it can.
    public static func problem(category: String) -> String? {
        if category.isEmpty { return "(empty): a category name is empty" }
        if category.utf8.count > maxCategoryBytes {
            return "\(category.prefix(32))…: category names are at most \(maxCategoryBytes) bytes"
        }
        if !isName(category) {
            return "\(category.prefix(32)): category names take letters, digits, _ and - only"
        }
        return nil
    }

    /// Why `topic` cannot name a topic, nil when it can.
    public static func problem(topic: String) -> String? {
        if topic.isEmpty { return "topic is empty: name a topic (e.g. release-notes)" }
        if topic.utf8.count > maxTopicBytes { return "topic is longer than \(maxTopicBytes) bytes" }
        if !isName(topic, dots: true) { return "topic takes letters, digits, _, - and . only" }
        return nil
    }

    /// True when `category` is on in `preferences` for `channel`: unset is on, transactional always is.
    public static func isOn(_ preferences: PreferenceMap, channel: String, category: String) -> Bool {
        category == transactional || preferences[channel]?[category] != false
    }

    static func isName(_ text: String, dots: Bool = false) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_", "-": true
            case ".": dots
            default: false
            }
        }
    }
}
