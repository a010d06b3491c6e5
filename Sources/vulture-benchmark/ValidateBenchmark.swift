import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// `vulture-benchmark validate`: parse + schema validation of generated stored-form documents beside
/// the strongest Python peers on the same bytes — orjson + jsonschema-rs, and orjson + fastjsonschema —
/// validating against the generated JSON Schemas (`Goldens/jsonschema/<collection>.stored.schema.json`).
///
/// Three corpora: 100,000 flights; tasks with 100 turnpoints (the `turnpoints` maxItems); flights whose
/// comments are 10,000 accented characters (the `comments` maxChars). For each, in-process per document
/// (one core, the text in memory, one JSON Lines line per document) and whole processes over a folder of
/// one file per document (`vulture-conformance validate` beside a Python CLI doing the same work). Then
/// `validate --jsonl` over a 1 GB stream on standard input: throughput and peak memory. Every side must
/// accept every document, or the benchmark stops.
enum ValidateBenchmark {
    static let rounds = 3

    struct Corpus {
        var name: String
        var collection: String
        var documentType: String
        var documents: [FirestoreValue]
    }

    /// The three corpora.
    static func corpora() throws -> [Corpus] { try (0..<3).map { try corpus($0) } }

    /// Corpus `k` (0 flights, 1 tasks, 2 flights with long comments); at most `limit` documents (for a
    /// profiler).
    static func corpus(_ k: Int, limit: Int = .max) throws -> Corpus {
        let flightBase = try BenchmarkDocuments.flightBase()
        let schema = SyncSchema.vulture
        switch k {
        case 0:
            return Corpus(
                name: "flights", collection: "flights", documentType: "FlightDocument",
                documents: (0..<min(100_000, limit)).map { BenchmarkDocuments.flight($0, base: flightBase) })
        case 1:
            let taskBase = try BenchmarkDocuments.taskBase()
            let maxTurnpoints =
                schema.fields(of: "TaskDocument").first { $0.name == "turnpoints" }?.limits.maxItems ?? 100
            return Corpus(
                name: "tasks with \(maxTurnpoints) turnpoints", collection: "tasks", documentType: "TaskDocument",
                documents: (0..<min(2_000, limit)).map {
                    BenchmarkDocuments.task($0, base: taskBase, count: maxTurnpoints)
                })
        default:
            let maxChars =
                schema.fields(of: "FlightDocument").first { $0.name == "comments" }?.limits.maxChars ?? 10_000
            return Corpus(
                name: "flights with \(Report.count(maxChars)) accented characters in comments", collection: "flights",
                documentType: "FlightDocument",
                documents: (0..<min(10_000, limit)).map {
                    BenchmarkDocuments.accentedFlight($0, base: flightBase, count: maxChars)
                })
        }
    }

    static func run() throws {
        print("validate: parse + schema validation of generated stored-form documents")
        print(machineLine())
        if PythonPeers.python != nil { print("peers: " + (try PythonPeers.versions())) }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vulture-bench-validate-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var flightLines: [UInt8] = []
        for corpus in try corpora() {
            let lines = try runCorpus(corpus, in: dir)
            if corpus.name == "flights" { flightLines = lines }
        }
        try runStream(flightLines)
    }

