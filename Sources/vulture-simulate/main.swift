import Foundation
import VultureCommandLine
import VultureEmulators
import VultureFirestore
import VultureScenarios
import VultureSchemaCore
import VultureSimulation
import VultureSyncEngine
import VultureSyncSchema
import VultureSyncTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

let bugs = InjectedBug.allCases.map(\.rawValue).joined(separator: ", ")
let cores = ProcessInfo.processInfo.activeProcessorCount
/// The most random steps a run takes (`--steps`).
let maximumSteps = 10_000
let usage = """
    usage: vulture-simulate [--seeds N] [--start-seed S] [--jobs J] [--steps K] [--devices D] [--inject NAME]
                            [--sdk-surface] [--shrink] [--write-scenario DIR] [--print-hashes]
                            [--known-failures FILE] [BACKEND]
           vulture-simulate --replay SEED [--steps K] [--devices D] [--inject NAME] [--sdk-surface] [--shrink]
                            [--trace] [--write-scenario DIR] [BACKEND]
           vulture-simulate --check SCENARIO.json [--inject NAME]
    BACKEND: --backend memory (the default) | --backend emulator [--emulator HOST:PORT]
             [--storage-emulator HOST:PORT] [--rules FILE]

    Runs seeded multi-device worlds against the reference sync engine: 2–4 devices with
    skewed clocks, random imports, edits, opens, deletes, settings, tasks, map files and syncs, and
    faults (refused commits, lost answers, failing pages and uploads, crashes, quota errors, the
    storage cap, a season offline). Every invariant is checked after every step and at the quiet end.
    One seed replays everything.

      --backend memory   the in-memory Firestore and Cloud Storage (deterministic: a seed gives the
                         same trace hash on every run)
      --backend emulator the Firestore emulator and fake-gcs-server, each run in an emulator project
                         and a bucket of its own, the devices signed in as the user with the security
                         rules loaded; both are started on free loopback ports and stopped at the end,
                         unless given: --emulator HOST:PORT (a running Firestore emulator),
                         --storage-emulator HOST:PORT (a running fake-gcs-server), each asked once
                         before the first seed (no answer: exit status 2). Faults are injected
                         on the client side; server timestamps are real, so the trace hash varies.
      --rules FILE       the rules loaded for each run (default Goldens/firestore.rules)

      --seeds N          how many seeds to run (default 1000), from --start-seed (default 1); a seed
                         is 0 to \(UInt64.max), and the last one must not pass it
      --jobs J           seeds run at once on worker threads (default: the active processors, \(cores)
                         here); the output is the same for every J: each seed runs alone in its own
                         world and is reported in seed order
      --print-hashes     print `seed S trace HASH` for every seed, in seed order
      --known-failures FILE  seeds known to break an invariant, one `SEED INVARIANT` a line (`#` starts a
                         comment): such a run is printed as known and does not fail the batch; a listed
                         seed in the batch that keeps every invariant, or breaks another, does
      --steps K          random steps per run before the quiet end (default 80, at most 10000)
      --devices D        devices per run, 2 to 4 (default: the seed picks)
      --inject NAME      run the engines with a seeded bug: \(bugs)
      --sdk-surface      the engines reach Firestore through the Firebase client SDKs' surface alone
                         (snapshots without times, batches without preconditions, transactions): every
                         version check goes through a transaction
      --replay SEED      run one seed (0 to \(UInt64.max)) and print what failed (--trace prints
                         every step)
      --shrink           shrink a failing run to fewer decisions that still break the same invariant
      --write-scenario DIR  write each failing run (shrunk with --shrink) as a scenario file in DIR
                         (made before the first seed: exit status 2 if it cannot be; a file that
                         cannot be written is named, the batch goes on, and the exit status is 2)
      --check FILE       replay a scenario file written by --write-scenario with every invariant checked
                         (--inject alone applies: in memory, over the whole Firestore API)
    An option the chosen mode (batch, --replay, --check) does not list above is a usage error.

    On standard error, a progress line while running and the speed at the end (`1000 seeds in 18.5 s:
    54.1 seeds/s with 2 jobs, 28.9 seeds per CPU second`); on standard output, a failure's seed, its
    step (numbered as --replay SEED --trace numbers them), the broken invariant and, shrunk, its
    steps, then `N passed, N failed` (and `, N known` with
    --known-failures). Exit status: 0 every run kept every invariant (or broke the one listed for
    it), 1 a run broke one, or a listed seed did not, 2 usage or I/O error.
    """

