import Foundation

/// Why a command failed, said so a person can act on it, and the exit status that says which
/// kind of failure it was: the one error type of `tern`.
public struct CommandError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public let exitCode: ExitCode

    /// A mistake on the command line, unless `exitCode` says otherwise.
    public init(_ description: String, exitCode: ExitCode = .usage) {
        self.description = description
        self.exitCode = exitCode
    }

    public var reason: String { description }
}

/// What `tern`'s exit status says.
public enum ExitCode: Int32, Sendable {
    /// Done.
    case ok = 0
    /// The server answered with an error (its reason is printed).
    case refused = 1
    /// The command line is wrong (the reason is printed).
    case usage = 2
    /// `tern device`: requests are still queued after `--wait`.
    case pending = 3
    /// The server could not be reached, or could not start.
    case unavailable = 4
}

/// One option of a command: its name without the dashes, the value it takes (nil for a switch),
/// and its line of help.
public struct OptionSpec: Sendable {
    public let name: String
    public let value: String?
    public let help: String
    /// Taken more than once (each value kept); otherwise a second one is refused.
    public let repeatable: Bool

    /// An option that takes a value, shown as `value` in the help.
    public init(_ name: String, _ value: String, repeatable: Bool = false, _ help: String) {
        self.name = name
        self.value = value
        self.repeatable = repeatable
        self.help = help
    }

    /// A switch: present or not.
    public init(_ name: String, _ help: String) {
        self.name = name
        self.value = nil
        self.repeatable = false
        self.help = help
    }

    public var left: String { "--\(name)" + (value.map { " \($0)" } ?? "") }
}

/// A command's arguments: what it takes, which the parser checks and the help lists, from the
/// same declarations.
/// `tern`'s commands (`serve`, `send`, `device`, the management topics) declare their options
/// here and parse with it: one parser, whose help cannot disagree with what it takes.
///
/// ```swift
/// let spec = CommandSpec(name: "tern hello", usage: "tern hello [options]", summary: "Says hello.",
///     sections: [("", [OptionSpec("name", "NAME", "whom to greet")])], maxPositionals: 0, footer: "")
/// let arguments = try spec.parse(["--name", "Ada"])   // arguments.value("name") == "Ada"
/// ```
public struct CommandSpec: Sendable {
    /// The command, e.g. `tern send`.
    public let name: String
    /// The first help line, e.g. `tern send [options]`.
    public let usage: String
    public let summary: String
    /// Options under headings (a heading may be empty).
    public let sections: [(String, [OptionSpec])]
    /// How many positional arguments it takes at most.
    public let maxPositionals: Int
    /// Text after the options.
    public let footer: String

    public init(
        name: String, usage: String, summary: String, sections: [(String, [OptionSpec])], maxPositionals: Int,
        footer: String
    ) {
        self.name = name
        self.usage = usage
        self.summary = summary
        self.sections = sections
        self.maxPositionals = maxPositionals
        self.footer = footer
    }

    public var options: [OptionSpec] { sections.flatMap(\.1) }

    public var help: String {
        var text = "usage: \(usage)\n\n\(summary)\n"
        for (heading, options) in sections {
            text += heading.isEmpty ? "\n" : "\n\(heading):\n"
            for option in options {
                text += "  " + option.left.padding(toLength: 34, withPad: " ", startingAt: 0) + " " + option.help
                text += option.repeatable ? " (repeatable)\n" : "\n"
            }
        }
        return footer.isEmpty ? text : text + "\n" + footer + "\n"
    }

    public func parse(_ arguments: [String]) throws(CommandError) -> Arguments {
        try Arguments(arguments, spec: self)
    }
}

/// Parsed arguments: `--name value` or `--name=value` (kept in order, repeatable ones all),
/// `--switch`es, and positionals.
public struct Arguments {
    public private(set) var values: [String: [String]] = [:]
    public private(set) var positionals: [String] = []

    public init(_ arguments: [String], spec: CommandSpec) throws(CommandError) {
        let known = Dictionary(spec.options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                positionals.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = known[name] else {
                throw CommandError("unknown option --\(name); see \(spec.name) --help")
            }
            if option.value == nil {
                value = value ?? "true"
            } else if value == nil {
                guard index < arguments.count else {
                    throw CommandError("--\(name) needs a value (\(option.value ?? ""))")
                }
                value = arguments[index]
                index += 1
            }
            if !option.repeatable, values[name] != nil, option.value != nil {
                throw CommandError("--\(name) is given twice")
            }
            values[name, default: []].append(value ?? "")
        }
        guard positionals.count <= spec.maxPositionals else {
            throw CommandError(
                spec.maxPositionals == 0
                    ? "unexpected argument \(positionals[0]); see \(spec.name) --help"
                    : "unexpected argument \(positionals[spec.maxPositionals])")
        }
    }

    public func value(_ name: String) -> String? { values[name]?.last }
    public func all(_ name: String) -> [String] { values[name] ?? [] }
    public func has(_ name: String) -> Bool { values[name] != nil }

    /// The positional at `index`, or an error naming what is missing.
    public func position(_ index: Int, _ name: String) throws(CommandError) -> String {
        guard index < positionals.count else { throw CommandError("missing \(name); see tern help") }
        return positionals[index]
    }

    public func required(_ name: String) throws(CommandError) -> String {
        guard let value = value(name), !value.isEmpty else { throw CommandError("--\(name) is required") }
        return value
    }

    public func int(_ name: String) throws(CommandError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text) else { throw CommandError("--\(name) must be an integer, not \(text)") }
        return number
    }

    public func int(_ name: String, default fallback: Int) throws(CommandError) -> Int {
        try int(name) ?? fallback
    }

    public func double(_ name: String, default fallback: Double) throws(CommandError) -> Double {
        guard let text = value(name) else { return fallback }
        guard let number = Double(text), number >= 0 else {
            throw CommandError("--\(name) must be a number of seconds, not \(text)")
        }
        return number
    }

    public func bool(_ name: String, default fallback: Bool) throws(CommandError) -> Bool {
        guard let text = value(name)?.lowercased() else { return fallback }
        switch text {
        case "true", "yes", "1", "on": return true
        case "false", "no", "0", "off": return false
        default: throw CommandError("--\(name) must be true or false, not \(text)")
        }
    }

    /// `key=value` pairs; values read as JSON when they parse (`3`, `true`, `"x"`), else as text.
    public func fields(_ name: String) throws(CommandError) -> [String: Any?]? {
        let pairs = all(name)
        guard !pairs.isEmpty else { return nil }
        var fields: [String: Any?] = [:]
        for pair in pairs {
            let (key, text) = try Self.keyValue(pair, name)
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

    /// `KEY=VALUE` split at the first `=`.
    public static func keyValue(_ text: String, _ name: String) throws(CommandError) -> (String, String) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw CommandError("--\(name) \(text) should be NAME=VALUE")
        }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }
}
