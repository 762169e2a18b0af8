import Foundation
import TernServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Calls the server's management API: `<api_url>/admin/...` with the admin key.
struct AdminClient {
    let apiURL: String
    let adminKey: String

    /// Sends one request; returns the status and the body.
    func send(
        _ method: String, _ path: String, query: [String: String] = [:], body: Data? = nil,
        headers: [String: String] = [:]
    ) async throws -> (Int, Data) {
        guard var components = URLComponents(string: apiURL + "/admin" + path) else {
            throw CommandError(
                "--url \(apiURL) is not a URL; it should look like http://127.0.0.1:8080/api/v1", exitCode: .unavailable
            )
        }
        if !query.isEmpty {
            components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        }
        guard let url = components.url else {
            throw CommandError("cannot build a URL from \(apiURL) and \(path)", exitCode: .unavailable)
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(adminKey)", forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = body
            if headers["Content-Type"] == nil {
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
        }
        do {
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
        } catch {
            throw CommandError(
                "cannot reach \(apiURL): \(error.localizedDescription); is tern serve running?", exitCode: .unavailable)
        }
    }

    /// ``send(_:_:query:body:headers:)`` of a request that may be sent again (a read, or a change
    /// the server applies once), tried up to `attempts` times while the server cannot be reached,
    /// a little longer apart each time; any answer, or the last failure, is the call's.
    func sendRetrying(
        _ method: String, _ path: String, query: [String: String] = [:], body: Data? = nil,
        headers: [String: String] = [:], attempts: Int
    ) async throws -> (Int, Data) {
        var attempt = 1
        while true {
            do {
                return try await send(method, path, query: query, body: body, headers: headers)
            } catch let error as CommandError where error.exitCode == .unavailable && attempt < attempts {
                attempt += 1
                try await Task.sleep(nanoseconds: UInt64(attempt) * 500_000_000)
            }
        }
    }

    /// Where to connect: flags, then TERN_URL / TERN_ADMIN_KEY(_FILE), then `DIR/bootstrap.json`.
    /// The key is best read from a file (`--admin-key-file`) or the environment: a key given as
    /// `--admin-key KEY` shows in `ps` to every user of the machine.
    static func resolve(_ arguments: Arguments) throws(CommandError) -> AdminClient {
        let environment = ProcessInfo.processInfo.environment
        let directory = arguments.value("data") ?? environment["TERN_DATA"] ?? "./.tern"
        let bootstrap = FileManager.default.contents(atPath: directory + "/bootstrap.json").flatMap {
            try? JSONSerialization.jsonObject(with: $0) as? [String: Any]
        }
        let url = arguments.value("url") ?? environment["TERN_URL"] ?? bootstrap?["api_url"] as? String
        let keyFile = arguments.value("admin-key-file") ?? environment["TERN_ADMIN_KEY_FILE"]
        let key =
            try keyFile.map { path throws(CommandError) in try secret(fromFile: path, "--admin-key-file") }
            ?? arguments.value("admin-key") ?? environment["TERN_ADMIN_KEY"] ?? bootstrap?["admin_key"] as? String
        guard let url, let key else {
            throw CommandError(
                "no server to talk to: pass --url and --admin-key, set TERN_URL and TERN_ADMIN_KEY, or run where "
                    + "\(directory)/bootstrap.json exists (--data DIR)")
        }
        return AdminClient(apiURL: url.hasSuffix("/") ? String(url.dropLast()) : url, adminKey: key)
    }
}

/// The options every management command takes to find the server.
extension OptionSpec {
    static let connection = [
        OptionSpec("url", "URL", "the server's api_url (or TERN_URL)"),
        OptionSpec(
            "admin-key-file", "FILE",
            "read the admin key from FILE (or TERN_ADMIN_KEY_FILE); prefer this or TERN_ADMIN_KEY"),
        OptionSpec("admin-key", "KEY", "the admin key (or TERN_ADMIN_KEY); shows in ps, so prefer the file"),
        OptionSpec("data", "DIR", "read both from DIR/bootstrap.json (default ./.tern, or TERN_DATA)"),
    ]
}

/// A secret from a file: its text without the trailing line break. The way to pass a secret that
/// must not show in `ps` (the command line is visible to every user of the machine).
func secret(fromFile path: String, _ flag: String) throws(CommandError) -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw CommandError("\(flag): cannot read \(path)")
    }
    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    guard !text.isEmpty else { throw CommandError("\(flag): \(path) is empty") }
    return text
}