    /// One corpus in process and on the command line; returns its JSON Lines.
    static func runCorpus(_ corpus: Corpus, in dir: URL) throws -> [UInt8] {
        let n = corpus.documents.count
        var jsonl: [UInt8] = []
        for d in corpus.documents {
            jsonl += CanonicalJSON.compactString(d).utf8
            jsonl.append(0x0A)
        }
        let jsonlPath = dir.appendingPathComponent("\(corpus.collection).jsonl").path
        try Data(jsonl).write(to: URL(fileURLWithPath: jsonlPath))
        let folder = dir.appendingPathComponent("files-\(corpus.collection)-\(n)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var fileBytes = 0
        for (k, d) in corpus.documents.enumerated() {
            let bytes = CanonicalJSON.encode(d)
            fileBytes += bytes.count
            try Data(bytes).write(to: folder.appendingPathComponent(String(format: "%06d.json", k)))
        }
        let schema = packageRoot.appendingPathComponent("Goldens/jsonschema/\(corpus.collection).stored.schema.json")
            .path
        print("")
        print(
            "validate \(corpus.name): \(Report.count(n)) documents, \(Report.mib(jsonl.count)) of JSON Lines "
                + "(\(jsonl.count / n) bytes each), \(Report.mib(fileBytes)) as \(Report.count(n)) canonical files")

        // In process, one core: the lines are in memory on both sides; per line, parse (and validate).
        let validator = SchemaValidator(schema: .vulture)
        let reader = CanonicalJSONReader()
        var ranges: [Range<Int>] = []
        var start = 0
        for (k, b) in jsonl.enumerated() where b == 0x0A {
            ranges.append(start..<k)
            start = k + 1
        }
        func ours(validate: Bool) throws -> Double {
            var valid = 0
            let t = try cpuSeconds {
                for r in ranges {
                    let value = try reader.decode(jsonl[r], form: .stored)
                    guard validate else { continue }
                    guard case .map(let fields) = value else { continue }
                    if validator.validate(fields, documentType: corpus.documentType, options: ValidationOptions())
                        .isEmpty
                    {
                        valid += 1
                    }
                }
            }
            if validate, valid != n {
                throw BenchmarkError.mismatch("ours accepted \(valid) of \(n) \(corpus.name)")
            }
            return t
        }
        var peer: [[String: Double]] = []
        let havePeers = PythonPeers.python != nil
        let times = try Rounds.medians(
            rounds,
            [
                { try ours(validate: false) }, { try ours(validate: true) },
                {
                    guard havePeers else { return .nan }
                    let r = try PythonPeers.measure(["lines", schema, jsonlPath])
                    peer.append(r)
                    return r["jsonschema-rs"] ?? .nan
                },
            ])
        let docs = Double(n)
        print(
            "  in process, one core, per document (one line of JSON Lines in memory): parse, then validate; "
                + "rates from each side's CPU time")
        print(Report.line("ours: parse (CanonicalJSONReader → FirestoreValue)", Report.rate(docs / times[0], "docs/s")))
        if havePeers {
            for p in peer {
                guard p["valid jsonschema-rs"] == docs, p["valid fastjsonschema"] == docs else {
                    throw BenchmarkError.mismatch("a Python validator rejected a document: \(p)")
                }
            }
            let orjson = median(peer.compactMap { $0["orjson"] })
            let json = median(peer.compactMap { $0["json"] })
            let rs = median(peer.compactMap { $0["jsonschema-rs"] })
            let fast = median(peer.compactMap { $0["fastjsonschema"] })
            print(Report.line("orjson.loads", Report.rate(docs / orjson, "docs/s"), ratio: orjson / times[0]))
            print(Report.line("json.loads", Report.rate(docs / json, "docs/s"), ratio: json / times[0]))
            print(Report.line("ours: parse + validate (SchemaValidator)", Report.rate(docs / times[1], "docs/s")))
            print(
                Report.line(
                    "orjson.loads + jsonschema-rs is_valid", Report.rate(docs / rs, "docs/s"), ratio: rs / times[1],
                    goal: 1.0))
            print(
                Report.line(
                    "orjson.loads + fastjsonschema", Report.rate(docs / fast, "docs/s"), ratio: fast / times[1]))
        } else {
            print(Report.line("ours: parse + validate (SchemaValidator)", Report.rate(docs / times[1], "docs/s")))
        }

        // Whole processes over the folder: start, list, read every file, parse, validate, report, exit.
        guard let cli = ChildProcess.sibling("vulture-conformance") else {
            print("  skipped: command line (vulture-conformance is not built beside vulture-benchmark)")
            return jsonl
        }
        let passed = "\(n) passed, 0 failed"
        func ourRun(_ argv: [String]) throws -> Double {
            let r = try ChildProcess.runChecked(argv)
            guard r.stdout.hasSuffix(passed + "\n") else {
                throw BenchmarkError.mismatch("\(argv.joined(separator: " ")): \(r.stdout.suffix(300))")
            }
            return r.seconds
        }
        func peerRun(_ arguments: [String]) throws -> Double {
            guard havePeers else { return .nan }
            let r = try ChildProcess.runChecked(try PythonPeers.argv(arguments))
            guard r.stdout == "\(n) valid, 0 invalid\n" else {
                throw BenchmarkError.mismatch("peers.py \(arguments.joined(separator: " ")): \(r.stdout)")
            }
            return r.seconds
        }
        let taskset = ChildProcess.which("taskset")
        var sides: [() throws -> Double] = [
            { try ourRun([cli, "validate", "--collection", corpus.collection, folder.path]) },
            { try ourRun([cli, "validate", folder.path]) },
            { try peerRun(["files", schema, folder.path]) },
            { try peerRun(["files", schema, folder.path, "--fast"]) },
        ]
        if let taskset {
            sides.append {
                try ourRun([taskset, "-c", "0", cli, "validate", "--collection", corpus.collection, folder.path])
            }
        }
        let cliTimes = try Rounds.medians(rounds, sides)
        print(
            "  whole processes over \(Report.count(n)) files (start, list the folder, read, parse, validate, exit); "
                + "ours on every core (\(ValidateBenchmark.cores)), the Python peer on one")
        print(
            Report.line(
                "ours: validate --collection \(corpus.collection) DIR", Report.rate(docs / cliTimes[0], "docs/s")))
        print(Report.line("ours: validate DIR (collection inferred)", Report.rate(docs / cliTimes[1], "docs/s")))
        if taskset != nil {
            print(
                Report.line(
                    "ours on one core: taskset -c 0 validate --collection …", Report.rate(docs / cliTimes[4], "docs/s"))
            )
        }
        if havePeers {
            print(
                Report.line(
                    "python: orjson + jsonschema-rs CLI (vs ours --collection)",
                    Report.rate(docs / cliTimes[2], "docs/s"),
                    ratio: cliTimes[2] / cliTimes[0], goal: 1.0))
            print(
                Report.line(
                    "python: orjson + jsonschema-rs CLI (vs ours inferred)", Report.rate(docs / cliTimes[2], "docs/s"),
                    ratio: cliTimes[2] / cliTimes[1]))
            if taskset != nil {
                print(
                    Report.line(
                        "python: orjson + jsonschema-rs CLI (vs ours on one core)",
                        Report.rate(docs / cliTimes[2], "docs/s"), ratio: cliTimes[2] / cliTimes[4]))
            }
            print(
                Report.line(
                    "python: orjson + fastjsonschema CLI (vs ours inferred)", Report.rate(docs / cliTimes[3], "docs/s"),
                    ratio: cliTimes[3] / cliTimes[1]))
        }
        return jsonl
    }

    static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// `validate --jsonl -` over a 1 GB stream of flights on standard input, beside the Python peer
    /// reading the same stream line by line: throughput and each process's own peak memory.
    static func runStream(_ flightLines: [UInt8]) throws {
        guard let cli = ChildProcess.sibling("vulture-conformance"), !flightLines.isEmpty else { return }
        let total = 1_000_000_000
        let copies = (total + flightLines.count - 1) / flightLines.count
        let documents = copies * flightLines.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        let streamBytes = copies * flightLines.count
        let feed: (Int32) -> Void = { fd in
            flightLines.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                for _ in 0..<copies {
                    var offset = 0
                    while offset < raw.count {
                        let n = write(fd, base + offset, raw.count - offset)
                        if n < 0 {
                            if errno == EINTR { continue }
                            return
                        }
                        offset += n
                    }
                }
            }
        }
        print("")
        print(
            "validate --jsonl: a \(Report.mib(streamBytes)) stream of \(Report.count(documents)) flights on standard "
                + "input (a pipe), whole processes; peak memory (ru_maxrss) measured from a small parent")
        let ours = try ChildProcess.runMeasured(
            [cli, "validate", "--jsonl", "--collection", "flights", "-"], feed: feed)
        guard ours.stdout.hasSuffix("\(documents) passed, 0 failed\n") else {
            throw BenchmarkError.mismatch("validate --jsonl: \(ours.stdout.suffix(300))")
        }
        let limit = 64 << 20
        print(
            Report.line(
                "ours: validate --jsonl --collection flights -",
                Report.rate(Double(documents) / ours.seconds, "docs/s") + "   peak " + Report.mib(ours.peakBytes)
                    + " (goal < 64 MiB: \(ours.peakBytes < limit ? "met" : "NOT MET"))"))
        guard PythonPeers.python != nil else { return }
        let schema = packageRoot.appendingPathComponent("Goldens/jsonschema/flights.stored.schema.json").path
        let peer = try ChildProcess.runMeasured(try PythonPeers.argv(["stream", schema]), feed: feed)
        guard peer.stdout == "\(documents) valid, 0 invalid\n" else {
            throw BenchmarkError.mismatch("peers.py stream: \(peer.stdout)")
        }
        print(
            Report.line(
                "python: orjson + jsonschema-rs, line by line",
                Report.rate(Double(documents) / peer.seconds, "docs/s") + "   peak " + Report.mib(peer.peakBytes),
                ratio: peer.seconds / ours.seconds))
        print(
            Report.line(
                "memory: ours ÷ python peak (lower is better)",
                String(format: "%.2f×", Double(ours.peakBytes) / Double(peer.peakBytes))))
    }
}
