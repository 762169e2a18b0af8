import Foundation
import TernProtocol

/// A project's APNs broadcast channel, as kept.
public struct StoredLiveActivityChannel: Sendable, Equatable {
    /// The project whose app the channel belongs to.
    public var projectId: Int64
    /// The APNs environment it lives in: only that environment's devices can subscribe.
    public var apnsEnvironment: APNsEnvironment
    /// The project's name for it.
    public var name: String
    /// The id APNs made (`apns-channel-id`), base64.
    public var channelId: String
    /// `none` or `most_recent` (APNs' `message-storage-policy`).
    public var storage: String
    /// When it was made, in ms since 1970.
    public var createdAt: Int64
    /// Broadcasts APNs accepted on it.
    public var broadcasts: Int64 = 0
    /// The last broadcast's event (`update`, `end`).
    public var lastEvent: String?
    /// When the last broadcast went, in ms since 1970.
    public var lastBroadcastAt: Int64?
}

/// The broadcast channels of a project's Live Activities, by environment and name.
public protocol LiveActivityChannelQueries {
    /// Keeps a channel APNs made; false when the project has one of that name in that environment.
    func insertLiveActivityChannel(_ channel: StoredLiveActivityChannel) throws -> Bool
    /// The project's channels, by environment and name.
    func liveActivityChannels(projectId: Int64) throws -> [StoredLiveActivityChannel]
    /// The project's channel of `name` in `environment`, if it has one.
    func liveActivityChannel(projectId: Int64, environment: APNsEnvironment, name: String) throws
        -> StoredLiveActivityChannel?
    /// Forgets the channel; false when there was none.
    func deleteLiveActivityChannel(projectId: Int64, environment: APNsEnvironment, name: String) throws -> Bool
    /// Counts a broadcast that APNs accepted on the channel.
    func recordLiveActivityBroadcast(
        projectId: Int64, environment: APNsEnvironment, name: String, event: String, at: Int64) throws
}
