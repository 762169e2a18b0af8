import Dispatch
import Foundation
import TernServer

/// `tern serve`: runs the server until SIGINT or SIGTERM, then stops cleanly and exits 0.
enum ServeCommand {
    static func run(_ arguments: [String]) async {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(ServerOptions.help, terminator: "")
            return
        }
        let configuration: ServerConfiguration
        do {
            configuration = try ServerOptions.parse(arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            Usage.fail(error.reason, .usage)
        }
        let logger = Logger(minimum: configuration.logLevel)
        let signals = Signals.ignore([SIGINT, SIGTERM])
        let app: TernServerApp
        do {
            app = try await TernServerApp.start(configuration, logger: logger)
        } catch {
            logger.error("cannot start", ["error": "\(error)"])
            Usage.fail("cannot start: \(error)", .unavailable)
        }
        announce(app)
        let signal = await Signals.next(of: signals)
        logger.info("stopping", ["signal": signal == SIGINT ? "SIGINT" : "SIGTERM"])
        await app.stop()
        exit(0)
    }

    /// Secrets go to stdout once, for the operator; never to the log.
    static func announce(_ app: TernServerApp) {
        let info = app.bootstrap
        let path = app.configuration.bootstrapPath
        switch app.bootstrapOutcome {
        case .created:
            say(
                """
                tern: created project \(info.projectId) with push resource \(info.resourceId)
                  rtoken:    \(info.rToken)
                  admin key: \(info.adminKey)
                  api_url:   \(info.apiURL)
                  saved in \(path) (mode 0600)
                """)
        case .reissued:
            say("tern: \(path) was missing or stale; issued a new admin key: \(info.adminKey) (saved there)")
        case .reused:
            say("tern: serving \(info.apiURL) (credentials in \(path))")
        }
    }

    static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}

/// SIGINT and SIGTERM, delivered as values instead of killing the process.
enum Signals {
    /// Stops the default action of `signals`; call before anything else can receive them.
    static func ignore(_ signals: [Int32]) -> [Int32] {
        for number in signals { signal(number, SIG_IGN) }
        return signals
    }

    /// Waits for the first of `signals`.
    static func next(of signals: [Int32]) async -> Int32 {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let sources = signals.map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }
        for await number in stream { return number }
        return SIGTERM
    }
}
