import Foundation

/// A mistake on the `tern device` command line, said so a person can fix it.
struct DeviceUsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The arguments of one command: `--name value` pairs (repeatable), `--flag`s and positionals.
struct DeviceArguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// Options that take no value.
    static let flagNames: Set<String> = ["quiet", "replace", "skip-triggers", "help"]

    init(_ arguments: [String]) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else {
                positionals.append(argument)
                continue
            }
            let name = String(argument.dropFirst(2))
            if let equals = name.firstIndex(of: "=") {
                values[String(name[..<equals]), default: []].append(String(name[name.index(after: equals)...]))
                continue
            }
            if Self.flagNames.contains(name) {
                flags.insert(name)
                continue
            }
            guard index < arguments.count else { throw DeviceUsageError("--\(name) needs a value") }
            values[name, default: []].append(arguments[index])
            index += 1
        }
    }

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ name: String) -> Bool { flags.contains(name) }

    func required(_ name: String) throws -> String {
        guard let value = value(name), !value.isEmpty else { throw DeviceUsageError("--\(name) is required") }
        return value
    }

    func int(_ name: String, default fallback: Int) throws -> Int {
        guard let text = value(name) else { return fallback }
        guard let number = Int(text) else { throw DeviceUsageError("--\(name) must be a whole number, not \(text)") }
        return number
    }

    func double(_ name: String, default fallback: Double) throws -> Double {
        guard let text = value(name) else { return fallback }
        guard let number = Double(text), number >= 0 else {
            throw DeviceUsageError("--\(name) must be a number of seconds, not \(text)")
        }
        return number
    }

    func bool(_ name: String, default fallback: Bool) throws -> Bool {
        guard let text = value(name)?.lowercased() else { return fallback }
        switch text {
        case "true", "yes", "1", "on": return true
        case "false", "no", "0", "off": return false
        default: throw DeviceUsageError("--\(name) must be true or false, not \(text)")
        }
    }

    /// `key=value` pairs; values read as JSON when they parse (`3`, `true`, `"x"`), else as text.
    func fields(_ name: String) throws -> [String: Any?]? {
        let pairs = all(name)
        guard !pairs.isEmpty else { return nil }
        var fields: [String: Any?] = [:]
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw DeviceUsageError("--\(name) takes key=value, not \(pair)")
            }
            let key = String(pair[..<equals])
            let text = String(pair[pair.index(after: equals)...])
            let value: Any?
            switch try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) {
            case is NSNull: value = nil
            case let parsed?: value = parsed
            case nil: value = text
            }
            fields.updateValue(value, forKey: key)
        }
        return fields
    }
}

/// Where the device's SDK talks to and keeps its data.
struct DeviceSetup {
    var dataDirectory: URL
    var apiUrl: String
    var rToken: String?
    var jwt: String?
    var quiet: Bool
    var wait: TimeInterval
    var osVersion: String
    var model: String
    var name: String

    static let defaultBootstrap = ".tern/bootstrap.json"

    init(_ arguments: DeviceArguments) throws {
        dataDirectory = URL(fileURLWithPath: arguments.value("data") ?? ".tern-device", isDirectory: true)
        var apiUrl = arguments.value("api-url")
        var rToken = arguments.value("rtoken")
        let bootstrapPath = arguments.value("bootstrap") ?? Self.defaultBootstrap
        if apiUrl == nil || rToken == nil, FileManager.default.fileExists(atPath: bootstrapPath) {
            let data = try Data(contentsOf: URL(fileURLWithPath: bootstrapPath))
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            apiUrl = apiUrl ?? object?["api_url"] as? String
            rToken = rToken ?? object?["rtoken"] as? String
        } else if arguments.value("bootstrap") != nil {
            throw DeviceUsageError("no bootstrap file at \(bootstrapPath)")
        }
        guard let apiUrl else {
            throw DeviceUsageError(
                "say where the server is: --api-url http://127.0.0.1:8080/api/v1 --rtoken rt_…, or --bootstrap .tern/bootstrap.json"
            )
        }
        self.apiUrl = apiUrl
        self.rToken = rToken
        jwt = arguments.value("jwt")
        quiet = arguments.has("quiet")
        wait = try arguments.double("wait", default: 30)
        osVersion = arguments.value("os-version") ?? "18.6.2"
        model = arguments.value("model") ?? "iPhone14,7"
        name = arguments.value("name") ?? "iPhone"
    }
}
