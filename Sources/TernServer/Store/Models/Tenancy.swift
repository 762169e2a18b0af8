import Foundation
import TernProtocol

/// A project: the unit that owns profile databases, resources, pixels and JWT keys.
public struct Project: Codable, Sendable, Equatable {
    public var id: Int64
    var name: String
    /// The `aud` a JWT for this project must carry (default `tern:<id>`).
    var audience: String
    var createdAt: Int64
    /// How many messages a person gets at most (``FrequencyCap``); nil: no limit.
    var frequencyCap: FrequencyCap? = nil

    enum CodingKeys: String, CodingKey {
        case id, name, audience
        case createdAt = "created_at"
        case frequencyCap = "frequency_cap"
    }
}

/// A project's frequency cap: a person gets at most `pushes` of its messages in any `hours`,
/// counted at each message's send time; a message sent with `ignore_frequency_cap` (a receipt, a
/// password reset) goes anyway and counts.
public struct FrequencyCap: Codable, Sendable, Equatable {
    /// The caps a project can have.
    static let pushesRange = 1...100
    static let hoursRange = 1...720

    /// Messages a person gets at most in the window.
    public var pushes: Int
    /// The window's length, in hours (up to 30 days).
    public var hours: Int

    /// A cap of `pushes` messages in `hours`.
    public init(pushes: Int, hours: Int) {
        self.pushes = pushes
        self.hours = hours
    }

    /// The window's length in milliseconds.
    var window: Int64 { Int64(hours) * 3_600_000 }

    /// The longest window, beyond which no row is read again.
    static var longestWindow: Int64 { Int64(hoursRange.upperBound) * 3_600_000 }
}

/// A profile database of a project: profiles live in exactly one.
public struct ProfileDatabase: Codable, Sendable, Equatable {
    public var id: Int64
    var projectId: Int64
    var name: String
    var createdAt: Int64

    enum CodingKeys: String, CodingKey {
        case id, name
        case projectId = "project_id"
        case createdAt = "created_at"
    }
}

/// A resource: where subscriptions point (e.g. an app's push channel). Its rToken names it in
/// anonymous requests; its profile database is where rToken-only requests keep their profiles.
public struct Resource: Codable, Sendable, Equatable {
    public var id: Int64
    var projectId: Int64
    /// The profile database where its rToken-only requests keep their profiles.
    public var dbId: Int64
    var name: String
    /// Channels its subscriptions may have, e.g. `[.push]`.
    var channels: [SubscriptionChannel]
    var rToken: String
    var createdAt: Int64

    var isPush: Bool { channels.contains(.push) }

    enum CodingKeys: String, CodingKey {
        case id, name, channels
        case projectId = "project_id"
        case dbId = "db_id"
        case rToken = "rtoken"
        case createdAt = "created_at"
    }
}

/// A subscription category of a resource.
public struct ResourceCategory: Codable, Sendable, Equatable {
    var resourceId: Int64
    var name: String
    var title: String
    var steady: Bool

    /// A category.
    ///
    /// - Parameters:
    ///   - resourceId: The resource it belongs to.
    ///   - name: Its name, as messages and subscriptions name it.
    ///   - title: What the app shows for it.
    ///   - steady: The `steady` flag the SDK gets with the category and its title (the app decides what it
    ///     means).
    public init(resourceId: Int64, name: String, title: String, steady: Bool) {
        self.resourceId = resourceId
        self.name = name
        self.title = title
        self.steady = steady
    }

    enum CodingKeys: String, CodingKey {
        case name, title, steady
        case resourceId = "resource_id"
    }
}

/// A pixel: goals name it by `sid`.
public struct Pixel: Codable, Sendable, Equatable {
    public var id: Int64
    var projectId: Int64
    var sid: String
    var name: String
    var createdAt: Int64

    enum CodingKeys: String, CodingKey {
        case id, sid, name
        case projectId = "project_id"
        case createdAt = "created_at"
    }
}

/// A key the project's JWTs are verified with, picked by the token header's `kid`. The API shows
/// it as a `JWTKeyView` (never an HS256 secret).
public struct JWTKeyRecord: Sendable, Equatable {
    public var id: Int64
    var projectId: Int64
    var kid: String
    /// `ES256`, `RS256`, `PS256` or `HS256`.
    var algorithm: String
    /// A PEM public key, or for HS256 the shared secret.
    var key: String
    var createdAt: Int64
}
