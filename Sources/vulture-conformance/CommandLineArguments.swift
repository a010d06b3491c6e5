/// A usage error: the message goes to stderr and the process exits with status 2 (DESIGN §4).
struct UsageError: Error {
    var message: String
}

/// Minimal argument reader for the runner's subcommands: positionals, `--name value` /
/// `--name=value` options (each at most once unless repeatable) and `--flag` switches.
struct CommandLineArguments {
    private(set) var positionals: [String] = []
    private var options: [String: [String]] = [:]
    private var setFlags: Set<String> = []
    private(set) var wantsHelp = false

    /// - Parameters:
    ///   - valueOptions: the option names (without `--`) that take a value.
    ///   - flags: the option names that take none.
    ///   - repeatable: value options that may be given more than once.
    init(
        _ arguments: [String], valueOptions: Set<String>, flags: Set<String> = [], repeatable: Set<String> = []
    ) throws(UsageError) {
        var i = 0
        var onlyPositionals = false
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if onlyPositionals || !arg.hasPrefix("--") || arg == "-" {
                if arg == "-h" && !onlyPositionals { wantsHelp = true } else { positionals.append(arg) }
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
                guard value == nil else { throw UsageError(message: "--\(name) takes no value") }
                setFlags.insert(name)
                continue
            }
            guard valueOptions.contains(name) else { throw UsageError(message: "unknown option --\(name)") }
            if value == nil {
                guard i < arguments.count else { throw UsageError(message: "--\(name) needs a value") }
                value = arguments[i]
                i += 1
            }
            guard options[name] == nil || repeatable.contains(name) else {
                throw UsageError(message: "--\(name) given twice")
            }
            options[name, default: []].append(value!)
        }
    }

    func option(_ name: String) -> String? { options[name]?.first }

    /// Every value of a repeatable option, in order.
    func values(_ name: String) -> [String] { options[name] ?? [] }

    func flag(_ name: String) -> Bool { setFlags.contains(name) }

    func requiredOption(_ name: String) throws(UsageError) -> String {
        guard let value = options[name]?.first else { throw UsageError(message: "missing --\(name)") }
        return value
    }

    /// The positionals, which must be exactly `names.count` long (names are for the message).
    func positionals(_ names: String...) throws(UsageError) -> [String] {
        guard positionals.count == names.count else {
            let expected = names.isEmpty ? "no arguments" : names.joined(separator: " ")
            throw UsageError(message: "expected \(expected), got \(positionals.count) argument(s)")
        }
        return positionals
    }
}
