import Foundation
import VultureCommandLine

/// `vulture-benchmark [json|validate|ids|writes] …`: the reference codec beside the strongest peers, measured in
/// the same run on the same input, in rounds, medians; every ratio is this project ÷ the peer. Prints;
/// never fails on a slow result. Build with `-c release`.
let benchmarks: [(name: String, summary: String, run: () throws -> Void)] = [
    (
        "json", "parse and write 64 MiB of canonical JSON (MB/s) beside orjson and json.loads; peak memory",
        JSONBenchmark.run
    ),
    (
        "validate",
        "parse + validate 100,000 flights, tasks with 100 turnpoints, 10,000-character comments (docs/s), "
            + "in process and whole CLI processes, beside orjson + jsonschema-rs and fastjsonschema; "
            + "--jsonl over 1 GB: peak memory",
        ValidateBenchmark.run
    ),
    (
        "ids", "flight id, gzip and gunzip of 64 MiB, whole processes beside openssl and gzip; openssl speed; memory",
        IdsBenchmark.run
    ),
    (
        "writes", "Firestore writes applied per second in memory beside the Firestore emulator over REST",
        WritesBenchmark.run
    ),
    (
        "sync",
        "the engine's first sync of 500 flights in memory beside the emulator (documents/s); "
            + "cost per document at 500, 5,000, 50,000 flights",
        SyncBenchmark.run
    ),
    (
        "store",
        "one edit and push in a synced logbook of 5,000 and 50,000 flights: time per local commit and bytes "
            + "written, FileLocalStore beside SQLiteLocalStore",
        StoreBenchmark.run
    ),
    (
        "simulate", "VultureSimulation: 10,000 seeds (--seeds N) on every core, seeds/s and steps/s",
        SimulateBenchmark.run
    ),
    (
        "fuzz",
        "10,000,000 libFuzzer executions (--fuzz-runs N) over the fuzz targets of Tools/fuzz, exec/s per target; "
            + "not run unless named",
        FuzzBenchmark.run
    ),
]

let usage =
    "usage: vulture-benchmark [--seeds N] [--fuzz-runs N] [NAME…]\n\nBenchmarks (all but fuzz when none is named):\n"
    + benchmarks.map { "  \($0.name.padding(toLength: 10, withPad: " ", startingAt: 0))\($0.summary)" }
    .joined(separator: "\n")
    + "\n\nThe Python peers (orjson, jsonschema-rs, fastjsonschema, pinned) are installed from PyPI into"
    + "\n.build/bench-venv on first use; without python3 or PyPI their lines say skipped."
    + "\n\nExit status: 0 measured (a slow result is not a failure), 1 a benchmark failed to run, 2 usage error."

CommandLineTool(name: "vulture-benchmark", usage: usage).run { arguments in
    if arguments.first == "ids-child" {
        // Internal: one streaming path run in a child process so its peak memory can be read alone.
        return IdsBenchmark.child(Array(arguments.dropFirst()))
    }
    if arguments.first == "child", arguments.count > 2, arguments[1] == "measure" {
        // Internal: run a command from a small process and print its own peak memory.
        return ChildProcess.measureChild(Array(arguments.dropFirst(2)))
    }
    if arguments.first == "child", arguments.count == 3, arguments[1] == "parse" {
        // Internal: read and parse one file in a child process, for its peak memory.
        try JSONBenchmark.childParse(arguments[2])
        return 0
    }
    if arguments.first == "child", arguments.count == 3, arguments[1] == "sync", let count = Int(arguments[2]) {
        // Internal: one first sync of `count` flights in memory, for a profiler.
        let r = try SyncBenchmark.memorySyncs(SyncBenchmark.logbook(count))
        print(
            String(
                format: "push %.3f s (CPU %.3f s), pull %.3f s (CPU %.3f s)", r.push.seconds, r.push.cpuSeconds,
                r.pull.seconds, r.pull.cpuSeconds))
        return 0
    }
    if arguments.first == "child", arguments.count == 2, arguments[1] == "cost-per-document" {
        // Internal: only the sync benchmark's cost per document as the logbook grows (minutes), for
        // measuring an engine change without the emulator.
        try SyncBenchmark.costPerDocument(SyncBenchmark.logbook(500))
        return 0
    }
    if arguments.first == "child", arguments.count == 4 || arguments.count == 5, arguments[1] == "profile",
        let count = Int(arguments[3]), count > 0, let times = Int(arguments.count == 5 ? arguments[4] : "1"), times > 0
    {
        // Internal: one in-process pairing's work on our side alone, for a profiler (`times` over).
        try ProfileWork.run(arguments[2], count: count, times: times)
        return 0
    }
    let parsed = try CommandLineArguments(arguments, valueOptions: ["seeds", "fuzz-runs"])
    if let text = parsed.option("seeds") {
        guard let n = Int(text), n > 0 else {
            throw UsageError(message: "--seeds needs a positive whole number, not \(text)")
        }
        SimulateBenchmark.seeds = n
    }
    if let text = parsed.option("fuzz-runs") {
        guard let n = Int(text), n > 0 else {
            throw UsageError(message: "--fuzz-runs needs a positive whole number, not \(text)")
        }
        FuzzBenchmark.runs = n
    }
    let names = parsed.positionals
    let unknown = names.filter { name in !benchmarks.contains { $0.name == name } }
    guard unknown.isEmpty else {
        throw UsageError(
            message:
                "unknown benchmark \(unknown.joined(separator: ", ")); one of \(benchmarks.map(\.name).joined(separator: ", "))"
        )
    }
    #if DEBUG
        print("note: this is a debug build; run `swift run -c release vulture-benchmark` for meaningful numbers")
    #endif
    // fuzz builds its own instrumented executables and runs for a quarter of an hour: only when named.
    for b in benchmarks where names.isEmpty ? b.name != "fuzz" : names.contains(b.name) {
        do {
            try b.run()
            print("")
        } catch {
            printError("vulture-benchmark: \(b.name): \(error)")
            return 1
        }
    }
    return 0
}
