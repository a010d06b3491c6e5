import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// `vulture-benchmark child profile WORK N [TIMES]`: the in-process work of a pairing on our side
/// alone, the documents made first and the measured work in ``measured(_:)`` (for `valgrind
/// --tool=callgrind --toggle-collect='*ProfileWork*measured*'` or `perf record`). WORK is `write` (N
/// flights as one array, read from canonical bytes, then written canonically), `sync` (the first sync
/// of N flights in memory, push and pull, as the sync benchmark's cost per document runs it),
/// `validate-flights`, `validate-tasks` or `validate-comments` (N documents of that corpus, each line
/// read and validated as `vulture-benchmark validate` does), done TIMES over (1 by default).
enum ProfileWork {
    static func run(_ work: String, count: Int, times: Int) throws {
        switch work {
        case "write":
            let base = try BenchmarkDocuments.flightBase()
            // As the benchmark writes them: the values its reader made from the file.
            let made = FirestoreValue.array((0..<count).map { BenchmarkDocuments.flight($0, base: base) })
            let value = try CanonicalJSON.decode(CanonicalJSON.encode(made), form: .stored)
            var written = 0
            measured { for _ in 0..<times { written = CanonicalJSON.encode(value).count } }
            print("wrote \(written) bytes")
        case "validate-flights", "validate-tasks", "validate-comments":
            let corpus = try ValidateBenchmark.corpus(
                ["validate-flights", "validate-tasks", "validate-comments"].firstIndex(of: work) ?? 0, limit: count)
            var lines: [[UInt8]] = []
            for d in corpus.documents { lines.append(Array(CanonicalJSON.compactString(d).utf8)) }
            let validator = SchemaValidator(schema: .vulture)
            let reader = CanonicalJSONReader()
            var valid = 0
            var failure: Error?
            measured {
                do {
                    for _ in 0..<times {
                        valid = 0
                        try check()
                    }
                } catch { failure = error }
            }
            func check() throws {
                for line in lines {
                    guard case .map(let fields) = try reader.decode(line[...], form: .stored) else { continue }
                    if validator.validate(fields, documentType: corpus.documentType, options: ValidationOptions())
                        .isEmpty
                    {
                        valid += 1
                    }
                }
            }
            if let failure { throw failure }
            print("\(valid) of \(lines.count) valid")
        case "sync":
            // As the benchmark's cost per document measures it: freed memory kept, one round unmeasured.
            SyncBenchmark.retainFreedMemory()
            let flights = SyncBenchmark.logbook(count)
            _ = try SyncBenchmark.memorySyncs(flights)
            var push = 0.0
            var pull = 0.0
            var failure: Error?
            measured {
                do {
                    for _ in 0..<times {
                        let r = try SyncBenchmark.memorySyncs(flights)
                        push += r.push.cpuSeconds
                        pull += r.pull.cpuSeconds
                    }
                } catch { failure = error }
            }
            if let failure { throw failure }
            let n = Double(count * times)
            print(String(format: "push %.1f µs/document, pull %.1f µs/document (CPU)", push / n * 1e6, pull / n * 1e6))
        default:
            throw BenchmarkError.setup("child profile: unknown work \(work)")
        }
    }

    /// The work a profiler counts; prints its CPU time on this thread, user and system apart.
    @inline(never)
    static func measured(_ body: () -> Void) {
        let start = ThreadUsage.now()
        body()
        let end = ThreadUsage.now()
        print(
            String(
                format: "measured: user %.3f s, system %.3f s, %d page faults", end.user - start.user,
                end.system - start.system, end.faults - start.faults))
    }
}
