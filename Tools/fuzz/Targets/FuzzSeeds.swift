import Foundation
import VultureConformance
import VultureSchemaCore
import VultureSchemaGenerator
import VultureSyncSchema

/// The seed corpora, made from the goldens (and `Spec/` for spec-tsv): what `Tools/fuzz/run.sh`
/// writes before it fuzzes, and what `swift test` runs every harness on.
public enum FuzzSeeds {
    /// The package folder (this file is `Tools/fuzz/Targets/FuzzSeeds.swift` in it).
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var goldens: URL { packageRoot.appendingPathComponent("Goldens") }

    /// The saved inputs that once crashed or broke a harness, replayed by `swift test` and by every
    /// fuzzing run: `Tools/fuzz/regressions/TARGET/`.
    public static func regressionsFolder(_ target: FuzzTarget) -> URL {
        packageRoot.appendingPathComponent("Tools/fuzz/regressions/\(target.rawValue)")
    }

    /// The text of a real `Spec/` table.
    static func specText(_ table: SpecTable) -> String {
        let url = packageRoot.appendingPathComponent("Spec/\(table.fileName)")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }

    /// The seeds of `target`, without duplicates, in a stable order.
    public static func seeds(_ target: FuzzTarget) -> [[UInt8]] {
        var seen = Set<[UInt8]>()
        return make(target).filter { !$0.isEmpty && $0.count <= target.maximumInputBytes && seen.insert($0).inserted }
    }

    static func make(_ target: FuzzTarget) -> [[UInt8]] {
        switch target {
        case .canonicalJSON, .strictJSON, .jsonDifferential: return jsonTexts()
        case .firestoreREST: return restTexts()
        case .gunzipSHA256: return gzipStreams()
        case .igcHeader: return igcFiles()
        case .testeeProtocol: return protocolSessions()
        case .scenario: return files(in: "scenarios")
        case .specTSV:
            return SpecTable.allCases.enumerated().map { index, table in
                [UInt8(index)] + Array(specText(table).utf8)
            }
        }
    }

    /// The bytes of every `.json` file of a goldens folder.
    static func files(in folder: String) -> [[UInt8]] {
        let url = goldens.appendingPathComponent(folder)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
        return names.filter { $0.hasSuffix(".json") }.compactMap {
            FileManager.default.contents(atPath: url.appendingPathComponent($0).path).map { [UInt8]($0) }
        }
    }

    /// Every golden JSON file, and each case's members (inputs, outputs, documents) written alone.
    static func jsonTexts() -> [[UInt8]] {
        var out: [[UInt8]] = []
        for folder in ["schema", "vectors", "scenarios", "protocol", "jsonschema"] {
            for file in files(in: folder) {
                out.append(file)
                guard let node = try? StrictJSONReader.parse(file) else { continue }
                out += members(of: node, depth: 3).map { CanonicalJSONWriter.write($0) }
            }
        }
        return out
    }

    /// The objects and arrays within `depth` levels under `node`.
    static func members(of node: JSONNode, depth: Int) -> [JSONNode] {
        guard depth > 0 else { return [] }
        var children: [JSONNode] = []
        switch node.kind {
        case .object(let m): children = m.map(\.value)
        case .array(let a): children = a
        default: return []
        }
        return children.flatMap { child -> [JSONNode] in
            switch child.kind {
            case .object, .array: return [child] + members(of: child, depth: depth - 1)
            default: return []
            }
        }
    }

    /// At most 250 of the golden values that canonical typed JSON reads as maps of at most 4 KiB
    /// (documents and inputs), spread over the goldens.
    static func goldenMaps() -> [[String: FirestoreValue]] {
        let maps: [[String: FirestoreValue]] = jsonTexts().compactMap { text in
            guard text.count <= 4096, case .map(let m)? = try? CanonicalJSON.decode(text) else { return nil }
            return m
        }
        let step = max(1, maps.count / 250)
        return stride(from: 0, to: maps.count, by: step).map { maps[$0] }
    }

