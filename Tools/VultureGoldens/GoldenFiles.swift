// VultureGoldens — the case definitions behind Goldens/schema and Goldens/vectors, rendered as
// canonical bytes by the reference implementation (Goldens/README.md).
import Foundation
import VultureConformance
import VultureReference
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema
import VultureSyncTesting

/// Renders golden files from definitions.
enum GoldenFiles {
    struct All {
        var documents: [DocumentGoldenDefinition]
        var vectors: [VectorFile]
        var scenarios: [Scenario]
    }

    static func all() -> All {
        All(
            documents: DocumentGoldens.all,
            vectors: [
                IdVectors.file, BlobVectors.file, DocumentVectors.file, InvalidDocumentVectors.file,
                SettingsVectors.file, MergeVectors.file, TrimVectors.file, TombstoneVectors.file,
                DuplicateVectors.file,
            ],
            scenarios: ScenarioGoldens.all)
    }

    /// The canonical bytes of a scenario golden, after the reference engine replayed it on the in-memory
    /// backend with every expectation holding.
    /// - Throws: `DefinitionError` when its id is not `scenario.NAME`, it does not end with an `expect`
    ///   step, it does not read back, or an expectation fails.
    static func render(_ scenario: Scenario) throws -> (name: String, bytes: [UInt8]) {
        let prefix = "scenario."
        guard scenario.id.hasPrefix(prefix), scenario.id.count > prefix.count else {
            throw DefinitionError(description: "\(scenario.id): a scenario id is scenario.NAME")
        }
        guard case .expect? = scenario.steps.last else {
            throw DefinitionError(description: "\(scenario.id): a scenario ends with an expect step")
        }
        let result = ScenarioReplay.run(scenario, backend: InMemoryScenarioBackend(start: scenario.start))
        guard result.passed else {
            throw DefinitionError(
                description: "\(scenario.id): the reference engine does not meet its expectations:\n  "
                    + result.failures.joined(separator: "\n  "))
        }
        let bytes = CanonicalJSON.encode(scenario.value)
        do {
            _ = try Scenario(CanonicalJSON.decode(bytes, file: scenario.id), file: scenario.id)
        } catch {
            throw DefinitionError(description: "\(scenario.id): the written file does not read back: \(error)")
        }
        return (String(scenario.id.dropFirst(prefix.count)), bytes)
    }

    /// The canonical bytes of a document golden: its fixture encoded by the reference in both forms.
    /// - Throws: `DefinitionError` when the reference rejects the fixture.
    static func render(_ d: DocumentGoldenDefinition, writer: Writer, with reference: inout ReferenceImplementation)
        throws -> [UInt8]
    {
        let fixture = writer.writing(d.fixture)
        var golden: [String: FirestoreValue] = [
            "case": .string("\(Level.of(d.pins)).schema.\(d.name).\(writer.rawValue)"), "section": .string(d.section),
            "collection": .string(d.collection),
            "fixture": .map(fixture), "note": .string(d.note),
        ]
        if !d.pins.isEmpty { golden["pins"] = .array(d.pins.map { .string($0.rawValue) }) }
        for form in DocumentForm.allCases {
            let input: FirestoreValue = .map([
                "collection": .string(d.collection), "form": .string(form.rawValue), "fixture": .map(fixture),
            ])
            let probe = ConformanceCase(
                id: d.name, section: d.section, op: "encode", input: input, expected: .output(.null))
            guard case .output(let out) = reference.answer(probe), case .string(let path)? = out.mapValue?["path"],
                let document = out.mapValue?["document"]
            else {
                throw DefinitionError(
                    description: "\(d.name): the reference did not encode the fixture: \(reference.answer(probe))")
            }
            golden["path"] = .string(path)
            golden[form.rawValue] = document
        }
        return CanonicalJSON.encode(.map(golden))
    }

    struct DefinitionError: Error, CustomStringConvertible {
        var description: String
    }

    /// The canonical bytes of a vector file; each case answered by `reference`.
    /// - Throws: `DefinitionError` when the reference skips a case or answers otherwise than declared.
    static func render(_ file: VectorFile, with reference: inout ReferenceImplementation) throws -> [UInt8] {
        var cases: [FirestoreValue] = []
        var seen: Set<String> = []
        for d in file.cases {
            guard seen.insert(d.fullId).inserted else {
                throw DefinitionError(description: "\(d.fullId) is defined twice")
            }
            guard d.fullId.hasPrefix(Level.of(d.pins) + ".") else {
                throw DefinitionError(
                    description: "\(d.fullId): its pins make it \(Level.of(d.pins)) (a choice or open pin: recommended)"
                )
            }
            let probe = ConformanceCase(
                id: d.fullId, section: d.section, op: d.op, input: d.input, expected: .output(.null))
            var m: [String: FirestoreValue] = [
                "id": .string(d.fullId), "section": .string(d.section), "op": .string(d.op), "input": d.input,
            ]
            if let note = d.note { m["note"] = .string(note) }
            if !d.pins.isEmpty { m["pins"] = .array(d.pins.map { .string($0.rawValue) }) }
            if let base = d.base { m["base"] = .map(base) }
            switch reference.answer(probe) {
            case .output(let o):
                if let want = d.expectedError {
                    throw DefinitionError(
                        description:
                            "\(d.fullId): declared to fail with \(want), but the reference answered \(CanonicalJSON.compactString(o))"
                    )
                }
                m["output"] = o
            case .error(let code, let message):
                guard d.expectedError == code else {
                    throw DefinitionError(
                        description:
                            "\(d.fullId): the reference rejected it with \(code) (\(message)); declared \(d.expectedError ?? "an output")"
                    )
                }
                m["error"] = .string(code)
            case .skipped(let reason), .broken(let reason):
                throw DefinitionError(description: "\(d.fullId): the reference did not answer: \(reason)")
            }
            cases.append(.map(m))
        }
        return CanonicalJSON.encode(
            .map(["area": .string(file.area), "summary": .string(file.summary), "cases": .array(cases)]))
    }