let tool = CommandLineTool(name: "vulture-simulate", usage: usage)
tool.run { arguments in
    let args = try CommandLineArguments(
        arguments,
        valueOptions: [
            "seeds", "start-seed", "steps", "devices", "inject", "replay", "write-scenario", "check", "backend",
            "emulator", "storage-emulator", "rules", "jobs", "known-failures",
        ],
        flags: ["shrink", "trace", "print-hashes", "sdk-surface"])
    _ = try args.positionals()
    // An option the chosen mode does not take is refused, not ignored (the synopsis lists each mode's).
    func given(_ name: String) -> Bool { args.option(name) != nil || args.flag(name) }
    let batchOnly = ["seeds", "start-seed", "jobs", "print-hashes", "known-failures"]
    let runOnly = ["steps", "devices", "sdk-surface", "shrink", "write-scenario"]
    let (mode, notApplying) =
        given("check")
        ? ("--check", ["replay", "trace"] + batchOnly + runOnly)
        : given("replay") ? ("--replay", batchOnly) : ("a batch of seeds", ["trace"])
    for name in notApplying where given(name) {
        throw UsageError(message: "--\(name) does not apply to \(mode)")
    }
    func integer(_ name: String, _ fallback: Int) throws -> Int {
        guard let text = args.option(name) else { return fallback }
        guard let n = Int(text), n >= 0 else {
            throw UsageError(message: "--\(name) needs a whole number, not \(text.shownArgument)")
        }
        return n
    }
    let steps = try integer("steps", 80)
    // A run's world grows with its steps; past this bound one seed would run for hours with no line.
    guard steps <= maximumSteps else {
        throw UsageError(message: "--steps is at most \(maximumSteps), not \(steps)")
    }
    let jobs = try integer("jobs", cores)
    guard jobs >= 1 else { throw UsageError(message: "--jobs needs at least 1") }
    var devices: Int?
    if args.option("devices") != nil {
        let d = try integer("devices", 0)
        guard (2...4).contains(d) else { throw UsageError(message: "--devices is 2, 3 or 4, not \(d)") }
        devices = d
    }
    var bug: InjectedBug?
    if let name = args.option("inject") {
        guard let b = InjectedBug(rawValue: name) else {
            throw UsageError(message: "no bug \(name.shownArgument); one of: \(bugs)")
        }
        bug = b
    }
    let scenarioDirectory = args.option("write-scenario").map { URL(fileURLWithPath: $0) }
    if args.option("backend") == "emulator", args.flag("shrink") {
        throw UsageError(message: "--shrink runs in memory: replay the seed with --backend memory --shrink")
    }
    if args.option("backend") == "emulator", args.option("check") != nil {
        throw UsageError(message: "--check replays in memory: leave out --backend emulator")
    }
    // The emulators start (or given ones are probed) after every usage check of the mode.
    var servers: EmulatorServers?
    defer { servers?.stop() }
    func connect() throws -> (@Sendable (SimulationOptions) throws -> SimulationBackend)? {
        servers = try EmulatorServers(args)
        guard let servers else { return nil }
        return { options in try servers.backend(seed: options.seed) }
    }

    /// Makes the --write-scenario folder before the first seed, so a path that cannot be one stops
    /// the run at once rather than at the first failure, mid-batch.
    func makeScenarioFolder() throws {
        guard let dir = scenarioDirectory else { return }
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        } catch {
            var isFolder: ObjCBool = false
            let reason =
                FileManager.default.fileExists(atPath: dir.path, isDirectory: &isFolder) && !isFolder.boolValue
                ? "a file, not a folder" : systemReason(of: error)
            throw InputError(
                description: "--write-scenario \(dir.path.shownArgument): cannot make the folder: \(reason)")
        }
    }

    /// Failing runs whose --write-scenario file could not be written (exit status 2 at the end).
    var unwrittenScenarios = 0
    func report(_ outcome: SimulationOutcome) {
        guard let failure = outcome.failure else { return }
        print("seed \(outcome.options.seed): step \(failure.step): \(failure.violation)")
        var shown = outcome
        if args.flag("shrink") {
            shown = Shrinker.shrink(outcome)
            print(
                "  shrunk from \(outcome.choices.count) decisions and \(outcome.steps.count) steps to "
                    + "\(shown.choices.count) decisions and \(shown.steps.count) steps:")
            for line in shown.trace { print("    " + line) }
            if let f = shown.failure { print("  still: \(f.violation)") }
        }
        if let dir = scenarioDirectory {
            let url = dir.appendingPathComponent("simulation-seed-\(outcome.options.seed).json")
            do {
                try FileContents.write(shown.scenarioBytes(), toPath: url.path)
                print("  scenario: \(url.path)")
            } catch {
                // The batch goes on to its summary; the exit status says a file is missing.
                unwrittenScenarios += 1
                printError("vulture-simulate: \(error)")
            }
        }
    }

    if let path = args.option("check") {
        _ = try connect()  // memory alone: checks the --backend options
        // Unreadable or malformed: reported under the tool's name, exit status 2.
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let scenario = try Scenario(CanonicalJSON.decode(Array(data), file: path), file: path)
        if let (step, violation) = try Simulation.check(scenario, injectedBug: bug) {
            print("\(path): step \(step): \(violation)")
            return 1
        }
        print("\(path): every invariant held over \(scenario.steps.count) steps")
        return 0
    }
    /// A seed option: 0 to UInt64.max, the same range for --replay and --start-seed.
    func seed(_ name: String) throws -> UInt64? {
        guard let text = args.option(name) else { return nil }
        guard let seed = UInt64(text) else {
            throw UsageError(message: "--\(name) needs a seed (0 to \(UInt64.max)), not \(text.shownArgument)")
        }
        return seed
    }
    if let seed = try seed("replay") {
        let options = SimulationOptions(
            seed: seed, steps: steps, injectedBug: bug, devices: devices, sdkSurface: args.flag("sdk-surface"))
        try makeScenarioFolder()
        let backend = try connect()
        guard let outcome = SimulationBatch.run([options], backend: backend).first else { return 2 }
        if args.flag("trace") { for line in outcome.trace { print(line) } }
        print("trace \(outcome.traceHash)")
        report(outcome)
        print(outcome.failure == nil ? "1 passed, 0 failed" : "0 passed, 1 failed")
        return unwrittenScenarios > 0 ? 2 : outcome.failure == nil ? 0 : 1
    }
    let count = try integer("seeds", 1000)
    guard count >= 1 else { throw UsageError(message: "--seeds needs at least 1: no seed would be run") }
    let start = try seed("start-seed") ?? 1
    // The last seed is start + count - 1: it must not pass UInt64.max.
    guard UInt64(count - 1) <= UInt64.max - start else {
        throw UsageError(
            message: "--start-seed \(start) with --seeds \(count) runs past the last seed, \(UInt64.max)")
    }
    let printHashes = args.flag("print-hashes")
    let knownPath = args.option("known-failures")
    let known = try knownPath.map(KnownFailures.read) ?? [:]
    try makeScenarioFolder()
    let backend = try connect()
    var failed = 0
    var knownFailed = 0
    let interactive = isatty(STDERR_FILENO) != 0
    // Runs are independent: `jobs` worker threads run the seeds, reported here in seed order.
    var done = 0
    let clock = ContinuousClock()
    let began = clock.now
    let cpuBefore = processCPUSeconds()
    SimulationBatch.run(
        SimulationSeeds(
            start: start, count: count,
            template: SimulationOptions(
                seed: start, steps: steps, injectedBug: bug, devices: devices, sdkSurface: args.flag("sdk-surface"))),
        jobs: jobs, backend: backend
    ) { outcome in
        if interactive { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        if printHashes { print("seed \(outcome.options.seed) trace \(outcome.traceHash)") }
        let seed = outcome.options.seed
        if let failure = outcome.failure, known[seed] == failure.violation.invariant {
            knownFailed += 1
            print("seed \(seed): known (\(knownPath ?? "")): step \(failure.step): \(failure.violation)")
        } else if let listed = known[seed] {
            failed += 1
            print(
                "seed \(seed): listed in \(knownPath ?? "") as breaking \(listed.rawValue), but "
                    + (outcome.failure == nil ? "it kept every invariant: take it off the list" : "it broke another:"))
            report(outcome)
        } else if outcome.failure != nil {
            failed += 1
            report(outcome)
        }
        done += 1
        if interactive || done % 100 == 0 || done == count {
            let line = "\(done)/\(count) seeds, \(failed) failed"
            FileHandle.standardError.write(Data((interactive ? "\r\(line)" : line + "\n").utf8))
        }
    }
    if interactive { FileHandle.standardError.write(Data("\n".utf8)) }
    let elapsed = (clock.now - began) / .seconds(1)
    let cpu = processCPUSeconds() - cpuBefore
    let workers = min(jobs, count)  // the batch starts no more workers than seeds
    FileHandle.standardError.write(
        Data(
            ("\(count) seeds in \(String(format: "%.1f", elapsed)) s: \(rate(count, elapsed)) seeds/s with \(workers) "
                + "job\(workers == 1 ? "" : "s"), \(rate(count, cpu)) seeds per CPU second\n").utf8))
    print(
        "\(count - failed - knownFailed) passed, \(failed) failed" + (knownPath == nil ? "" : ", \(knownFailed) known"))
    return unwrittenScenarios > 0 ? 2 : failed == 0 ? 0 : 1
}

