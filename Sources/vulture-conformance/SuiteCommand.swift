import Foundation
import VultureCommandLine
import VultureConformance
import VultureReference
import VultureSchemaCore
import VultureSyncSchema
import VultureTesteeProcess

/// The whole suite, against the built-in reference implementation (no arguments) or a testee
/// (`run --testee COMMAND`), with failure list, case selection and reports (README "The conformance runner", Goldens/protocol/README.md).
enum SuiteCommand {
    static let usage = """
        usage: vulture-conformance [--goldens DIR] [--failure-list FILE] [--test ID]… [--only AREA]… [--platform NAME]
                                   [--junit FILE] [--report FILE] [--write-failure-list FILE] [--verbose]
               vulture-conformance run --testee 'COMMAND' [--timeout SECONDS] [same options]

        Without a command, runs every case against the built-in reference implementation.
        `run` starts COMMAND once (through /bin/sh -c) and drives it over the testee protocol
        (Goldens/protocol/README.md): a crashed testee is restarted, each case has a timeout
        (default 10 s), and after 3 timeouts in a row the remaining cases fail without waiting.

          --goldens DIR              the goldens to run (default: the goldens built into the runner)
          --failure-list FILE        case ids expected to fail, one per line; stale or unknown entries fail the run
          --test ID                  run only this case (repeatable)
          --only AREA                run only the cases of an area and the areas under it (repeatable): ids,
                                     ids.homebase, blobs, schema, schema.flights, settings, … (the protocol page lists them)
          --platform NAME            run only the cases a NAME writer can answer (android or ios): cases whose
                                     fixture names another platform's writer are left out
          --junit FILE               write JUnit XML (valid XML on every exit)
          --report FILE              write a JSON report (canonical JSON) with expected and actual values
          --write-failure-list FILE  write the failure list that makes this run's selection pass: every case that failed
          --verbose                  print every case as it runs; a failure is printed there, once
        The folders of the --junit, --report and --write-failure-list files are made when missing.

        A required case the testee skips fails unless the failure list names it; a recommended.* case
        (one resting on a pinned choice or an open question) fails without failing the run.
        Exit status: 0 all required cases pass or are listed, and the list is exact; 1 conformance
        failures; 2 usage or I/O error. The last line is `N passed, N failed[, N skipped]`.
        """

    /// The options that choose cases: `--test`, `--only`, `--platform`.
    struct Selection {
        var tests: [String]
        var areas: [String]
        var platform: String?

        init(_ args: CommandLineArguments, suite: GoldenSuite) throws {
            tests = args.values("test")
            areas = args.values("only")
            platform = args.option("platform")
            let known = Set(suite.cases.map(\.id))
            if let unknown = tests.first(where: { !known.contains($0) }) {
                let near = suite.cases.map(\.id).filter { $0.hasPrefix(unknown) || unknown.hasPrefix($0) }.prefix(5)
                throw UsageError(
                    message: "no case \(unknown.shownArgument)"
                        + (near.isEmpty ? "" : "; cases near it: \(near.joined(separator: ", "))"))
            }
            for area in areas where !suite.cases.contains(where: { $0.isIn(area: area) }) {
                var all: [String] = []
                for c in suite.cases {
                    let parts = c.area.split(separator: ".")
                    for n in 1...parts.count {
                        let a = parts.prefix(n).joined(separator: ".")
                        if !all.contains(a) { all.append(a) }
                    }
                }
                throw UsageError(
                    message: "no case in area \(area.shownArgument); areas: \(all.joined(separator: ", "))")
            }
            if let platform, Platform(rawValue: platform) == nil {
                throw UsageError(
                    message:
                        "--platform is \(Platform.allCases.map(\.rawValue).joined(separator: " or ")), not \(platform.shownArgument)"
                )
            }
        }

        /// The ids of the selected cases, or nil when every case runs.
        func ids(of cases: [ConformanceCase]) -> Set<String>? {
            guard !tests.isEmpty || !areas.isEmpty || platform != nil else { return nil }
            return Set(
                cases.filter { c in
                    (tests.isEmpty || tests.contains(c.id)) && (areas.isEmpty || areas.contains { c.isIn(area: $0) })
                        && (platform == nil || c.writerPlatform == nil || c.writerPlatform == platform)
                }.map(\.id))
        }
    }

