import Foundation

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

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "ids-child" {
    // Internal: one streaming path run in a child process so its peak memory can be read alone.
    exit(IdsBenchmark.child(Array(arguments.dropFirst())))
}
if arguments.contains("--help") || arguments.contains("-h") {
    print("usage: vulture-benchmark [NAME…]\n\nBenchmarks (all when none is named):")
    for b in benchmarks { print("  \(b.name.padding(toLength: 10, withPad: " ", startingAt: 0))\(b.summary)") }
    exit(0)
}
let unknown = arguments.filter { name in !benchmarks.contains { $0.name == name } }
if !unknown.isEmpty {
    FileHandle.standardError.write(
        Data("vulture-benchmark: unknown benchmark \(unknown.joined(separator: ", ")); see --help\n".utf8))
    exit(2)
}
#if DEBUG
    print("note: this is a debug build; run `swift run -c release vulture-benchmark` for meaningful numbers")
#endif
for b in benchmarks where arguments.isEmpty || arguments.contains(b.name) {
    do {
        try b.run()
    } catch {
        FileHandle.standardError.write(Data("vulture-benchmark: \(b.name): \(error)\n".utf8))
        exit(1)
    }
}
