import Foundation

/// Everything `tern serve` can be told; the defaults run.
public struct ServerConfiguration: Sendable, Equatable {
    var host = "127.0.0.1"
    /// 0 picks a free port.
    var port = 8080
    /// Where the SQLite file and `bootstrap.json` live.
    var dataDirectory = "./.tern"
    /// The HTTP server's event-loop threads (handlers run as tasks, not on them).
    var threads = 4
    var maxBodyBytes = 1 << 20
    var maxHeaderBytes = 16 << 10
    var connectionTimeoutSeconds = 30
    /// A request's head must be complete this many seconds after the connection opened or the
    /// previous answer went out, however slowly it trickles in (0: none).
    var headTimeoutSeconds = 30
    /// `--body-timeout`: a request's body must be complete this long after its head.
    var bodyTimeoutSeconds = 60
    var maxConnections = 4096
    /// Connections at once from one client address (0: no cap).
    var maxConnectionsPerAddress = 256
    /// The lowest level the log writes (`--log-level`); ``Logger/Level/info`` by default.
    public var logLevel: Logger.Level = .info
    /// Adds `/bench/constant`, which answers `{"error":0}` without touching the store (the HTTP ceiling).
    var benchRoutes = false
    /// Where APNs, FCM and HMS are (the real services by default) and the CA file to trust for them.
    var providers = ProviderEndpoints()
    /// The sending engine: batch size, batches in flight, lease (`--delivery-*`).
    var delivery = DeliveryEngine.Options()
    /// Days after which a finished message's deliveries and the devices' reports are removed
    /// (``DeliveryRetention``); nil keeps them.
    var deliveryRetentionDays: Int?
    /// A `postgresql://` URL: the store is that PostgreSQL, shared by every node pointed at it. Nil: the
    /// SQLite file under the data directory.
    var databaseURL: String?
    /// Connections each node keeps to PostgreSQL.
    var databasePoolSize = 8
    /// How concurrent writes share a transaction (`--write-batch`, `--write-batch-wait-ms`).
    var groupCommit = GroupCommitConfiguration()

    init() {}

    /// The SQLite file inside the data directory.
    var databasePath: String { (dataDirectory as NSString).appendingPathComponent("tern.sqlite") }

    /// `DIR/credentials`: the projects' provider credentials, one file each, mode 0600.
    var credentialsDirectory: String { (dataDirectory as NSString).appendingPathComponent("credentials") }

    /// Where `bootstrap.json` is: `bootstrap.json` in the data directory.
    public var bootstrapPath: String { (dataDirectory as NSString).appendingPathComponent("bootstrap.json") }

    /// The SDK's base URL for a server on `port`.
    func apiURL(port: Int) -> String { "http://\(host):\(port)/api/v1" }
}
