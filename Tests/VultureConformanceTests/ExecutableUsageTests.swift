import Foundation
import Testing
import VultureChildProcess

/// The package's executables.
enum VultureExecutables {
    static let all = [
        "vulture-conformance", "vulture-reference-testee", "vulture-benchmark", "vulture-goldens",
        "vulture-schema-gen",
    ]
}

/// Every executable's command line through the shared reader (VultureCommandLine): a bad option is
/// a usage error (exit 2, `TOOL[ SUBCOMMAND]: message` and the synopsis on stderr), `--help` prints the
/// usage on stdout with exit 0, and an argument that is not UTF-8 is refused.
@Suite(
    .enabled(
        if: VultureExecutables.all.allSatisfy { ChildProcess.builtExecutable(named: $0) != nil },
        "the executables are not built (swift build builds them)"))
struct ExecutableUsageTests {

    static func run(_ tool: String, _ arguments: [String], in directory: URL? = nil) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try ConformanceCLI.run(arguments, executable: ChildProcess.builtExecutable(named: tool), in: directory)
    }

    /// (tool, arguments, the message's first line).
    @Test(arguments: [
        ("vulture-conformance", ["--bogus"], "vulture-conformance: unknown option --bogus"),
        ("vulture-conformance", ["check", "--bogus", "x"], "vulture-conformance check: unknown option --bogus"),
        (
            "vulture-conformance", ["validate", "--strict=yes", "f"],
            "vulture-conformance validate: --strict takes no value"
        ),
        (
            "vulture-conformance", ["run", "--testee", "t", "--testee=u"],
            "vulture-conformance run: --testee given twice"
        ),
        ("vulture-conformance", ["id", "task", "--bogus"], "vulture-conformance id: unknown option --bogus"),
        (
            "vulture-conformance", ["chek"],
            "vulture-conformance: unknown command 'chek'; one of run, check, validate, id, help"
        ),
        (
            "vulture-conformance", ["run", "--testee", " "],
            "vulture-conformance run: --testee needs a command that starts the testee, not an empty one"
        ),
        ("vulture-simulate", ["--seeds", "0"], "vulture-simulate: --seeds needs at least 1: no seed would be run"),
        ("vulture-reference-testee", ["--bogus"], "vulture-reference-testee: unknown option --bogus"),
        ("vulture-reference-testee", ["x"], "vulture-reference-testee: expected no arguments, got 1 argument(s)"),
        ("vulture-benchmark", ["--bogus"], "vulture-benchmark: unknown option --bogus"),
        (
            "vulture-benchmark", ["json", "jsno"],
            "vulture-benchmark: unknown benchmark jsno; one of json, validate, ids, writes, sync, store, simulate, fuzz"
        ),
        (
            "vulture-sync", ["bogus", "--uid", "u"],
            "vulture-sync: unknown command 'bogus'; one of import, edit, open, delete, push, pull, sync, status, dump"
        ),
        ("vulture-goldens", ["check", "--bogus"], "vulture-goldens check: unknown option --bogus"),
        ("vulture-goldens", ["write", "--root"], "vulture-goldens write: --root needs a value"),
        ("vulture-goldens", [], "vulture-goldens: missing command: one of write, check"),
        ("vulture-schema-gen", ["check", "--bogus"], "vulture-schema-gen check: unknown option --bogus"),
        ("vulture-schema-gen", ["check", "--root=a", "--root=b"], "vulture-schema-gen check: --root given twice"),
        ("vulture-schema-gen", ["gen"], "vulture-schema-gen: unknown command 'gen'; one of generate, check"),
    ])
    func badCommandLineExitsTwoWithTheUsage(tool: String, arguments: [String], message: String) throws {
        let r = try Self.run(tool, arguments)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stdout == "")
        let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == message)
        #expect(lines.dropFirst().first?.hasPrefix("usage: \(tool)") == true, "\(r.stderr)")
        // The synopsis, not the whole help: the message stays in sight.
        let prefix = message.prefix { $0 != ":" }
        #expect(lines.suffix(2) == ["(`\(prefix) --help` prints the whole usage)", ""], "\(r.stderr)")
        #expect(lines.dropFirst().dropLast(2).allSatisfy { !$0.isEmpty }, "\(r.stderr)")
    }

    /// (tool, arguments, a line the usage printed has).
    @Test(arguments: [
        ("vulture-conformance", ["--goldens", "x", "--help"], "usage: vulture-conformance [--goldens DIR]"),
        ("vulture-conformance", ["run", "-h"], "usage: vulture-conformance [--goldens DIR]"),
        ("vulture-conformance", ["check", "x", "--help"], "usage: vulture-conformance check DIR"),
        ("vulture-conformance", ["validate", "--bogus", "--help"], "usage: vulture-conformance validate"),
        ("vulture-conformance", ["help"], "usage: vulture-conformance [OPTIONS]"),
        ("vulture-reference-testee", ["--help"], "usage: vulture-reference-testee"),
        ("vulture-benchmark", ["-h"], "  validate  parse + validate 100,000 flights"),
        ("vulture-goldens", ["--help"], "usage: vulture-goldens write [--root DIR]"),
        (
            "vulture-goldens", ["write", "--root", "/nonexistent", "--help"],
            "usage: vulture-goldens write [--root DIR]"
        ),
        ("vulture-schema-gen", ["-h"], "usage: vulture-schema-gen generate [--root DIR]"),
        ("vulture-schema-gen", ["generate", "--help"], "usage: vulture-schema-gen generate [--root DIR]"),
    ])
    func helpPrintsTheUsageAndExitsZero(tool: String, arguments: [String], line: String) throws {
        let r = try Self.run(tool, arguments)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "")
        #expect(r.stdout.split(separator: "\n").contains { $0.hasPrefix(line) }, "\(r.stdout)")
    }

    /// Swift would repair the byte 0xFF to U+FFFD; every tool refuses it before doing anything.
    @Test(arguments: VultureExecutables.all)
    func argumentThatIsNotUTF8IsAUsageError(tool: String) throws {
        let exe = try #require(ChildProcess.builtExecutable(named: tool))
        let r = try ConformanceCLI.run(
            ["-c", #"exec "$0" check "$(printf 'a\377')""#, exe], executable: "/bin/sh")
        #expect(r.status == 2)
        #expect(r.stdout == "")
        #expect(r.stderr.hasPrefix("\(tool): argument 2 is not UTF-8\nusage: \(tool)"), "\(r.stderr)")
    }

    /// A file that cannot be read is named with the reason in plain words, not a Foundation error
    /// dump: a missing path, a folder where a file is wanted, a file where a folder is.
    @Test func fileErrorsNameThePathAndTheReason() throws {
        let dir = try ConformanceCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("f.json")
        try Data("{}".utf8).write(to: file)
        let missing = dir.appendingPathComponent("absent.json").path
        for (tool, arguments, message) in [
            ("vulture-simulate", ["--check", missing], "vulture-simulate: \(missing): No such file or directory"),
            ("vulture-simulate", ["--check", dir.path], "vulture-simulate: \(dir.path): a folder, not a file"),
            (
                "vulture-simulate", ["--known-failures", missing, "--seeds", "1"],
                "vulture-simulate: \(missing): No such file or directory"
            ),
            (
                "vulture-sync", ["--uid", "u", "--state", file.path, "status"],
                "vulture-sync: \(file.path): a file, not a folder (--state names the device's folder)"
            ),
        ] {
            let r = try Self.run(tool, arguments)
            #expect(r.status == 2, "\(tool) \(arguments): \(r.stderr)")
            #expect(r.stderr == message + "\n", "\(tool) \(arguments)")
        }
        // A scenario that is not JSON: the reader's position after the file's name.
        let empty = dir.appendingPathComponent("empty.json")
        try Data().write(to: empty)
        let r = try Self.run("vulture-simulate", ["--check", empty.path])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("vulture-simulate: \(empty.path):1:1: /: json.syntax: "), "\(r.stderr)")
    }

    /// Both generators take `--root DIR` and `--root=DIR`, run from another folder.
    @Test(arguments: [
        ("vulture-goldens", "goldens are current ("), ("vulture-schema-gen", " generated files are current"),
    ])
    func generatorsTakeTheRootInBothForms(tool: String, current: String) throws {
        let elsewhere = FileManager.default.temporaryDirectory
        let root = ConformanceCLI.packageRoot.path
        for arguments in [["check", "--root", root], ["check", "--root=\(root)"]] {
            let r = try Self.run(tool, arguments, in: elsewhere)
            #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
            #expect(r.stdout.split(separator: "\n").last?.contains(current) == true, "\(r.stdout)")
        }
        let notRoot = try Self.run(tool, ["check"], in: elsewhere)
        #expect(notRoot.status == 2)
        // One line naming the folder, not a missing-file line per table.
        #expect(notRoot.stderr.hasPrefix("\(tool) check: \(elsewhere.standardizedFileURL.path)"), "\(notRoot.stderr)")
        #expect(notRoot.stderr.split(separator: "\n").count == 1 && notRoot.stderr.contains("is not the package root"))
    }

    /// The benchmark's internal child mode (used to read one streaming path's peak memory) still runs.
    @Test func benchmarkChildModePrintsPeakMemory() throws {
        let r = try Self.run("vulture-benchmark", ["ids-child", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        let bytes = try #require(Int(r.stdout.trimmingCharacters(in: .newlines)), "\(r.stdout)")
        #expect(bytes > 0)
    }
}
