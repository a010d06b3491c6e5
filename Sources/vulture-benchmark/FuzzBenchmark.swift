import Foundation

/// `fuzz`: 10,000,000 libFuzzer executions (`--fuzz-runs N`) over the fuzz targets of Tools/fuzz, built
/// and run by `Tools/fuzz/run.sh` (address sanitizer and coverage instrumentation included): first 10 s
/// per target to measure its rate, then each target's share of the executions in proportion to its rate,
/// so that every target runs about as long (the targets run one after the other: at about 2,000 exec/s
/// per target on two shared cores, an hour and a half). Prints executions per second per target as each
/// ends, and in total. No peer runs these harnesses, so the rates are absolute (wall time); a crash fails
/// the benchmark.
enum FuzzBenchmark {
    /// `--fuzz-runs N` (default 10,000,000).
    nonisolated(unsafe) static var runs = 10_000_000

    /// The package folder (this file is `Sources/vulture-benchmark/FuzzBenchmark.swift` in it).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// One target's line of `run.sh`: `fuzz: TARGET: clean, RUNS runs in S s (RATE exec/s), corpus N`.
    struct TargetRun {
        var target: String
        var runs: Int
        var seconds: Double
    }

    static func run() throws {
        let script = packageRoot.appendingPathComponent("Tools/fuzz/run.sh").path
        guard FileManager.default.isExecutableFile(atPath: script) else {
            throw BenchmarkError.setup("\(script) is missing (the fuzz benchmark runs in a checkout of the package)")
        }
        print("fuzz: \(Report.count(runs)) libFuzzer executions over the fuzz targets (Tools/fuzz/run.sh)")
        print(machineLine())
        print("  no peer: no other implementation runs these harnesses; absolute rates (wall time, ASan included)")
        FileHandle.standardError.write(Data("  building the fuzz targets (release, -sanitize=fuzzer,address)…\n".utf8))
        _ = try ChildProcess.runChecked([script, "--build-only"])
        let targets = try ChildProcess.runChecked([script, "--list"]).stdout.split(separator: "\n").map(String.init)

        // Rates first: 10 s per target (its seeds and regressions included).
        var rates: [String: Double] = [:]
        for target in targets {
            let r = try fuzz(script, target, ["--seconds", "10"])
            rates[target] = Double(r.runs) / max(r.seconds, 1)
        }
        let total = rates.values.reduce(0, +)
        // The targets run one after the other, each for about runs ÷ (sum of rates) seconds.
        let perTarget = Double(runs) / max(total, 1)
        print(
            "  measured \(Report.count(Int(total))) exec/s over all targets in 10 s each: about "
                + "\(Int((perTarget * Double(targets.count) / 60).rounded())) minutes for the executions")
        var measured: [TargetRun] = []
        for target in targets {
            let share = max(1, Int((Double(runs) * rates[target]! / total).rounded()))
            FileHandle.standardError.write(Data("  \(target): \(Report.count(share)) executions…\n".utf8))
            let r = try fuzz(script, target, ["--runs", String(share)])
            measured.append(r)
            print(
                Report.line(
                    "\(r.target) (\(Report.count(r.runs)) in \(String(format: "%.0f", r.seconds)) s)",
                    Report.rate(Double(r.runs) / max(r.seconds, 1), "exec/s")))
        }
        let allRuns = measured.map(\.runs).reduce(0, +)
        let allSeconds = measured.map(\.seconds).reduce(0, +)
        print(
            Report.line(
                "every target (\(Report.count(allRuns)) in \(String(format: "%.0f", allSeconds)) s)",
                Report.rate(Double(allRuns) / max(allSeconds, 1), "exec/s")))
    }

    /// Runs one target through run.sh and reads its summary line.
    static func fuzz(_ script: String, _ target: String, _ limit: [String]) throws -> TargetRun {
        let r = try ChildProcess.run([script] + limit + [target])
        let prefix = "fuzz: \(target): clean, "
        guard r.status == 0, let line = r.stdout.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else {
            throw BenchmarkError.setup(
                "fuzz target \(target) failed:\n\(r.stdout.suffix(1500))\(r.stderr.suffix(1500))")
        }
        // "RUNS runs in SECONDS s (RATE exec/s), corpus N"
        let words = line.dropFirst(prefix.count).split(separator: " ")
        guard words.count >= 4, let count = Int(words[0]), let seconds = Double(words[3]) else {
            throw BenchmarkError.setup("cannot read run.sh's line: \(line)")
        }
        return TargetRun(target: target, runs: count, seconds: seconds)
    }
}