    /// A unified diff of two texts (golden → new).
    static func diff(old: [UInt8], new: [UInt8], path: String) -> String {
        LineDiff.unified(
            old: String(decoding: old, as: UTF8.self), new: String(decoding: new, as: UTF8.self), path: path)
    }
}

/// The golden files of `Goldens/schema/`, `Goldens/vectors/` and `Goldens/scenarios/`: the reference
/// implementation's answers to the case definitions of this library, and the scenarios the reference
/// engine replays with every expectation holding, rendered as canonical bytes. `vulture-goldens`
/// writes or checks them; `swift test` checks them too (Goldens/README.md).
public enum GoldenWriter {
    /// One golden file: its path from the package root and its canonical bytes.
    public struct File: Sendable {
        /// `Goldens/schema/flight.android.json`, `Goldens/vectors/ids.json`, …
        public let path: String
        /// The canonical bytes the reference renders.
        public let bytes: [UInt8]
    }

    /// One golden file that is not what the reference renders now, with a unified diff golden → new.
    public struct Drift: Sendable, CustomStringConvertible {
        /// The file's path from the package root.
        public let path: String
        /// The rendered bytes (what `write` would store).
        public let bytes: [UInt8]
        /// `--- a/PATH`, `+++ b/PATH` and the hunks.
        public let diff: String
        /// A file of `Goldens/schema/`, `Goldens/vectors/` or `Goldens/scenarios/` that no definition writes any
        /// more: `write` deletes it.
        public let isStale: Bool

        public var description: String { diff }
    }

    /// Every golden file as the reference renders it now, in a fixed order.
    /// - Throws: a definition error when the reference skips a case or answers otherwise than declared.
    public static func render() throws -> [File] {
        let files = GoldenFiles.all()
        var reference = ReferenceImplementation(schema: .vulture)
        var out: [File] = []
        for golden in files.documents {
            for writer in Writer.allCases {
                out.append(
                    File(
                        path: "Goldens/schema/\(golden.name).\(writer.rawValue).json",
                        bytes: try GoldenFiles.render(golden, writer: writer, with: &reference)))
            }
        }
        for file in files.vectors {
            out.append(
                File(path: "Goldens/vectors/\(file.area).json", bytes: try GoldenFiles.render(file, with: &reference)))
        }
        // Every scenario is replayed before any error is thrown, so one run names all that fail.
        var names: Set<String> = []
        var problems: [String] = []
        for scenario in files.scenarios {
            do {
                let (name, bytes) = try GoldenFiles.render(scenario)
                guard names.insert(name).inserted else {
                    throw GoldenFiles.DefinitionError(description: "\(scenario.id) is defined twice")
                }
                out.append(File(path: "Goldens/scenarios/\(name).json", bytes: bytes))
            } catch {
                problems.append("\(error)")
            }
        }
        if !problems.isEmpty { throw GoldenFiles.DefinitionError(description: problems.joined(separator: "\n")) }
        return out
    }

    /// The files under `root` that differ from `files` (missing files count, with an empty old side),
    /// then the `.json` files of `Goldens/schema/`, `Goldens/vectors/` and `Goldens/scenarios/` that `files` does
    /// not hold (stale).
    public static func drift(of files: [File], under root: URL) -> [Drift] {
        var out: [Drift] = files.compactMap { file in
            let old = FileManager.default.contents(atPath: root.appendingPathComponent(file.path).path).map {
                [UInt8]($0)
            }
            guard old != file.bytes else { return nil }
            return Drift(
                path: file.path, bytes: file.bytes,
                diff: GoldenFiles.diff(old: old ?? [], new: file.bytes, path: file.path), isStale: false)
        }
        let written = Set(files.map(\.path))
        for folder in ["Goldens/schema", "Goldens/vectors", "Goldens/scenarios"] {
            let names =
                (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
            for name in names.sorted() where name.hasSuffix(".json") && !written.contains("\(folder)/\(name)") {
                let path = "\(folder)/\(name)"
                let old = FileManager.default.contents(atPath: root.appendingPathComponent(path).path).map {
                    [UInt8]($0)
                }
                out.append(
                    Drift(
                        path: path, bytes: [],
                        diff: "stale: \(path) (no definition writes it; write deletes it)\n"
                            + GoldenFiles.diff(old: old ?? [], new: [], path: path), isStale: true))
            }
        }
        return out
    }
}
