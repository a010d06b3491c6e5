import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// `vulture-benchmark json`: canonical typed JSON of 64 MiB — an array of generated flights, as an export
/// of a collection would hold them, written by our writer — parsed and written in process beside orjson and Python's json on the same bytes, and
/// the peak memory of a whole process that reads and parses it beside one running orjson.
enum JSONBenchmark {
    static let targetBytes = 64 << 20
    static let rounds = 5

    static func run() throws {
        print("json: canonical typed JSON, one file of at least 64 MiB")
        print(machineLine())
        if PythonPeers.python != nil { print("peers: " + (try PythonPeers.versions())) }
        let base = try BenchmarkDocuments.flightBase()
        // The size of a flight in the array, from a sample of a hundred, then enough flights for 64 MiB.
        var flights = (0..<100).map { BenchmarkDocuments.flight($0, base: base) }
        let each = CanonicalJSON.encode(.array(flights)).count / 100
        flights += (100..<(targetBytes / each + 2)).map { BenchmarkDocuments.flight($0, base: base) }
        let value = FirestoreValue.array(flights)
        let bytes = CanonicalJSON.encode(value)
        guard bytes.count >= targetBytes else {
            throw BenchmarkError.setup("the file is \(bytes.count) bytes, under 64 MiB")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vulture-bench-json-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("flights.json").path
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        print(
            "  the file: \(Report.mib(bytes.count)), an array of \(Report.count(flights.count)) flights, canonical "
                + "layout (sorted keys, two-space indent)")
        let mb = Double(bytes.count) / 1e6
        let havePeers = PythonPeers.python != nil

        // Parse: bytes in memory → values; the values are freed after the clock stops, on both sides.
        var peerParse: [[String: Double]] = []
        var parsed: FirestoreValue = .null
        let parse = try Rounds.medians(
            rounds,
            [
                {
                    var read: FirestoreValue = .null
                    let t = try cpuSeconds { read = try CanonicalJSON.decode(bytes, form: .stored) }
                    guard read == value else { throw BenchmarkError.mismatch("the file reads back differently") }
                    parsed = read
                    return t
                },
                {
                    guard havePeers else { return .nan }
                    let r = try PythonPeers.measure(["parse", file])
                    peerParse.append(r)
                    return r["orjson"] ?? .nan
                },
            ])
        print(
            "  parse, in process, one core: the bytes in memory → typed values (ours) / Python objects (peers); "
                + "rates from each side's CPU time")
        print(Report.line("ours: CanonicalJSON.decode → FirestoreValue", Report.rate(mb / parse[0], "MB/s")))
        if havePeers {
            let json = median(peerParse.compactMap { $0["json"] })
            print(
                Report.line("orjson.loads", Report.rate(mb / parse[1], "MB/s"), ratio: parse[1] / parse[0], goal: 1.0))
            print(Report.line("json.loads", Report.rate(mb / json, "MB/s"), ratio: json / parse[0]))
        }

        // Write: the values each side's parser made from the file → canonical bytes.
        var identical = true
        var written = 0
        let write = try Rounds.medians(
            rounds,
            [
                {
                    var out: [UInt8] = []
                    let t = cpuSeconds { out = CanonicalJSON.encode(parsed) }
                    guard out == bytes else { throw BenchmarkError.mismatch("our writer's bytes changed") }
                    written = out.count
                    return t
                },
                {
                    guard havePeers else { return .nan }
                    let r = try PythonPeers.measure(["write", file])
                    identical = identical && r["identical"] == 1
                    return r["orjson"] ?? .nan
                },
            ])
        print("  write, in process, one core: values → canonical bytes (sorted keys, indent 2); CPU time")
        print(Report.line("ours: CanonicalJSON.encode", Report.rate(Double(written) / 1e6 / write[0], "MB/s")))
        if havePeers {
            print(
                Report.line(
                    "orjson.dumps(OPT_INDENT_2 | OPT_SORT_KEYS), \(identical ? "byte-identical" : "NOT byte-identical")",
                    Report.rate(Double(written) / 1e6 / write[1], "MB/s"), ratio: write[1] / write[0], goal: 0.5))
        }

        // Peak memory of a whole process that reads the file and parses it.
        let ours = try ChildProcess.runMeasured([ChildProcess.ownExecutable, "child", "parse", file])
        print(
            "  peak memory of a whole process that reads the file and parses it (ru_maxrss, measured from a small parent)"
        )
        print(Report.line("ours: read + CanonicalJSON.decode", Report.mib(ours.peakBytes)))
        if havePeers {
            let peer = try ChildProcess.runMeasured(try PythonPeers.argv(["load", file]))
            print(
                Report.line(
                    "python: read + orjson.loads",
                    Report.mib(peer.peakBytes)
                        + String(
                            format: "   ours ÷ orjson %.2f× (lower is better)",
                            Double(ours.peakBytes) / Double(peer.peakBytes))))
        }
    }

    /// Child mode: read `path` and parse it (for peak memory); prints the root's type.
    static func childParse(_ path: String) throws {
        let value = try CanonicalJSON.decode(Data(contentsOf: URL(fileURLWithPath: path)), file: path, form: .stored)
        print(value.typeName)
    }
}