    static func run(_ arguments: [String], testee: Bool) throws -> Int32 {
        var valueOptions: Set<String> = [
            "goldens", "failure-list", "test", "only", "platform", "junit", "report", "write-failure-list",
        ]
        if testee { valueOptions.formUnion(["testee", "timeout"]) }
        let args = try CommandLineArguments(
            arguments, valueOptions: valueOptions, flags: ["verbose"], repeatable: ["test", "only"])
        _ = try args.positionals()
        let suite = try loadSuite(args.option("goldens"))
        let failureList = try loadFailureList(args)
        let only = try Selection(args, suite: suite).ids(of: suite.cases)
        let timeout: Double? =
            testee
            ? try args.option("timeout").map { text throws(UsageError) in
                guard let t = Double(text), t > 0, t <= TesteeProcess.maximumTimeout else {
                    throw UsageError(message: "--timeout takes seconds, more than 0 and at most 86400")
                }
                return t
            } ?? 10 : nil
        let command = testee ? try args.requiredOption("testee") : nil
        if let command, command.allSatisfy(\.isWhitespace) {
            throw UsageError(message: "--testee needs a command that starts the testee, not an empty one")
        }
        try prepareReports(args, suiteVersion: suite.version)
        let verbose = args.flag("verbose")
        let progress: (CaseResult) -> Void = { r in
            guard verbose else { return }
            switch r.outcome {
            case .passed: print("pass \(r.id)")
            case .failed(let m, _) where failureList?.entries[r.id] != nil:
                print("fail \(r.id) (expected: listed in \(failureList?.file ?? "the failure list")): \(m)")
            case .failed:
                for line in ConformanceRunner.failureLines(r) { print(line) }
            case .skipped(let reason): print("skip \(r.id): \(reason)")
            }
        }
        let outcome: ConformanceRun
        if let command, let timeout {
            var process = TesteeProcess(command: command, timeout: timeout, suiteVersion: suite.version)
            do {
                try process.start()
            } catch {
                try writeNotRun("\(error)", args: args, suiteVersion: suite.version)
                throw error
            }
            print(
                "vulture-conformance \(suite.version): \(Self.cases(only?.count ?? suite.cases.count)) against \(process.implementation ?? command)"
            )
            outcome = ConformanceRunner.run(
                suite.cases, on: &process, failureList: failureList, only: only, progress: progress)
            process.stop()
        } else {
            var reference = ReferenceImplementation(schema: .vulture)
            print(
                "vulture-conformance \(suite.version): \(Self.cases(only?.count ?? suite.cases.count)) against the reference implementation"
            )
            outcome = ConformanceRunner.run(
                suite.cases, on: &reference, failureList: failureList, only: only, progress: progress)
        }
        try writeReports(outcome, args: args, suiteVersion: suite.version)
        try writeFailureList(outcome, args: args, suiteVersion: suite.version)
        for line in ConformanceRunner.report(outcome, failureList: failureList, includeFailures: !verbose) {
            print(line)
        }
        return outcome.exitStatus
    }

    static func loadSuite(_ path: String?) throws -> GoldenSuite {
        let root = path.map { URL(fileURLWithPath: $0) } ?? GoldenSuite.defaultRoot
        do {
            return try GoldenSuite.load(from: root)
        } catch {
            // The folder as given (`--goldens g3`), shortened: the error names what is wrong inside it.
            throw IOFailure(message: "cannot read the goldens at \((path ?? root.path).shownArgument): \(error)")
        }
    }

    static func writeReports(_ run: ConformanceRun, args: CommandLineArguments, suiteVersion: String) throws {
        if let path = args.option("junit") {
            let xml = RunReport.junitXML(run.results, reconciliation: run.reconciliation, suiteVersion: suiteVersion)
            try write(xml, to: path)
        }
        if let path = args.option("report") {
            try write(
                RunReport.json(
                    run.results, summary: run.summary, reconciliation: run.reconciliation, suiteVersion: suiteVersion),
                to: path)
        }
    }

    /// `--write-failure-list FILE`: the list naming every case of this run that failed.
    static func writeFailureList(_ run: ConformanceRun, args: CommandLineArguments, suiteVersion: String) throws {
        guard let path = args.option("write-failure-list") else { return }
        let failed = run.results.filter { $0.outcome.isFailed }.count
        try write(
            FailureList.text(
                for: run,
                header: [
                    "Failure list written by vulture-conformance \(suiteVersion) (--write-failure-list): the \(failed) case(s)",
                    "that failed in this run. Give it back with --failure-list; a listed case that passes later fails the run.",
                ]), to: path)
        print("wrote \(path): \(failed) case(s)")
    }

    static func write(_ text: String, to path: String) throws {
        do {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw IOFailure(message: "cannot make the folder for \(path.shownArgument): \(systemReason(of: error))")
        }
        do {
            try FileContents.write(Array(text.utf8), toPath: path)
        } catch {
            throw IOFailure(message: "\(error)")
        }
    }

    /// The `--failure-list` file, read; an unreadable or malformed list is an I/O error (exit 2).
    static func loadFailureList(_ args: CommandLineArguments) throws -> FailureList? {
        try args.option("failure-list").map { path in
            do { return try FailureList.load(path: path) } catch { throw IOFailure(message: "\(error)") }
        }
    }

    /// Fails before a run, not after it, when a report cannot be written: makes the folders and writes
    /// a valid report saying the run did not finish, which the finished run replaces.
    static func prepareReports(_ args: CommandLineArguments, suiteVersion: String) throws {
        for option in ["junit", "report", "write-failure-list"] {
            guard let path = args.option(option) else { continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                throw IOFailure(message: "--\(option) \(path.shownArgument) is a directory; give a file path")
            }
        }
        try writeNotRun("the run did not finish", args: args, suiteVersion: suiteVersion)
        if let path = args.option("write-failure-list") {
            try write("# the run did not finish: no failure list was written\n", to: path)
        }
    }

    /// Reports for a run that did not get to its cases: valid JUnit XML and JSON naming the reason.
    static func writeNotRun(_ reason: String, args: CommandLineArguments, suiteVersion: String) throws {
        if let path = args.option("junit") {
            try write(RunReport.junitXML(notRun: reason, suiteVersion: suiteVersion), to: path)
        }
        if let path = args.option("report") {
            try write(RunReport.json(notRun: reason, suiteVersion: suiteVersion), to: path)
        }
    }

    /// `1 case`, `381 cases`.
    static func cases(_ n: Int) -> String { n == 1 ? "1 case" : "\(n) cases" }
}

/// An input or output file could not be read or written: exit status 2.
struct IOFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