/// A file or folder the run cannot use: reported as `vulture-simulate: description`, exit status 2.
struct InputError: Error, CustomStringConvertible {
    var description: String
}

/// `--known-failures FILE`: seeds known to break an invariant, one `SEED INVARIANT` a line, `#` to
/// the end of a line a comment.
enum KnownFailures {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// The seeds and the invariant each breaks.
    /// - Throws: ``Malformed`` naming `path:line` for a line that is not a seed and an invariant, or a
    ///   seed listed twice, or a file that is not UTF-8 text; the file's read error when it cannot
    ///   be read.
    static func read(_ path: String) throws -> [UInt64: Invariant] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let text = String(data: data, encoding: .utf8) else {
            throw Malformed(description: "\(path.shownArgument): not UTF-8 text: the list is `SEED INVARIANT` lines")
        }
        var out: [UInt64: Invariant] = [:]
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if words.isEmpty { continue }
            let invariants = Invariant.allCases.map(\.rawValue).joined(separator: ", ")
            guard words.count == 2, let seed = UInt64(words[0]), let invariant = Invariant(rawValue: String(words[1]))
            else {
                throw Malformed(
                    description:
                        "\(path.shownArgument):\(index + 1): `SEED INVARIANT` expected (an invariant is one of \(invariants))"
                )
            }
            guard out[seed] == nil else {
                throw Malformed(description: "\(path.shownArgument):\(index + 1): seed \(seed) twice")
            }
            out[seed] = invariant
        }
        return out
    }
}

