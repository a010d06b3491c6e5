import Testing
import VultureCommandLine

/// The argument grammar every executable shares: each accepted form and each usage error's exact words.
struct CommandLineArgumentsTests {
    static let options: Set<String> = ["goldens", "test", "report"]

    static func read(_ arguments: [String]) throws -> CommandLineArguments {
        try CommandLineArguments(arguments, valueOptions: options, flags: ["verbose"], repeatable: ["test"])
    }

    @Test func valuesInBothFormsFlagsAndPositionalsInOrder() throws {
        let args = try Self.read(["a", "--goldens", "G", "--report=r.json", "-", "--verbose", "-5", "b"])
        #expect(args.option("goldens") == "G")
        #expect(args.option("report") == "r.json")
        #expect(args.flag("verbose"))
        #expect(args.positionals == ["a", "-", "-5", "b"])
        #expect(try args.positionals("A", "B", "C", "D") == ["a", "-", "-5", "b"])
        #expect(args.option("test") == nil)
        #expect(args.values("test") == [])
        #expect(!(try Self.read([])).flag("verbose"))
    }

    /// The value after `--name` is taken whatever it looks like; after `=` it may be empty or hold `=`.
    @Test func valueIsTheNextArgumentOrAllAfterTheFirstEquals() throws {
        let args = try Self.read(["--goldens", "--help", "--report=a=b"])
        #expect(args.option("goldens") == "--help")
        #expect(args.option("report") == "a=b")
        #expect(try Self.read(["--report="]).option("report") == "")
    }

    @Test func repeatableOptionKeepsEveryValueInOrder() throws {
        let args = try Self.read(["--test", "a.b", "--test=c.d", "--test", "e"])
        #expect(args.values("test") == ["a.b", "c.d", "e"])
        #expect(args.option("test") == "a.b")
    }

    @Test func doubleDashEndsTheOptions() throws {
        let args = try Self.read(["--verbose", "--", "--goldens", "-h", "--help", "--"])
        #expect(args.flag("verbose"))
        #expect(args.option("goldens") == nil)
        #expect(args.positionals == ["--goldens", "-h", "--help", "--"])
        #expect(try Self.read(["--"]).positionals == [])
    }

    @Test(arguments: [
        (["--verbose=yes"], "--verbose takes no value"),
        (["--verbose="], "--verbose takes no value"),
        (["--goldens"], "--goldens needs a value"),
        (["a", "--report"], "--report needs a value"),
        (["--bogus"], "unknown option --bogus"),
        (["--bogus=1"], "unknown option --bogus"),
        (["--goldens", "a", "--goldens=b"], "--goldens given twice"),
        (["--bogus", "--goldens"], "unknown option --bogus"),
        (["--goldens", "a", "--goldens", "b", "--bogus"], "--goldens given twice"),
    ])
    func usageErrorsNameTheOption(arguments: [String], message: String) throws {
        #expect(throws: UsageError(message: message)) { try Self.read(arguments) }
    }

    /// `--help` or `-h` before `--` asks for help, and wins over any other problem on the line.
    @Test(arguments: [
        ["--help"], ["-h"], ["a", "--bogus", "-h"], ["--verbose=1", "--help"], ["--help", "--goldens"],
    ])
    func helpWinsOverEveryOtherProblem(arguments: [String]) throws {
        #expect(throws: HelpRequest()) { try Self.read(arguments) }
    }

