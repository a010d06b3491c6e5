import Foundation
import VultureCommandLine

/// `vulture-benchmark [json|ids|validate|writes] …`: throughput of the reference codec beside a reference measured in
/// the same run. Prints; never fails on a slow result. Build with `-c release`.
let benchmarks: [(name: String, summary: String, run: () throws -> Void)] = [
    ("json", "canonical-JSON parse and write (MB/s) beside Foundation's JSONSerialization", runJSONBenchmark),
    ("ids", "flight id, gzip and gunzip of 64 MiB beside openssl dgst and gzip; peak memory", IdsBenchmark.run),
    ("validate", "parse + validate 100,000 flights (docs/s) beside Python jsonschema 4.23.0", runValidateBenchmark),
    (
        "writes", "Firestore writes applied per second in memory beside the Firestore emulator over REST",
        WritesBenchmark.run
    ),
]

let usage =
    "usage: vulture-benchmark [NAME…]\n\nBenchmarks (all when none is named):\n"
    + benchmarks.map { "  \($0.name.padding(toLength: 10, withPad: " ", startingAt: 0))\($0.summary)" }
    .joined(separator: "\n")
    + "\n\nExit status: 0 measured (a slow result is not a failure), 1 a benchmark failed to run, 2 usage error."

CommandLineTool(name: "vulture-benchmark", usage: usage).run { arguments in
    if arguments.first == "ids-child" {
        // Internal: one streaming path run in a child process so its peak memory can be read alone.
        return IdsBenchmark.child(Array(arguments.dropFirst()))
    }
    let names = try CommandLineArguments(arguments, valueOptions: []).positionals
    let unknown = names.filter { name in !benchmarks.contains { $0.name == name } }
    guard unknown.isEmpty else { throw UsageError(message: "unknown benchmark \(unknown.joined(separator: ", "))") }
    #if DEBUG
        print("note: this is a debug build; run `swift run -c release vulture-benchmark` for meaningful numbers")
    #endif
    for b in benchmarks where names.isEmpty || names.contains(b.name) {
        do {
            try b.run()
        } catch {
            printError("vulture-benchmark: \(b.name): \(error)")
            return 1
        }
    }
    return 0
}
