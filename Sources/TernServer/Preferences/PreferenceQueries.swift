import Foundation
import TernProtocol

/// Preferences (profile → channel → category → on/off) and topics (per project) in the store.
public protocol PreferenceQueries {
    /// Every switch the profile set.
    func preferences(profileId: Int64) throws -> PreferenceMap
    /// Sets these switches; others keep their values.
    func setPreferences(profileId: Int64, _ preferences: PreferenceMap, now: Int64) throws
    /// Of `profileIds`, those that turned `category` off on `channel`.
    func profilesWithPreferenceOff(channel: String, category: String, profileIds: [Int64]) throws -> Set<Int64>
    /// The topic's id, made when `create` (nil when it does not exist and `create` is false).
    func topicId(projectId: Int64, name: String, create: Bool, now: Int64) throws -> Int64?
    /// Adds the profile to the topic (nothing when it follows already); true when added.
    func follow(topicId: Int64, profileId: Int64, now: Int64) throws -> Bool
    /// Removes the profile from the topic; true when it followed.
    func unfollow(topicId: Int64, profileId: Int64) throws -> Bool
    /// The project's topics with their follower counts, by name.
    func topics(projectId: Int64) throws -> [TopicSummary]
    /// Profile ids following the topic after `afterProfileId`, in id order.
    func followers(topicId: Int64, afterProfileId: Int64, limit: Int) throws -> [Int64]
    /// Adds to the devices a message skipped because of a preference.
    func addSkippedByPreference(messageId: Int64, count: Int) throws
    /// The devices a message skipped because of a preference.
    func skippedByPreference(messageId: Int64) throws -> Int64
}

/// A topic and how many follow it.
public struct TopicSummary: Codable, Sendable, Equatable {
    var name: String
    var followers: Int64
    var createdAt: Int64

    enum CodingKeys: String, CodingKey {
        case name, followers
        case createdAt = "created_at"
    }
}