    @Test func positionalCountAndRequiredOption() throws {
        let two = try Self.read(["a", "b"])
        #expect(throws: UsageError(message: "expected DIR, got 2 argument(s)")) { try two.positionals("DIR") }
        #expect(throws: UsageError(message: "expected no arguments, got 2 argument(s)")) { try two.positionals() }
        #expect(throws: UsageError(message: "expected NAME ID, got 0 argument(s)")) {
            try Self.read([]).positionals("NAME", "ID")
        }
        // A short option is an unknown option, not a file; `-` and `-5` are values; after `--`, `-x` is one.
        #expect(throws: UsageError(message: "unknown option -x")) { try Self.read(["-x"]) }
        #expect(throws: UsageError(message: "unknown option -x")) { try Self.read(["f", "-x"]) }
        #expect(throws: UsageError(message: "expected no arguments, got 2 argument(s)")) {
            try Self.read(["-", "-5"]).positionals()
        }
        #expect(try Self.read(["-"]).positionals("FILE") == ["-"])
        #expect(try Self.read(["--", "-x"]).positionals("NAME") == ["-x"])
        #expect(throws: UsageError(message: "--verbose given twice")) { try Self.read(["--verbose", "--verbose"]) }
        #expect(throws: UsageError(message: "missing --goldens")) { try two.requiredOption("goldens") }
        #expect(try Self.read(["--goldens=g"]).requiredOption("goldens") == "g")
    }

    @Test func subcommandIsTheFirstArgument() throws {
        let names = ["write", "check"]
        let split = try CommandLineArguments.subcommand(of: ["check", "--root", "x", "--help"], among: names)
        #expect(split.name == "check")
        #expect(split.arguments == ["--root", "x", "--help"])
        #expect(throws: UsageError(message: "missing command: one of write, check")) {
            try CommandLineArguments.subcommand(of: [], among: names)
        }
        #expect(throws: UsageError(message: "missing command: one of write, check")) {
            try CommandLineArguments.subcommand(of: ["--", "write"], among: names)
        }
        #expect(
            throws: UsageError(message: "missing command before --root (the command comes first): one of write, check")
        ) {
            try CommandLineArguments.subcommand(of: ["--root", "x", "write"], among: names)
        }
        #expect(
            throws: UsageError(message: "missing command before --bogus (the command comes first): one of write, check")
        ) {
            try CommandLineArguments.subcommand(of: ["--bogus"], among: names)
        }
        #expect(throws: UsageError(message: "unknown command 'wirte'; one of write, check")) {
            try CommandLineArguments.subcommand(of: ["wirte"], among: names)
        }
        #expect(throws: UsageError(message: "unknown command 'wirte'; one of write, check")) {
            try CommandLineArguments.subcommand(of: ["wirte", "--", "--help"], among: names)
        }
        for arguments in [["--help"], ["-h"], ["--root", "x", "--help"], ["wirte", "-h"]] {
            #expect(throws: HelpRequest()) { try CommandLineArguments.subcommand(of: arguments, among: names) }
        }
    }

    /// An argument longer than 100 scalars is shown as its first 100 and its length, not whole.
    @Test func aLongArgumentIsShownAsAnExcerpt() throws {
        let long = String(repeating: "é", count: 10_000)
        let shown = String(repeating: "é", count: 100) + "… (10000 characters)"
        #expect(throws: UsageError(message: "unknown option --\(shown)")) { try Self.read(["--" + long]) }
        #expect(throws: UsageError(message: "unknown option --\(shown)")) { try Self.read(["--\(long)=1"]) }
        let names = ["write", "check"]
        #expect(throws: UsageError(message: "unknown command '\(shown)'; one of write, check")) {
            try CommandLineArguments.subcommand(of: [long], among: names)
        }
        let option = "--" + String(repeating: "é", count: 98)
        #expect(
            throws: UsageError(
                message:
                    "missing command before \(option)… (10000 characters) (the command comes first): one of write, check"
            )
        ) {
            try CommandLineArguments.subcommand(of: ["--" + String(repeating: "é", count: 9_998)], among: names)
        }
        // At the limit, whole.
        let hundred = String(repeating: "x", count: 100)
        #expect(throws: UsageError(message: "unknown command '\(hundred)'; one of write, check")) {
            try CommandLineArguments.subcommand(of: [hundred], among: names)
        }
    }
}
