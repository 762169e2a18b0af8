import Foundation

/// `tern serve`'s options: each a flag and an environment variable; a flag wins over the environment.
public enum ServerOptions {
    struct Option: Sendable {
        let flag: String
        let environment: String
        let argument: String?
        let help: String
        let apply: @Sendable (inout ServerConfiguration, String) throws(ConfigurationError) -> Void
    }

    static let options: [Option] = [
        Option(
            flag: "--host", environment: "TERN_HOST", argument: "HOST", help: "IPv4 address to listen on (127.0.0.1)"
        ) { config, value throws(ConfigurationError) in config.host = value },
        Option(flag: "--port", environment: "TERN_PORT", argument: "PORT", help: "TCP port, 0 picks a free one (8080)")
        {
            config, value throws(ConfigurationError) in config.port = try integer(value, "--port", 0...65535)
        },
        Option(
            flag: "--data", environment: "TERN_DATA", argument: "DIR",
            help: "data directory: SQLite file and bootstrap.json (./.tern)"
        ) {
            config, value throws(ConfigurationError) in config.dataDirectory = value
        },
        Option(
            flag: "--database", environment: "TERN_DATABASE_URL", argument: "URL",
            help: "postgresql://user:password@host:port/db?sslmode=verify-full: the store is that PostgreSQL, "
                + "which several nodes may share (default: SQLite under --data)"
        ) {
            config, value throws(ConfigurationError) in
            if value.isEmpty {
                config.databaseURL = nil
                return
            }
            guard value.hasPrefix("postgresql://") || value.hasPrefix("postgres://") else {
                throw ConfigurationError(
                    "--database must be a postgresql:// URL, not \(PostgresStore.redacted(value)); "
                        + "leave it out to use SQLite under --data")
            }
            config.databaseURL = value
        },
        Option(
            flag: "--database-pool", environment: "TERN_DATABASE_POOL", argument: "N",
            help: "connections this node keeps to PostgreSQL (8)"
        ) {
            config, value throws(ConfigurationError) in
            config.databasePoolSize = try integer(value, "--database-pool", 1...256)
        },
        Option(flag: "--threads", environment: "TERN_THREADS", argument: "N", help: "HTTP event-loop threads (4)") {
            config, value throws(ConfigurationError) in config.threads = try integer(value, "--threads", 1...256)
        },
        Option(
            flag: "--max-body-bytes", environment: "TERN_MAX_BODY_BYTES", argument: "BYTES",
            help: "larger request bodies get 413 (1048576)"
        ) {
            config, value throws(ConfigurationError) in
            config.maxBodyBytes = try integer(value, "--max-body-bytes", 1...(64 << 20))
        },
        Option(
            flag: "--max-header-bytes", environment: "TERN_MAX_HEADER_BYTES", argument: "BYTES",
            help: "larger request headers get 431 (16384)"
        ) {
            config, value throws(ConfigurationError) in
            config.maxHeaderBytes = try integer(value, "--max-header-bytes", 1024...(1 << 20))
        },
        Option(
            flag: "--connection-timeout", environment: "TERN_CONNECTION_TIMEOUT", argument: "SECONDS",
            help: "idle connections close after this (30)"
        ) {
            config, value throws(ConfigurationError) in
            config.connectionTimeoutSeconds = try integer(value, "--connection-timeout", 0...3600)
        },
        Option(
            flag: "--head-timeout", environment: "TERN_HEAD_TIMEOUT", argument: "SECONDS",
            help: "a request's head must be complete this long after the connection opened or the last answer, "
                + "however slowly it arrives; 0 for none (30)"
        ) {
            config, value throws(ConfigurationError) in
            config.headTimeoutSeconds = try integer(value, "--head-timeout", 0...3600)
        },
        Option(
            flag: "--body-timeout", environment: "TERN_BODY_TIMEOUT", argument: "SECONDS",
            help: "a request's body must be complete this long after its head, however slowly it arrives "
                + "(else 408); 0 for none (60)"
        ) {
            config, value throws(ConfigurationError) in
            config.bodyTimeoutSeconds = try integer(value, "--body-timeout", 0...3600)
        },
        Option(
            flag: "--max-connections", environment: "TERN_MAX_CONNECTIONS", argument: "N",
            help: "open connections at once; more are refused (4096)"
        ) {
            config, value throws(ConfigurationError) in
            config.maxConnections = try integer(value, "--max-connections", 1...1_000_000)
        },
        Option(
            flag: "--max-connections-per-address", environment: "TERN_MAX_CONNECTIONS_PER_ADDRESS", argument: "N",
            help: "open connections at once from one client address; 0 for no cap (256)"
        ) {
            config, value throws(ConfigurationError) in
            config.maxConnectionsPerAddress = try integer(value, "--max-connections-per-address", 0...1_000_000)
        },
        Option(
            flag: "--log-level", environment: "TERN_LOG_LEVEL", argument: "LEVEL",
            help: "debug, info, warn or error (info)"
        ) {
            config, value throws(ConfigurationError) in
            guard let level = Logger.Level(name: value) else {
                throw ConfigurationError("--log-level must be debug, info, warn or error, not \(value)")
            }
            config.logLevel = level
        },
        Option(
            flag: "--bench-routes", environment: "TERN_BENCH_ROUTES", argument: nil,
            help: "add /bench/constant, a route that never touches the store (off)"
        ) {
            config, value throws(ConfigurationError) in
            config.benchRoutes = !["0", "false", "no", ""].contains(value.lowercased())
        },
        providerURL(
            "--apns-production-url", "TERN_APNS_PRODUCTION_URL",
            "APNs production origin, for tokens of TestFlight, ad hoc and App Store builds (https://api.push.apple.com)"
        ) {
            $0.providers.apnsProduction = $1
        },
        providerURL(
            "--apns-sandbox-url", "TERN_APNS_SANDBOX_URL",
            "APNs sandbox origin, for tokens of development builds (https://api.sandbox.push.apple.com)"
        ) {
            $0.providers.apnsSandbox = $1
        },
        providerURL(
            "--apns-channels-production-url", "TERN_APNS_CHANNELS_PRODUCTION_URL",
            "APNs channel management origin, production (https://api-manage-broadcast.push.apple.com:2196)"
        ) {
            $0.providers.apnsChannelsProduction = $1
        },
        providerURL(
            "--apns-channels-sandbox-url", "TERN_APNS_CHANNELS_SANDBOX_URL",
            "APNs channel management origin, sandbox (https://api-manage-broadcast.sandbox.push.apple.com:2195)"
        ) {
            $0.providers.apnsChannelsSandbox = $1
        },
        providerURL("--fcm-url", "TERN_FCM_URL", "FCM HTTP v1 origin") { $0.providers.fcm = $1 },
        providerURL("--fcm-token-url", "TERN_FCM_TOKEN_URL", "FCM OAuth token URL (the service account's token_uri)") {
            $0.providers.fcmToken = $1
        },
        providerURL("--hms-url", "TERN_HMS_URL", "HMS Push Kit origin") { $0.providers.hms = $1 },
        providerURL("--hms-token-url", "TERN_HMS_TOKEN_URL", "HMS OAuth token URL") { $0.providers.hmsToken = $1 },
        Option(
            flag: "--provider-ca-file", environment: "TERN_PROVIDER_CA_FILE", argument: "FILE",
            help: "PEM CA file to trust for the providers instead of the system's"
        ) {
            config, value throws(ConfigurationError) in config.providers.caFile = value.isEmpty ? nil : value
        },
        Option(
            flag: "--provider-timeout", environment: "TERN_PROVIDER_TIMEOUT", argument: "SECONDS",
            help: "seconds for one request to APNs, FCM or HMS (10)"
        ) {
            config, value throws(ConfigurationError) in
            config.providers.requestTimeout = TimeInterval(try integer(value, "--provider-timeout", 1...300))
        },
        Option(
            flag: "--delivery-batch", environment: "TERN_DELIVERY_BATCH", argument: "N",
            help: "deliveries a sending worker claims at once (500)"
        ) {
            config, value throws(ConfigurationError) in
            config.delivery.batchSize = try integer(value, "--delivery-batch", 1...10_000)
        },
        Option(
            flag: "--delivery-concurrency", environment: "TERN_DELIVERY_CONCURRENCY", argument: "N",
            help: "batches being sent at the same time; with --delivery-batch, the pushes in flight to a "
                + "provider one round trip away (16)"
        ) {
            config, value throws(ConfigurationError) in
            config.delivery.concurrency = try integer(value, "--delivery-concurrency", 1...256)
        },
        Option(
            flag: "--delivery-lease", environment: "TERN_DELIVERY_LEASE", argument: "SECONDS",
            help: "how long a claimed delivery waits for its worker before another may send it; keep it above "
                + "--provider-timeout (120)"
        ) {
            config, value throws(ConfigurationError) in
            config.delivery.lease = TimeInterval(try integer(value, "--delivery-lease", 1...86_400))
        },
        Option(
            flag: "--delivery-retention-days", environment: "TERN_DELIVERY_RETENTION_DAYS", argument: "DAYS",
            help: "remove a message's deliveries and the devices' reports this many days after it was created, "
                + "once its sending is over; its stats keep their figures (0: keep them, the default)"
        ) {
            config, value throws(ConfigurationError) in
            let days = try integer(value, "--delivery-retention-days", 0...36_500)
            config.deliveryRetentionDays = days == 0 ? nil : days
        },
        Option(
            flag: "--write-batch", environment: "TERN_WRITE_BATCH", argument: "N",
            help: "at most this many writes share one transaction (256)"
        ) {
            config, value throws(ConfigurationError) in
            config.groupCommit.maxWrites = try integer(value, "--write-batch", 1...10_000)
        },
        Option(
            flag: "--write-batch-wait-ms", environment: "TERN_WRITE_BATCH_WAIT_MS", argument: "MS",
            help: "how long a write may wait for others to share its transaction (0: only those already waiting)"
        ) {
            config, value throws(ConfigurationError) in
            config.groupCommit.maxWait = .milliseconds(try integer(value, "--write-batch-wait-ms", 0...1_000))
        },
    ]

