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
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        do {
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
        } catch {
            throw CommandError(
                "cannot reach \(apiURL): \(error.localizedDescription); is tern serve running?", exitCode: .unavailable)
        }
    }

    /// Where to connect: flags, then TERN_URL / TERN_ADMIN_KEY, then `DIR/bootstrap.json`.
    static func resolve(_ arguments: Arguments) throws(CommandError) -> AdminClient {
        let environment = ProcessInfo.processInfo.environment
        let directory = arguments.value("data") ?? environment["TERN_DATA"] ?? "./.tern"
        let bootstrap = FileManager.default.contents(atPath: directory + "/bootstrap.json").flatMap {
            try? JSONSerialization.jsonObject(with: $0) as? [String: Any]
        }
        let url = arguments.value("url") ?? environment["TERN_URL"] ?? bootstrap?["api_url"] as? String
        let key = arguments.value("admin-key") ?? environment["TERN_ADMIN_KEY"] ?? bootstrap?["admin_key"] as? String
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
        OptionSpec("admin-key", "KEY", "the admin key (or TERN_ADMIN_KEY)"),
        OptionSpec("data", "DIR", "read both from DIR/bootstrap.json (default ./.tern, or TERN_DATA)"),
    ]
}
