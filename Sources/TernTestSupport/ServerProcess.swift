import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real `tern serve` process for tests: the binary SwiftPM built next to the test bundle, on a
/// free loopback port, with a temporary data directory that survives restarts.
///
/// ```swift
/// let server = try await ServerProcess.start()
/// defer { Task { await server.stop() } }
/// let answer = try await JSONHTTPClient().post(server.url("push/subscribe"), json: body,
///                                              headers: ["X-Tern-RToken": server.rToken])
/// ```
public actor ServerProcess {
    /// What `bootstrap.json` said (a restart reuses all of it).
    public nonisolated let apiURL: URL
    public nonisolated let rToken: String
    public nonisolated let adminKey: String
    public nonisolated let projectId: Int64
    public nonisolated let resourceId: Int64
    /// The port the server listens on; kept across restarts.
    public nonisolated let port: Int
    public nonisolated let dataDirectory: TemporaryDirectory
    /// Extra arguments for `tern serve`.
    public nonisolated let arguments: [String]
    private var process: ChildProcess

    /// Starts `tern serve --port 0 --data <temp dir>` and waits until `/healthz` answers 200.
    /// The deadline is generous: the whole suite starts dozens of servers at once on a shared machine.
    /// When the server does not come up, it is killed (no server outlives its test) and the error
    /// carries its log.
    public static func start(
        arguments: [String] = [], environment: [String: String] = [:], timeout: TimeInterval = 60
    ) async throws -> ServerProcess {
        let directory = try TemporaryDirectory(prefix: "tern-server")
        let process = try launch(port: 0, directory: directory, arguments: arguments, environment: environment)
        let info: Bootstrap
        do {
            info = try await waitForBootstrap(directory, process: process, timeout: timeout)
        } catch {
            process.signal(SIGKILL)
            await process.wait()
            directory.remove()
            throw error
        }
        let server = ServerProcess(process: process, info: info, directory: directory, arguments: arguments)
        try await server.waitUntilHealthy(timeout: timeout)
        return server
    }

    private init(process: ChildProcess, info: Bootstrap, directory: TemporaryDirectory, arguments: [String]) {
        self.process = process
        apiURL = info.apiURL
        rToken = info.rtoken
        adminKey = info.adminKey
        projectId = info.projectId
        resourceId = info.resourceId
        port = info.apiURL.port ?? 0
        dataDirectory = directory
        self.arguments = arguments
    }

    /// `<api_url>/<path>`, e.g. `url("push/subscribe")`.
    public nonisolated func url(_ path: String) -> URL { apiURL.appendingPathComponent(path) }

    /// A URL on the server's root, e.g. `rootURL("/healthz")`.
    public nonisolated func rootURL(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// The running process's id.
    public var pid: Int32 { process.processIdentifier }

    public var isRunning: Bool { process.isRunning }

    /// Sends `signal` (SIGTERM, SIGKILL, ...) and waits for the process to end; returns its exit status.
    @discardableResult
    public func kill(signal: Int32) async -> Int32 {
        process.signal(signal)
        return await process.wait()
    }

    /// Starts the server again on the same port and data directory; waits until healthy.
    public func restart(timeout: TimeInterval = 30) async throws {
        if process.isRunning { await kill(signal: SIGTERM) }
        process = try Self.launch(port: port, directory: dataDirectory, arguments: arguments, environment: [:])
        try await waitUntilHealthy(timeout: timeout)
    }

    /// SIGTERM, wait, and remove the data directory.
    public func stop() async {
        await kill(signal: SIGTERM)
        dataDirectory.remove()
    }

    /// What the server wrote on stderr (its JSON log) so far.
    public nonisolated func log() -> String {
        (try? String(contentsOfFile: dataDirectory.path("server.log"), encoding: .utf8)) ?? ""
    }

    /// What the server printed on stdout so far.
    public nonisolated func output() -> String {
        (try? String(contentsOfFile: dataDirectory.path("server.out"), encoding: .utf8)) ?? ""
    }

    /// Polls `/healthz` until it answers 200.
    public func waitUntilHealthy(timeout: TimeInterval = 30) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        let client = JSONHTTPClient(timeout: 2)
        while Date() < deadline {
            if !isRunning { throw ServerProcessError("tern serve exited early; its log:\n\(log())") }
            if let answer = try? await client.get(rootURL("/healthz")), answer.status == 200 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ServerProcessError("tern serve did not answer /healthz within \(timeout)s; its log:\n\(log())")
    }

    /// The `tern` executable SwiftPM built beside the test bundle (or `TERN_BINARY`).
    public static func binaryURL() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["TERN_BINARY"] { return URL(fileURLWithPath: path) }
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        let own = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        candidates.append(own)
        for bundle in Bundle.allBundles { candidates.append(bundle.bundleURL.deletingLastPathComponent()) }
        for directory in candidates {
            var current = directory
            for _ in 0..<4 {
                let binary = current.appendingPathComponent("tern")
                if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
                current = current.deletingLastPathComponent()
            }
        }
        throw ServerProcessError(
            "the tern binary was not found next to the tests (looked in \(candidates.map(\.path))); "
                + "build it (swift build --product tern) or set TERN_BINARY")
    }

    struct Bootstrap: Decodable {
        let projectId: Int64
        let resourceId: Int64
        let rtoken: String
        let adminKey: String
        let apiURL: URL

        enum CodingKeys: String, CodingKey {
            case rtoken
            case projectId = "project_id"
            case resourceId = "resource_id"
            case adminKey = "admin_key"
            case apiURL = "api_url"
        }
    }

    private static func launch(
        port: Int, directory: TemporaryDirectory, arguments: [String], environment: [String: String]
    ) throws -> ChildProcess {
        var env = ProcessInfo.processInfo.environment
        for key in env.keys where key.hasPrefix("TERN_") { env[key] = nil }
        env.merge(environment) { _, new in new }
        for name in ["server.log", "server.out"] where !FileManager.default.fileExists(atPath: directory.path(name)) {
            _ = FileManager.default.createFile(atPath: directory.path(name), contents: nil)
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.path("server.log")))
        log.seekToEndOfFile()
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.path("server.out")))
        out.seekToEndOfFile()
        defer {
            try? log.close()
            try? out.close()
        }
        return try ChildProcess.run(
            try binaryURL().path, ["serve", "--port", "\(port)", "--data", directory.path("data")] + arguments,
            environment: env, output: .file(out), error: .file(log))
    }

    private static func waitForBootstrap(_ directory: TemporaryDirectory, process: ChildProcess, timeout: TimeInterval)
        async throws -> Bootstrap
    {
        let path = directory.path("data/bootstrap.json")
        let deadline = Date().addingTimeInterval(timeout)
        func written() -> Bootstrap? {
            FileManager.default.contents(atPath: path).flatMap { try? JSONDecoder().decode(Bootstrap.self, from: $0) }
        }
        while Date() < deadline {
            if let info = written() { return info }
            if !process.isRunning {
                let log = (try? String(contentsOfFile: directory.path("server.log"), encoding: .utf8)) ?? ""
                throw ServerProcessError(
                    "tern serve exited with \(process.terminationStatus ?? -1) before bootstrapping:\n\(log)")
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        // A loaded machine may wake this task only after the deadline: look once more before failing.
        if let info = written() { return info }
        let log = (try? String(contentsOfFile: directory.path("server.log"), encoding: .utf8)) ?? ""
        throw ServerProcessError(
            "tern serve wrote no bootstrap.json within \(timeout)s; its log:\n\(log.suffix(2_000))")
    }
}

/// Why a test server could not be started.
public struct ServerProcessError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
