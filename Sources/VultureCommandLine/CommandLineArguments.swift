import VultureSchemaCore

/// A usage error: a bad command line. `CommandLineTool.run` prints `TOOL[ SUBCOMMAND]: message` and
/// the usage's synopsis to stderr and exits with status 2.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, without the tool's name (`unknown option --bogus`).
    public var message: String

    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// `--help` or `-h` was given: `CommandLineTool.run` prints the usage text to stdout and exits with
/// status 0. It wins over every other problem on the same command line.
public struct HelpRequest: Error, Equatable {
    public init() {}
}

/// The arguments of one command, read by a fixed grammar shared by every Vulture executable:
///
/// - `--name value` and `--name=value` for an option that takes a value, at most once unless it is
///   repeatable;
/// - `--name` for a flag (a value given as `--name=value` is refused);
/// - `--help` and `-h` ask for help (a `HelpRequest`);
/// - `--` ends the options: every later argument is a positional, even `--help`;
/// - `-x` (a dash and no digit) is an unknown option: no tool takes short options but `-h`, so a
///   word starting with `-` (a home base name may) comes after `--`;
/// - every other argument is a positional, in order, including `-` (standard input) and `-5`.
///
/// The value of an option given as `--name value` is the next argument whatever it looks like.
/// An unknown `--name` is a usage error.
public struct CommandLineArguments: Sendable {
    /// The most Unicode scalars of an argument a message shows; a longer one is shown as an excerpt
    /// with its length.
    public static let shownScalars = String.shownScalars

    /// The positional arguments, in order.
    public private(set) var positionals: [String] = []
    private var options: [String: [String]] = [:]
    private var setFlags: Set<String> = []

    /// Reads `arguments` (without the program or subcommand name).
    ///
    /// - Parameters:
    ///   - arguments: the command line after the program and subcommand names.
    ///   - valueOptions: the option names (without `--`) that take a value.
    ///   - flags: the option names (without `--`) that take none.
    ///   - repeatable: value options that may be given more than once.
    /// - Throws: `HelpRequest` when `--help` or `-h` is among the options; otherwise `UsageError`
    ///   for the first problem: `unknown option --NAME` (or `-x`), `--NAME takes no value`, `--NAME
    ///   needs a value`, `--NAME given twice` (a flag too).
    public init(
        _ arguments: [String], valueOptions: Set<String>, flags: Set<String> = [], repeatable: Set<String> = []
    ) throws {
        var wantsHelp = false
        var firstError: UsageError?
        func fail(_ message: String) {
            if firstError == nil { firstError = UsageError(message: message) }
        }
        var i = 0
        var onlyPositionals = false
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if onlyPositionals || !arg.hasPrefix("--") {
                if arg == "-h" && !onlyPositionals {
                    wantsHelp = true
                } else if !onlyPositionals, Self.looksLikeShortOption(arg) {
                    // No tool takes short options but -h: `-x` is a slip, not a file (`--` before it
                    // passes such a name); `-` alone (standard input) and `-5` are values.
                    fail("unknown option \(arg.shownArgument)")
                } else {
                    positionals.append(arg)
                }
                continue
            }
            if arg == "--" {
                onlyPositionals = true
                continue
            }
            if arg == "--help" {
                wantsHelp = true
                continue
            }
            var name = String(arg.dropFirst(2))
            var value: String?
            if let eq = name.firstIndex(of: "=") {
                value = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if flags.contains(name) {
                if value != nil {
                    fail("--\(name) takes no value")
                } else if !setFlags.insert(name).inserted {
                    fail("--\(name) given twice")
                }
                continue
            }
            guard valueOptions.contains(name) else {
                fail("unknown option --\(name.shownArgument)")
                continue
            }
            if value == nil {
                guard i < arguments.count else {
                    fail("--\(name) needs a value")
                    break
                }
                value = arguments[i]
                i += 1
            }
            guard let value else { continue }
            guard options[name] == nil || repeatable.contains(name) else {
                fail("--\(name) given twice")
                continue
            }
            options[name, default: []].append(value)
        }
        if wantsHelp { throw HelpRequest() }
        if let firstError { throw firstError }
    }

    /// `-x`, `-foo`: a dash and then no digit (`-` alone is standard input, `-5` a number).
    static func looksLikeShortOption(_ arg: String) -> Bool {
        guard arg.hasPrefix("-"), let second = arg.dropFirst().first else { return false }
        return !second.isNumber && second != "."
    }

    /// The value of option `name` (without `--`), or nil when it was not given; for a repeatable
    /// option, the first value.
    public func option(_ name: String) -> String? { options[name]?.first }

    /// Every value of a repeatable option, in the order given; empty when it was not given.
    public func values(_ name: String) -> [String] { options[name] ?? [] }

    /// Whether flag `name` (without `--`) was given.
    public func flag(_ name: String) -> Bool { setFlags.contains(name) }

    /// The value of option `name`.
    /// - Throws: `UsageError` `missing --NAME` when it was not given.
    public func requiredOption(_ name: String) throws(UsageError) -> String {
        guard let value = options[name]?.first else { throw UsageError(message: "missing --\(name)") }
        return value
    }

    /// The positionals, which must be exactly `names.count` long; the names (`DIR`, `FILE`) only
    /// word the message.
    /// - Throws: `UsageError` `expected NAME NAME, got N argument(s)` (or `expected no arguments, …`).
    public func positionals(_ names: String...) throws(UsageError) -> [String] {
        guard positionals.count == names.count else {
            let expected = names.isEmpty ? "no arguments" : names.joined(separator: " ")
            throw UsageError(message: "expected \(expected), got \(positionals.count) argument(s)")
        }
        return positionals
    }

    /// Splits a command line into its subcommand, the first argument, and the arguments after it.
    ///
    /// - Parameters:
    ///   - arguments: the command line after the program name.
    ///   - names: the subcommands there are, in the order the message lists them.
    /// - Throws: when the first argument is not one of `names`: `HelpRequest` when `--help` or `-h`
    ///   comes before any `--`, else `UsageError` `missing command: one of A, B` (no argument, or `--`),
    ///   `missing command before --opt (the command comes first): one of A, B` (an option first) or
    ///   `unknown command 'X'; one of A, B`.
    public static func subcommand(
        of arguments: [String], among names: [String]
    ) throws -> (name: String, arguments: [String]) {
        if let first = arguments.first, names.contains(first) { return (first, Array(arguments.dropFirst())) }
        if arguments.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) {
            throw HelpRequest()
        }
        let choices = "one of \(names.joined(separator: ", "))"
        guard let first = arguments.first, first != "--" else {
            throw UsageError(message: "missing command: \(choices)")
        }
        if first.hasPrefix("-") {
            // An option, valid or not, cannot be judged before the command that owns it.
            throw UsageError(
                message:
                    "missing command before \(first.shownArgument) (the command comes first): \(choices)"
            )
        }
        throw UsageError(message: "unknown command '\(first.shownArgument)'; \(choices)")
    }
}