    /// The options as the command line declares them: the help and the parser both read this.
    static var spec: CommandSpec {
        let declared = options.map { option in
            let name = String(option.flag.dropFirst(2))
            let help = option.help + "  [\(option.environment)]"
            return option.argument.map { OptionSpec(name, $0, help) } ?? OptionSpec(name, help)
        }
        return CommandSpec(
            name: "tern serve", usage: "tern serve [options]",
            summary: "Runs the Tern server. Every option can also be set in the environment.",
            sections: [("", declared + [OptionSpec("help", "this text")])], maxPositionals: 0,
            footer: "Behind an egress proxy, set https_proxy (and no_proxy): APNs, FCM and HMS all go through it.")
    }

    /// The help `tern serve --help` prints: every option of the server, each with the environment
    /// variable that sets it too.
    public static var help: String { spec.help }

    /// Reads the environment, then the flags. Throws an error whose reason names the option.
    public static func parse(_ arguments: [String], environment: [String: String]) throws(ConfigurationError)
        -> ServerConfiguration
    {
        var config = ServerConfiguration()
        for option in options {
            if let value = environment[option.environment] { try option.apply(&config, value) }
        }
        let parsed: Arguments
        do {
            parsed = try spec.parse(arguments)
        } catch {
            throw ConfigurationError(error.reason)
        }
        for option in options {
            if let value = parsed.value(String(option.flag.dropFirst(2))) { try option.apply(&config, value) }
        }
        return config
    }

    /// An option whose value is an https URL of a provider (tests point them at local stand-ins).
    private static func providerURL(
        _ flag: String, _ environment: String, _ what: String,
        _ apply: @escaping @Sendable (inout ServerConfiguration, URL) -> Void
    ) -> Option {
        Option(flag: flag, environment: environment, argument: "URL", help: "\(what) (the real service)") {
            config, value throws(ConfigurationError) in
            guard let url = URL(string: value), url.scheme == "https", url.host != nil else {
                throw ConfigurationError("\(flag) must be an https URL, not \(value)")
            }
            apply(&config, url)
        }
    }

    private static func integer(_ value: String, _ name: String, _ range: ClosedRange<Int>) throws(ConfigurationError)
        -> Int
    {
        guard let number = Int(value), range.contains(number) else {
            throw ConfigurationError(
                "\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), not \(value)")
        }
        return number
    }
}
