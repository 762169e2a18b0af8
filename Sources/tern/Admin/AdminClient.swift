import Foundation

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
            throw CommandError("--url \(apiURL) is not a URL; it should look like http://127.0.0.1:8080/api/v1")
        }
        if !query.isEmpty {
            components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        }
        guard let url = components.url else { throw CommandError("cannot build a URL from \(apiURL) and \(path)") }
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
            throw CommandError("cannot reach \(apiURL): \(error.localizedDescription); is tern serve running?")
        }
    }

    /// Where to connect: flags, then TERN_URL / TERN_ADMIN_KEY(_FILE), then `DIR/bootstrap.json`.
    /// The key is best read from a file (`--admin-key-file`) or the environment: a key given as
    /// `--admin-key KEY` shows in `ps` to every user of the machine.
    static func resolve(_ flags: inout Flags) throws -> AdminClient {
        let environment = ProcessInfo.processInfo.environment
        let directory = flags.take("--data") ?? environment["TERN_DATA"] ?? "./.tern"
        let bootstrap = FileManager.default.contents(atPath: directory + "/bootstrap.json").flatMap {
            try? JSONSerialization.jsonObject(with: $0) as? [String: Any]
        }
        let url = flags.take("--url") ?? environment["TERN_URL"] ?? bootstrap?["api_url"] as? String
        let keyFile = flags.take("--admin-key-file") ?? environment["TERN_ADMIN_KEY_FILE"]
        let key =
            try keyFile.map { try secret(fromFile: $0, "--admin-key-file") } ?? flags.take("--admin-key")
            ?? environment["TERN_ADMIN_KEY"] ?? bootstrap?["admin_key"] as? String
        guard let url, let key else {
            throw CommandError(
                "no server to talk to: pass --url and --admin-key, set TERN_URL and TERN_ADMIN_KEY, or run where "
                    + "\(directory)/bootstrap.json exists (--data DIR)")
        }
        return AdminClient(apiURL: url.hasSuffix("/") ? String(url.dropLast()) : url, adminKey: key)
    }
}

/// A secret from a file: its text without the trailing line break. The way to pass a secret that
/// must not show in `ps` (the command line is visible to every user of the machine).
func secret(fromFile path: String, _ flag: String) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw CommandError("\(flag): cannot read \(path)")
    }
    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    guard !text.isEmpty else { throw CommandError("\(flag): \(path) is empty") }
    return text
}

/// A command-line failure with the reason to print.
struct CommandError: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// Flags (`--name value`, `--name=value`, `--switch`) and positional arguments.
struct Flags {
    private(set) var positional: [String] = []
    private var named: [String: String] = [:]

    init(_ arguments: [String], switches: Set<String> = []) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("--") {
                if let equals = argument.firstIndex(of: "=") {
                    named[String(argument[..<equals])] = String(argument[argument.index(after: equals)...])
                } else if switches.contains(argument) || index + 1 >= arguments.count {
                    named[argument] = "true"
                } else {
                    named[argument] = arguments[index + 1]
                    index += 1
                }
            } else {
                positional.append(argument)
            }
            index += 1
        }
    }

    mutating func take(_ name: String) -> String? { named.removeValue(forKey: name) }

    func position(_ index: Int, _ name: String) throws -> String {
        guard index < positional.count else { throw CommandError("missing \(name); see tern help") }
        return positional[index]
    }

    /// Flags nobody asked for: a typo the user should hear about.
    var unused: [String] { named.keys.sorted() }
}
