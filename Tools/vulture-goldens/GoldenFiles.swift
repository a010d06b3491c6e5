import Foundation
import VultureConformance
import VultureSyncSchema

/// Renders golden files from definitions.
enum GoldenFiles {
    struct All {
        var documents: [DocumentGoldenDefinition]
        var vectors: [VectorFile]
    }

    static func all() -> All {
        All(
            documents: DocumentGoldens.all,
            vectors: [
                IdVectors.file, BlobVectors.file, DocumentVectors.file, InvalidDocumentVectors.file,
                SettingsVectors.file,
            ])
    }

    /// The canonical bytes of a document golden: its fixture encoded by the reference in both forms.
    /// - Throws: `DefinitionError` when the reference rejects the fixture.
    static func render(_ d: DocumentGoldenDefinition, with reference: inout ReferenceImplementation) throws -> [UInt8] {
        var golden: [String: FirestoreValue] = [
            "case": .string("required.schema.\(d.name)"), "section": .string(d.section),
            "collection": .string(d.collection),
            "fixture": .map(d.fixture), "note": .string(d.note),
        ]
        for form in DocumentForm.allCases {
            let input: FirestoreValue = .map([
                "collection": .string(d.collection), "form": .string(form.rawValue), "fixture": .map(d.fixture),
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
        for d in file.cases {
            let probe = ConformanceCase(
                id: d.id, section: d.section, op: d.op, input: d.input, expected: .output(.null))
            var m: [String: FirestoreValue] = [
                "id": .string(d.id), "section": .string(d.section), "op": .string(d.op), "input": d.input,
            ]
            if let note = d.note { m["note"] = .string(note) }
            switch reference.answer(probe) {
            case .output(let o):
                if let want = d.expectedError {
                    throw DefinitionError(
                        description:
                            "\(d.id): declared to fail with \(want), but the reference answered \(CanonicalJSON.compactString(o))"
                    )
                }
                m["output"] = o
            case .error(let code, let message):
                guard d.expectedError == code else {
                    throw DefinitionError(
                        description:
                            "\(d.id): the reference rejected it with \(code) (\(message)); declared \(d.expectedError ?? "an output")"
                    )
                }
                m["error"] = .string(code)
            case .skipped(let reason), .broken(let reason):
                throw DefinitionError(description: "\(d.id): the reference did not answer: \(reason)")
            }
            cases.append(.map(m))
        }
        return CanonicalJSON.encode(
            .map(["area": .string(file.area), "summary": .string(file.summary), "cases": .array(cases)]))
    }

    /// A unified diff of two texts (golden → new), from `diff -u` where the system has it.
    static func diff(old: [UInt8], new: [UInt8], path: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vulture-goldens-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("golden")
        let b = dir.appendingPathComponent("new")
        try? Data(old).write(to: a)
        try? Data(new).write(to: b)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/diff")
        p.arguments = ["-u", "--label", "\(path) (golden)", "--label", "\(path) (new)", a.path, b.path]
        let pipe = Pipe()
        p.standardOutput = pipe
        do {
            try p.run()
        } catch {
            return "\(path) differs (no diff tool: \(error))"
        }
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: out, as: UTF8.self)
    }
}
