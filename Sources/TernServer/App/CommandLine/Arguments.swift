import Foundation

/// Why a command failed, said so a person can act on it, and the exit status that says which
/// kind of failure it was: the one error type of `tern`.
public struct CommandError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    /// The exit status `tern` ends with for this failure.
    public let exitCode: ExitCode

    /// A mistake on the command line, unless `exitCode` says otherwise.
    public init(_ description: String, exitCode: ExitCode = .usage) {
        self.description = description
        self.exitCode = exitCode
    }

    /// The same text as ``description``: what went wrong and what to change.
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
    let name: String
    let value: String?
    let help: String
    /// Taken more than once (each value kept); otherwise a second one is refused.
    let repeatable: Bool

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

    var left: String { "--\(name)" + (value.map { " \($0)" } ?? "") }
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
    let name: String
    /// The first help line, e.g. `tern send [options]`.
    let usage: String
    let summary: String
    /// Options under headings (a heading may be empty).
    let sections: [(String, [OptionSpec])]
    /// How many positional arguments it takes at most.
    let maxPositionals: Int
    /// Text after the options.
    let footer: String

    /// Declares a command.
    ///
    /// - Parameters:
    ///   - name: The command as typed, e.g. `tern send`; errors point at `name --help`.
    ///   - usage: The first line of the help, e.g. `tern send [options]`.
    ///   - summary: A paragraph under the usage line saying what the command does.
    ///   - sections: The options under their headings; an empty heading lists them without one.
    ///   - maxPositionals: How many arguments that are not options it takes at most (more are refused).
    ///   - footer: Text printed after the options (examples, notes); empty for none.
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

    var options: [OptionSpec] { sections.flatMap(\.1) }

    /// The command's help as `--help` prints it: the usage line, the summary, each section's options with
    /// their help (repeatable ones marked), then the footer.
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

    /// Parses a command line against this declaration.
    ///
    /// - Parameter arguments: The arguments after the command's name.
    /// - Returns: The options and positionals found.
    /// - Throws: A ``CommandError`` with exit code ``ExitCode/usage`` for an unknown option, an option
    ///   without its value, a non-repeatable option given twice, or too many positionals.
    public func parse(_ arguments: [String]) throws(CommandError) -> Arguments {
        try Arguments(arguments, spec: self)
    }
}

/// Parsed arguments: `--name value` or `--name=value` (kept in order, repeatable ones all),
/// `--switch`es, and positionals.
public struct Arguments {
    private(set) var values: [String: [String]] = [:]
    /// The arguments that are not options, in the order given.
    public private(set) var positionals: [String] = []

    init(_ arguments: [String], spec: CommandSpec) throws(CommandError) {
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

    /// The value of option `name` (its last, for a repeatable one), `"true"` for a switch that is
    /// present, or nil when it is absent.
    ///
    /// - Parameter name: The option's name without the dashes.
    public func value(_ name: String) -> String? { values[name]?.last }
    /// Every value given to option `name`, in order; empty when it is absent.
    ///
    /// - Parameter name: The option's name without the dashes.
    public func all(_ name: String) -> [String] { values[name] ?? [] }
    /// Whether option `name` was given at all.
    ///
    /// - Parameter name: The option's name without the dashes.
    public func has(_ name: String) -> Bool { values[name] != nil }

    /// The positional at `index`, or an error naming what is missing.
    public func position(_ index: Int, _ name: String) throws(CommandError) -> String {
        guard index < positionals.count else { throw CommandError("missing \(name); see tern help") }
        return positionals[index]
    }

    /// The value of an option the command cannot do without.
    ///
    /// - Parameter name: The option's name without the dashes.
    /// - Returns: Its value, never empty.
    /// - Throws: A ``CommandError`` saying `--name is required` when it is absent or empty.
    public func required(_ name: String) throws(CommandError) -> String {
        guard let value = value(name), !value.isEmpty else { throw CommandError("--\(name) is required") }
        return value
    }

    /// The value of option `name` as an integer.
    ///
    /// - Parameter name: The option's name without the dashes.
    /// - Returns: The number, or nil when the option is absent.
    /// - Throws: A ``CommandError`` when the value is not an integer.
    public func int(_ name: String) throws(CommandError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text) else { throw CommandError("--\(name) must be an integer, not \(text)") }
        return number
    }

    /// The value of option `name` as an integer, or `fallback` when it is absent.
    ///
    /// - Parameters:
    ///   - name: The option's name without the dashes.
    ///   - fallback: The value to use when the option is not given.
    /// - Throws: A ``CommandError`` when the value is not an integer.
    public func int(_ name: String, default fallback: Int) throws(CommandError) -> Int {
        try int(name) ?? fallback
    }

    /// The value of option `name` as a non-negative number of seconds, or `fallback` when it is absent.
    ///
    /// - Parameters:
    ///   - name: The option's name without the dashes.
    ///   - fallback: The value to use when the option is not given.
    /// - Throws: A ``CommandError`` when the value is not a number or is negative.
    public func double(_ name: String, default fallback: Double) throws(CommandError) -> Double {
        guard let text = value(name) else { return fallback }
        guard let number = Double(text), number >= 0 else {
            throw CommandError("--\(name) must be a number of seconds, not \(text)")
        }
        return number
    }

    /// The value of option `name` as a Boolean: `true`, `yes`, `1` or `on`, and `false`, `no`, `0` or
    /// `off` (any case); `fallback` when it is absent.
    ///
    /// - Parameters:
    ///   - name: The option's name without the dashes.
    ///   - fallback: The value to use when the option is not given.
    /// - Throws: A ``CommandError`` for any other value.
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