    /// REST documents, values, writes, commit and batch-write requests made from the golden maps.
    static func restTexts() -> [[UInt8]] {
        let database = "projects/demo-vulture/databases/(default)"
        var out: [[UInt8]] = []
        var writes: [FirestoreWrite] = []
        for (index, map) in goldenMaps().enumerated() {
            let path = "users/u1/flights/f\(index)"
            if (try? FirestoreValue.map(map).validate(form: .stored)) != nil {
                let document = FirestoreRESTDocument(
                    name: FirestoreRESTJSON.documentName(database: database, path: path), fields: map,
                    createTime: try? FirestoreTimestamp(seconds: 1_700_000_000, microseconds: 5),
                    updateTime: try? FirestoreTimestamp(seconds: 1_700_000_001))
                if let text = try? FirestoreRESTJSON.encodeDocument(document) { out.append(text) }
                if let node = try? FirestoreRESTJSON.node(.map(map)) { out.append(CanonicalJSONWriter.write(node)) }
            }
            let mask = map.keys.sorted().prefix(3).compactMap { try? FieldPath([$0]) }
            for write in [
                try? FirestoreWrite(path: path, fields: map),
                try? FirestoreWrite(path: path, fields: map, mask: mask, precondition: .exists(true)),
                FirestoreWrite.delete(path: path, precondition: .exists(true)),
            ] {
                guard let write, let text = try? FirestoreRESTJSON.encodeWrite(write, database: database) else {
                    continue
                }
                out.append(text)
                writes.append(write)
            }
        }
        for start in stride(from: 0, to: writes.count, by: 4) {
            let group = Array(writes[start..<min(start + 4, writes.count)])
            if let text = try? FirestoreRESTJSON.encodeCommitRequest(
                FirestoreCommitRequest(database: database, writes: group, transaction: Data([1, 2, 3])))
            {
                out.append(text)
            }
            if let text = try? FirestoreRESTJSON.encodeBatchWriteRequest(
                FirestoreBatchWriteRequest(database: database, writes: group, labels: ["seed": "\(start)"]))
            {
                out.append(text)
            }
        }
        return out
    }

    /// The gzip streams of the blob vectors, and golden files gzipped (one member and two).
    static func gzipStreams() -> [[UInt8]] {
        var out: [[UInt8]] = []
        if let suite = try? GoldenSuite.load(from: goldens) {
            for c in suite.cases where c.op == "blob.verify" {
                if case .bytes(let gz)? = c.input.mapValue?["gz"] { out.append([UInt8](gz)) }
            }
        }
        for file in files(in: "scenarios").prefix(4) {
            if let gz = try? Gzip.compress(file) {
                out.append([UInt8](gz))
                out.append([UInt8](gz) + [UInt8](gz))
            }
        }
        return out
    }

    /// The IGC files inside the blob vectors' gzip streams, those the scenario goldens import
    /// (distinct), and the project's IGC corpus (`../shared/corpus/igc`, when it is beside the
    /// package) cut to the input size.
    static func igcFiles() -> [[UInt8]] {
        var out = gzipStreams().compactMap { gz in (try? Gzip.decompress(gz)).map { [UInt8]($0) } }.filter {
            $0.first == UInt8(ascii: "A")
        }
        var imported = Set<[UInt8]>()
        for file in files(in: "scenarios") {
            guard case .map(let root)? = try? CanonicalJSON.decode(file), case .array(let steps)? = root["steps"]
            else { continue }
            for case .map(let step) in steps where step["op"] == .string("importFlight") {
                if case .bytes(let igc)? = step["igc"] {
                    imported.insert([UInt8](igc.prefix(FuzzTarget.igcHeader.maximumInputBytes)))
                }
            }
        }
        out += imported.sorted { $0.lexicographicallyPrecedes($1) }
        let corpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/igc")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).sorted()
        for name in names where name.lowercased().hasSuffix(".igc") {
            if let data = FileManager.default.contents(atPath: corpus.appendingPathComponent(name).path) {
                out.append([UInt8](data.prefix(FuzzTarget.igcHeader.maximumInputBytes)))
            }
        }
        return out
    }

    /// Sessions of the testee protocol: a start line, then golden cases as the runner sends them, and
    /// answers and server requests as a testee sends them.
    static func protocolSessions() -> [[UInt8]] {
        guard let suite = try? GoldenSuite.load(from: goldens) else { return [] }
        let start = TesteeProtocol.startLine(suiteVersion: suite.version)
        var out: [[UInt8]] = []
        var seq: Int64 = 1
        for c in suite.cases.prefix(400) {
            let lines = [
                start, TesteeProtocol.caseLine(seq: seq, c),
                CanonicalJSON.compactString(.map(["seq": .integer(seq), "output": c.input])),
                CanonicalJSON.compactString(
                    .map([
                        "seq": .integer(seq), "error": .map(["code": .string(c.op), "message": .string("no")]),
                    ])),
                CanonicalJSON.compactString(.map(["seq": .integer(seq), "server": .map(["op": .string("get")])])),
                TesteeProtocol.serverAnswerLine(seq: seq, .map(["result": c.input])), TesteeProtocol.stopLine,
            ]
            out.append(Array(lines.joined(separator: "\n").utf8))
            seq += 1
        }
        return out
    }

    /// Writes the seeds of `target` into `folder` (created), one file each named by its SHA-256.
    /// - Returns: how many were written.
    @discardableResult
    public static func write(_ target: FuzzTarget, into folder: URL) throws -> Int {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let seeds = seeds(target)
        for seed in seeds {
            let name = "seed-" + SHA256Stream.hexDigest(of: seed).prefix(16)
            try Data(seed).write(to: folder.appendingPathComponent(String(name)))
        }
        return seeds.count
    }
}