/// `n` per `seconds`, to three significant figures (0 when no time passed).
func rate(_ n: Int, _ seconds: Double) -> String {
    guard seconds > 0 else { return "0" }
    let r = Double(n) / seconds
    return r >= 100 ? String(format: "%.0f", r) : String(format: r >= 10 ? "%.1f" : "%.2f", r)
}

/// User and system CPU seconds of this process, every thread.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return s(usage.ru_utime) + s(usage.ru_stime)
}

/// `--backend emulator`: the Firestore emulator and fake-gcs-server (started here, or given by
/// address) and the security rules each run's project gets.
final class EmulatorServers: Sendable {
    let firestoreURL: URL
    let storageURL: URL
    let rules: String
    let startedFirestore: FirestoreEmulator?
    let startedStorage: CloudStorageEmulator?

    /// nil for `--backend memory` (or none).
    /// - Throws: `UsageError` for a bad option; `InputError` when a given server does not answer;
    ///   an emulator's error when one cannot start.
    init?(_ args: CommandLineArguments) throws {
        switch args.option("backend") ?? "memory" {
        case "memory":
            for name in ["emulator", "storage-emulator", "rules"] where args.option(name) != nil {
                throw UsageError(message: "--\(name) needs --backend emulator")
            }
            return nil
        case "emulator": break
        case let other: throw UsageError(message: "--backend is memory or emulator, not \(other.shownArgument)")
        }
        func address(_ name: String) throws -> URL? {
            guard let text = args.option(name) else { return nil }
            let parts = text.split(separator: ":")
            guard parts.count == 2, let port = Int(parts[1]), (1...65_535).contains(port),
                let url = URL(string: "http://\(parts[0]):\(port)")
            else { throw UsageError(message: "--\(name) needs HOST:PORT, not \(text.shownArgument)") }
            return url
        }
        let rulesPath = args.option("rules") ?? "Goldens/firestore.rules"
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: rulesPath))
        } catch {
            throw UsageError(
                message: "cannot read the security rules \(rulesPath.shownArgument): \(systemReason(of: error))"
                    + " (run in the package root, or give --rules FILE)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw UsageError(
                message: "cannot read the security rules \(rulesPath.shownArgument): not UTF-8 text"
                    + " (--rules takes a firestore.rules text file)")
        }
        rules = text
        let firestoreGiven = try address("emulator")
        let storageGiven = try address("storage-emulator")
        // A given server that does not answer would fail every seed: an I/O error before the first.
        for (name, url, path) in [
            ("emulator", firestoreGiven, "/"), ("storage-emulator", storageGiven, "/storage/v1/b"),
        ] {
            guard let url, let reason = Self.unanswered(url.appendingPathComponent(path)) else { continue }
            throw InputError(description: "--\(name) \(args.option(name) ?? ""): no answer: \(reason)")
        }
        startedFirestore = firestoreGiven == nil ? try FirestoreEmulator.start() : nil
        do {
            startedStorage = storageGiven == nil ? try CloudStorageEmulator.start() : nil
        } catch {
            startedFirestore?.stop()
            throw error
        }
        firestoreURL = firestoreGiven ?? startedFirestore?.baseURL ?? URL(fileURLWithPath: "/")
        storageURL = storageGiven ?? startedStorage?.baseURL ?? URL(fileURLWithPath: "/")
    }

    /// Why `url` gave no HTTP answer (of any status) within 5 s, or nil when it answered.
    static func unanswered(_ url: URL) -> String? {
        final class Box: @unchecked Sendable { var reason: String? }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: URLRequest(url: url, timeoutInterval: 5)) { _, response, error in
            if response == nil { box.reason = error?.localizedDescription ?? "no HTTP answer" }
            done.signal()
        }.resume()
        done.wait()
        return box.reason
    }

    /// A backend of its own for one seed: project `demo-vulture-sim-PID-SEED` with the rules, and a
    /// bucket of the same name.
    func backend(seed: UInt64) throws -> SimulationBackend {
        let name = "demo-vulture-sim-\(getpid())-\(seed)"
        let issues = try FirestoreEmulator.loadRules(rules, projectId: name, emulator: firestoreURL)
        if !issues.isEmpty { throw FirestoreEmulatorError("the rules load with warnings: \(issues)") }
        let bucket = CloudStorageRESTClient(baseURL: storageURL, bucket: name)
        try bucket.createBucket(project: name)
        return EmulatorScenarioBackend(firestoreURL: firestoreURL, projectId: name, bucket: bucket)
    }

    /// Stops what this process started.
    func stop() {
        startedFirestore?.stop()
        startedStorage?.stop()
    }
}
