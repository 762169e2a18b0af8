import Foundation
import Synchronization
import TernCore
import TernCrypto
import TernSDKTestKit
import TernTestSupport

/// The kit's ``RealServer`` (an ES256 key registered through the admin API, so the test signs JWTs
/// the server accepts) with a second profile database beside the bootstrap one.
struct JWTServer {
    let server: RealServer
    /// The bootstrap database (#1Anonymous in the reference's example).
    let anonymousDatabase: Int64
    /// A database made through the admin API (#2Registered).
    let registeredDatabase: Int64

    var process: ServerProcess { server.process }

    static func start() async throws -> JWTServer {
        let server = try await RealServer.start()
        return JWTServer(
            server: server, anonymousDatabase: Int64(server.databaseId),
            registeredDatabase: try await server.database("registered"))
    }

    /// A JWT valid for an hour whose `matching` claim is `matching` in database `db`.
    func jwt(db: Int64, matching: [String: Any]) throws -> String {
        try server.jwt(db: db, matching: matching)
    }

    /// The push subscriptions with this APNs token on the bootstrap resource: profile id → status.
    func statuses(token: String) async throws -> [String: String] {
        try await server.statuses(token: token)
    }
}

/// The app's JWT store: the token the app's backend gave it last (the reference's `JWTManager`).
final class JWTManager: JWTInterface {
    private let current = Mutex<String?>(nil)

    func set(_ token: String?) {
        current.withLock { $0 = token }
    }

    func getToken() -> String? {
        current.withLock { $0 }
    }
}
