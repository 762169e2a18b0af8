import Foundation

/// `tern serve`'s options: each a flag and an environment variable; a flag wins over the environment.
public enum ServerOptions {
    struct Option: Sendable {
        let flag: String
        let environment: String
        let argument: String?
        let help: String
        let apply: @Sendable (inout ServerConfiguration, String) throws(APIError) -> Void
    }

    static let options: [Option] = [
        Option(
            flag: "--host", environment: "TERN_HOST", argument: "HOST", help: "IPv4 address to listen on (127.0.0.1)"
        ) { config, value throws(APIError) in config.host = value },
        Option(flag: "--port", environment: "TERN_PORT", argument: "PORT", help: "TCP port, 0 picks a free one (8080)")
        {
            config, value throws(APIError) in config.port = try integer(value, "--port", 0...65535)
        },
        Option(
            flag: "--data", environment: "TERN_DATA", argument: "DIR",
            help: "data directory: SQLite file and bootstrap.json (./.tern)"
        ) {
            config, value throws(APIError) in config.dataDirectory = value
        },
        Option(flag: "--threads", environment: "TERN_THREADS", argument: "N", help: "HTTP polling threads (4)") {
            config, value throws(APIError) in config.threads = try integer(value, "--threads", 1...256)
        },
        Option(
            flag: "--max-body-bytes", environment: "TERN_MAX_BODY_BYTES", argument: "BYTES",
            help: "larger request bodies get 413 (1048576)"
        ) {
            config, value throws(APIError) in
            config.maxBodyBytes = try integer(value, "--max-body-bytes", 1...(64 << 20))
        },
        Option(
            flag: "--max-header-bytes", environment: "TERN_MAX_HEADER_BYTES", argument: "BYTES",
            help: "larger request headers get 431 (16384)"
        ) {
            config, value throws(APIError) in
            config.maxHeaderBytes = try integer(value, "--max-header-bytes", 1024...(1 << 20))
        },
        Option(
            flag: "--connection-timeout", environment: "TERN_CONNECTION_TIMEOUT", argument: "SECONDS",
            help: "idle connections close after this (30)"
        ) {
            config, value throws(APIError) in
            config.connectionTimeoutSeconds = try integer(value, "--connection-timeout", 0...3600)
        },
        Option(
            flag: "--log-level", environment: "TERN_LOG_LEVEL", argument: "LEVEL",
            help: "debug, info, warn or error (info)"
        ) {
            config, value throws(APIError) in
            guard let level = Logger.Level(name: value) else {
                throw .badRequest("--log-level must be debug, info, warn or error, not \(value)")
            }
            config.logLevel = level
        },
        Option(
            flag: "--bench-routes", environment: "TERN_BENCH_ROUTES", argument: nil,
            help: "add /bench/constant, a route that never touches the store (off)"
        ) {
            config, value throws(APIError) in
            config.benchRoutes = !["0", "false", "no", ""].contains(value.lowercased())
        },
    ]

    /// `tern serve --help`.
    public static var help: String {
        var text =
            "usage: tern serve [options]\n\nRuns the Tern server. Every option can also be set in the environment.\n\n"
        for option in options {
            let left = option.flag + (option.argument.map { " " + $0 } ?? "")
            text +=
                "  " + left.padding(toLength: 30, withPad: " ", startingAt: 0) + option.help
                + "  [\(option.environment)]\n"
        }
        text += "  --help                        this text\n"
        return text
    }

    /// Reads the environment, then the flags. Throws a 400-style error whose reason names the option.
    public static func parse(_ arguments: [String], environment: [String: String]) throws(APIError)
        -> ServerConfiguration
    {
        var config = ServerConfiguration()
        for option in options {
            if let value = environment[option.environment] { try option.apply(&config, value) }
        }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let (flag, inline) = split(argument)
            guard let option = options.first(where: { $0.flag == flag }) else {
                throw .badRequest("unknown option \(argument); see tern serve --help")
            }
            if option.argument == nil {
                try option.apply(&config, inline ?? "1")
            } else if let inline {
                try option.apply(&config, inline)
            } else {
                index += 1
                guard index < arguments.count else {
                    throw .badRequest("\(flag) needs a value (\(option.argument ?? ""))")
                }
                try option.apply(&config, arguments[index])
            }
            index += 1
        }
        return config
    }

    private static func split(_ argument: String) -> (String, String?) {
        guard let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    private static func integer(_ value: String, _ name: String, _ range: ClosedRange<Int>) throws(APIError) -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw .badRequest("\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), not \(value)")
        }
        return number
    }
}
