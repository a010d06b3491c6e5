import Foundation
import VultureCommandLine
import VultureConformance
import VultureSyncSchema
import VultureTesteeProcess

/// The whole suite, against the built-in reference implementation (no arguments) or a testee
/// (`run --testee COMMAND`), with failure list, case selection and reports (README "The conformance runner", Goldens/protocol/README.md).
enum SuiteCommand {
    static let usage = """
        usage: vulture-conformance [--goldens DIR] [--failure-list FILE] [--test ID]… [--junit FILE] [--report FILE] [--verbose]
               vulture-conformance run --testee 'COMMAND' [--timeout SECONDS] [same options]

        Without a command, runs every case against the built-in reference implementation.
        `run` starts COMMAND once (through /bin/sh -c) and drives it over the testee protocol
        (Goldens/protocol/README.md): a crashed testee is restarted, each case has a timeout
        (default 10 s), and after 3 timeouts in a row the remaining cases fail without waiting.

          --goldens DIR        the goldens to run (default: the goldens built into the runner)
          --failure-list FILE  case ids expected to fail, one per line; stale or unknown entries fail the run
          --test ID            run only this case (repeatable)
          --junit FILE         write JUnit XML
          --report FILE        write a JSON report (canonical JSON)
          --verbose            print every case's outcome, not only failures

        A required case the testee skips fails unless the failure list names it.
        Exit status: 0 all required cases pass or are listed, and the list is exact; 1 conformance
        failures; 2 usage or I/O error. The last line is `N passed, N failed[, N skipped]`.
        """

    static func run(_ arguments: [String], testee: Bool) throws -> Int32 {
        var valueOptions: Set<String> = ["goldens", "failure-list", "test", "junit", "report"]
        if testee { valueOptions.formUnion(["testee", "timeout"]) }
        let args = try CommandLineArguments(
            arguments, valueOptions: valueOptions, flags: ["verbose"], repeatable: ["test"])
        _ = try args.positionals()
        let suite = try loadSuite(args.option("goldens"))
        let failureList = try loadFailureList(args)
        try checkReportPaths(args)
        let selected = args.values("test")
        let known = Set(suite.cases.map(\.id))
        if let unknown = selected.first(where: { !known.contains($0) }) {
            let near = suite.cases.map(\.id).filter { $0.hasPrefix(unknown) || unknown.hasPrefix($0) }.prefix(5)
            throw UsageError(
                message: "no case \(unknown)" + (near.isEmpty ? "" : "; cases near it: \(near.joined(separator: ", "))")
            )
        }
        let only = selected.isEmpty ? nil : Set(selected)
        let verbose = args.flag("verbose")
        let progress: (CaseResult) -> Void = { r in
            guard verbose else { return }
            switch r.outcome {
            case .passed: print("pass \(r.id)")
            case .failed(let m, _): print("FAIL \(r.id): \(m)")
            case .skipped(let reason): print("skip \(r.id): \(reason)")
            }
        }
        let outcome: ConformanceRun
        if testee {
            let command = try args.requiredOption("testee")
            let timeout =
                try args.option("timeout").map { text throws(UsageError) in
                    guard let t = Double(text), t > 0, t <= TesteeProcess.maximumTimeout else {
                        throw UsageError(message: "--timeout takes seconds, more than 0 and at most 86400")
                    }
                    return t
                } ?? 10
            var process = TesteeProcess(command: command, timeout: timeout, suiteVersion: suite.version)
            try process.start()
            print(
                "vulture-conformance \(suite.version): \(only?.count ?? suite.cases.count) cases against \(process.implementation ?? command)"
            )
            outcome = ConformanceRunner.run(
                suite.cases, on: &process, failureList: failureList, only: only, progress: progress)
            process.stop()
        } else {
            var reference = ReferenceImplementation(schema: .vulture)
            print(
                "vulture-conformance \(suite.version): \(only?.count ?? suite.cases.count) cases against the reference implementation"
            )
            outcome = ConformanceRunner.run(
                suite.cases, on: &reference, failureList: failureList, only: only, progress: progress)
        }
        try writeReports(outcome, args: args, suiteVersion: suite.version)
        for line in ConformanceRunner.report(outcome, failureList: failureList) { print(line) }
        return outcome.exitStatus
    }

    static func loadSuite(_ path: String?) throws -> GoldenSuite {
        let root = path.map { URL(fileURLWithPath: $0) } ?? GoldenSuite.defaultRoot
        do {
            return try GoldenSuite.load(from: root)
        } catch {
            throw IOFailure(message: "cannot read the goldens at \(root.path): \(error)")
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

    static func write(_ text: String, to path: String) throws {
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

    /// Fails before a run, not after it, when a report cannot be written.
    static func checkReportPaths(_ args: CommandLineArguments) throws {
        for option in ["junit", "report"] {
            guard let path = args.option(option) else { continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                throw IOFailure(message: "--\(option) \(path) is a directory; give a file path")
            }
            try write("", to: path)
        }
    }
}

/// An input or output file could not be read or written: exit status 2.
struct IOFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
