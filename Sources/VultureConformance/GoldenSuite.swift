import Foundation
import VultureGoldenResources
import VultureScenarios
import VultureSchemaCore
import VultureSyncSchema

/// The checked-in goldens (Goldens/) read as conformance cases.
///
/// Layout (the protocol page Goldens/protocol/README.md describes it for other languages):
/// - `Goldens/VERSION` — the suite version (semver), one line.
/// - `Goldens/schema/NAME.PLATFORM.json` — a document golden: `{"case": "required.schema.NAME.PLATFORM",
///   "section": "schema §2", "collection": "flights", "fixture": {…}, "path": "users/…",
///   "write": {…}, "stored": {…}, "note"?, "pins"?}`; it yields the cases `CASE.write` and `CASE.stored`
///   (op `encode`, input `{"collection", "form", "fixture"}`, output `{"path", "document"}`).
/// - `Goldens/vectors/AREA.json` — `{"area": "AREA", "cases": [{"id", "section", "op",
///   "input", "output" | "error", "note"?, "pins"?, "base"?}]}`; `base` is the stored document an
///   output's `write` is judged on (``WriteEffect``).
/// - `Goldens/scenarios/NAME.json` — a scenario golden (Goldens/FORMAT.md, Scenarios): the case
///   `required.scenario.NAME`, or `recommended.scenario.NAME` when its `pins` name a choice or an open
///   question (op ``ScenarioConformance/caseOp``, the scenario as its input), judged by
///   ``ScenarioConformance`` through the engine operations.
/// Every file is canonical typed JSON (Goldens/FORMAT.md), byte-canonical.
public struct GoldenSuite: Sendable {
    /// The suite version from Goldens/VERSION.
    public var version: String
    /// Every case, document goldens first, then vectors, each in file order.
    public var cases: [ConformanceCase]
    /// The golden files read, relative to the goldens folder, with their typed contents.
    public var files: [(path: String, value: FirestoreValue)]

    /// The goldens bundled with this library: `VERSION`, `schema/`, `vectors/` and `scenarios/` of Goldens/,
    /// copied into the resource bundle of the package's `VultureGoldenResources` target when it is
    /// built (`Bundle.module`). Found wherever the bundle is — beside a test bundle on a device or a
    /// simulator, or in the build folder of a package that depends on this one — without the source
    /// checkout.
    public static var defaultRoot: URL { GoldenResources.root }

    /// The parts of a goldens folder, in the order they are read: each must be a folder.
    public static let folders = ["schema", "vectors", "scenarios"]

    /// Reads every golden under `root` (by default the bundled goldens, ``defaultRoot``).
    /// - Throws: `GoldenError` naming the file, JSON pointer and what is wrong, or (with no file) a
    ///   `root` that is no folder, lacks one of `VERSION` and ``folders`` or holds no case; `SchemaInputError`
    ///   for a file that is not canonical typed JSON.
    public static func load(from root: URL = defaultRoot) throws -> GoldenSuite {
        let fm = FileManager.default
        var st = stat()
        guard stat(root.path, &st) == 0 else {
            throw GoldenError(file: "", pointer: "", message: String(cString: strerror(errno)))
        }
        guard st.st_mode & S_IFMT == S_IFDIR else {
            throw GoldenError(file: "", pointer: "", message: "a file, not a goldens folder")
        }
        let versionText: String
        do {
            let bytes = try FileContents.bytes(atPath: root.appendingPathComponent("VERSION").path)
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw GoldenError(file: "VERSION", pointer: "", message: "the suite version is not UTF-8 text")
            }
            versionText = text
        } catch let error as FileAccessError {
            throw GoldenError(
                file: "VERSION", pointer: "",
                message: "cannot read the suite version: \(error.reason)")
        }
        let version = versionText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard Self.isSemanticVersion(version) else {
            throw GoldenError(
                file: "VERSION", pointer: "", message: "\"\(version.shownArgument)\" is not MAJOR.MINOR.PATCH")
        }
        // A missing part is named after the files are read, so that a broken file is reported first.
        let missing = folders.filter { folder in
            var isFolder: ObjCBool = false
            return !fm.fileExists(atPath: root.appendingPathComponent(folder).path, isDirectory: &isFolder)
                || !isFolder.boolValue
        }
        var suite = GoldenSuite(version: version, cases: [], files: [])
        var fileOfCase: [String: String] = [:]
        for folder in folders where !missing.contains(folder) {
            let dir = root.appendingPathComponent(folder)
            let names: [String]
            do {
                names = try fm.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.sorted()
            } catch {
                throw GoldenError(
                    file: folder + "/", pointer: "", message: "cannot list the folder: \(systemReason(of: error))")
            }
            for name in names {
                let relative = folder + "/" + name
                let data: [UInt8]
                do {
                    data = try FileContents.bytes(atPath: dir.appendingPathComponent(name).path)
                } catch {
                    throw GoldenError(
                        file: relative, pointer: "",
                        message: "cannot read the file: \(error.reason)"
                    )
                }
                let value = try CanonicalJSON.decode(data, file: relative)
                suite.files.append((relative, value))
                let cases: [ConformanceCase]
                switch folder {
                case "schema": cases = try documentCases(value, file: relative)
                case "vectors": cases = try vectorCases(value, file: relative)
                default: cases = [try scenarioCase(value, file: relative)]
                }
                for c in cases {
                    if let other = fileOfCase[c.id] {
                        throw GoldenError(
                            file: relative, pointer: "", message: "case id \(c.id) is used twice (also in \(other))")
                    }
                    fileOfCase[c.id] = relative
                }
                suite.cases += cases
            }
        }
        if !missing.isEmpty {
            throw GoldenError(
                file: "", pointer: "",
                message: "no \(missing.map { $0 + "/" }.joined(separator: " or ")) folder; a goldens folder holds "
                    + "VERSION, \(folders.map { $0 + "/" }.joined(separator: ", ")) (Goldens/README.md)")
        }
        guard !suite.cases.isEmpty else {
            throw GoldenError(
                file: "", pointer: "",
                message: "no case: \(folders.map { $0 + "/" }.joined(separator: ", ")) hold no *.json golden")
        }
        return suite
    }

    static func isSemanticVersion(_ s: String) -> Bool {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 3
            && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }

    static func string(_ m: [String: FirestoreValue], _ key: String, file: String, pointer: String) throws -> String {
        guard case .string(let s)? = m[key], !s.isEmpty else {
            throw GoldenError(
                file: file, pointer: JSONPointer.appending(pointer, key), message: "expected a non-empty string")
        }
        return s
    }

    static func documentCases(_ value: FirestoreValue, file: String) throws -> [ConformanceCase] {
        guard case .map(let m) = value else {
            throw GoldenError(file: file, pointer: "", message: "a document golden is a map")
        }
        let id = try string(m, "case", file: file, pointer: "")
        let section = try string(m, "section", file: file, pointer: "")
        let collection = try string(m, "collection", file: file, pointer: "")
        let path = try string(m, "path", file: file, pointer: "")
        guard let fixture = m["fixture"] else { throw GoldenError(file: file, pointer: "/fixture", message: "missing") }
        let note = try optionalString(m, "note", file: file, pointer: "")
        let pins = try pinList(m, id: id, file: file, pointer: "")
        var out: [ConformanceCase] = []
        for form in DocumentForm.allCases {
            guard case .map(let doc)? = m[form.rawValue] else {
                throw GoldenError(
                    file: file, pointer: "/" + form.rawValue, message: "the \(form.rawValue) form is a map")
            }
            out.append(
                ConformanceCase(
                    id: "\(id).\(form.rawValue)", section: section, op: "encode",
                    input: .map(["collection": .string(collection), "form": .string(form.rawValue), "fixture": fixture]
                    ),
                    expected: .output(.map(["path": .string(path), "document": .map(doc)])), note: note, pins: pins))
        }
        return out
    }

    static func optionalString(_ m: [String: FirestoreValue], _ key: String, file: String, pointer: String) throws
        -> String?
    {
        switch m[key] {
        case nil: return nil
        case .string(let s)?: return s
        default:
            throw GoldenError(file: file, pointer: JSONPointer.appending(pointer, key), message: "expected a string")
        }
    }

    /// The case's `pins`: names of `Spec/pins.tsv` (`SchemaPin`); a case resting on a `choice` or `open`
    /// pin is `recommended.*`, and only such a case is.
    static func pinList(_ m: [String: FirestoreValue], id: String, file: String, pointer: String) throws -> [String] {
        guard let value = m["pins"] else {
            guard id.hasPrefix("required.") || id.hasPrefix("recommended.") else {
                throw GoldenError(
                    file: file, pointer: pointer, message: "a case id starts with required. or recommended.")
            }
            if id.hasPrefix("recommended.") {
                throw GoldenError(
                    file: file, pointer: JSONPointer.appending(pointer, "pins"),
                    message: "\(id) is recommended: name the choice or open pin it rests on")
            }
            return []
        }
        guard case .array(let items) = value else {
            throw GoldenError(
                file: file, pointer: JSONPointer.appending(pointer, "pins"), message: "a list of pin names")
        }
        var pins: [String] = []
        var soft = false
        for (i, item) in items.enumerated() {
            guard case .string(let name) = item, let pin = SchemaPin(rawValue: name) else {
                throw GoldenError(
                    file: file, pointer: JSONPointer.appending(JSONPointer.appending(pointer, "pins"), i),
                    message: "no pin \(CanonicalJSON.compactString(item)) in Spec/pins.tsv")
            }
            if pin.kind != .schema { soft = true }
            pins.append(name)
        }
        if soft != id.hasPrefix("recommended.") {
            throw GoldenError(
                file: file, pointer: JSONPointer.appending(pointer, "pins"),
                message: soft
                    ? "\(id) rests on a choice or open pin and must be recommended.*"
                    : "\(id) rests on no choice or open pin and must be required.*")
        }
        return pins
    }

    /// A scenario file as its case; the file must read as a scenario and be named after its id.
    static func scenarioCase(_ value: FirestoreValue, file: String) throws -> ConformanceCase {
        let scenario: Scenario
        do {
            scenario = try Scenario(value, file: file)
        } catch {
            throw GoldenError(file: file, pointer: error.pointer, message: error.message)
        }
        let name = String(file.split(separator: "/").last ?? "").replacingOccurrences(of: ".json", with: "")
        guard scenario.id == "scenario.\(name)" else {
            throw GoldenError(
                file: file, pointer: "/id", message: "the scenario in \(name).json has the id scenario.\(name)")
        }
        // The level follows the pins, as for every case: a choice or an open question makes it recommended.
        let soft = scenario.pins.contains { SchemaPin(rawValue: $0)?.kind != .schema }
        return ConformanceCase(
            id: (soft ? "recommended." : "required.") + scenario.id, section: scenario.section,
            op: ScenarioConformance.caseOp, input: value, expected: .output(.null), note: scenario.note,
            pins: scenario.pins)
    }

    static func vectorCases(_ value: FirestoreValue, file: String) throws -> [ConformanceCase] {
        guard case .map(let m) = value, case .array(let cases)? = m["cases"] else {
            throw GoldenError(file: file, pointer: "/cases", message: "a vector file is {\"area\", \"cases\": [...]}")
        }
        _ = try string(m, "area", file: file, pointer: "")
        var out: [ConformanceCase] = []
        for (i, c) in cases.enumerated() {
            let p = "/cases/\(i)"
            guard case .map(let cm) = c else { throw GoldenError(file: file, pointer: p, message: "a case is a map") }
            let known: Set<String> = ["id", "section", "op", "input", "output", "error", "note", "pins", "base"]
            if let extra = cm.keys.first(where: { !known.contains($0) }) {
                throw GoldenError(file: file, pointer: JSONPointer.appending(p, extra), message: "unknown case member")
            }
            let expected: ConformanceCase.Expectation
            switch (cm["output"], cm["error"]) {
            case (let o?, nil): expected = .output(o)
            case (nil, .string(let code)?): expected = .error(code: code)
            default:
                throw GoldenError(
                    file: file, pointer: p, message: "a case has exactly one of output and error (a rule id)")
            }
            guard let input = cm["input"] else {
                throw GoldenError(file: file, pointer: p + "/input", message: "missing")
            }
            let id = try string(cm, "id", file: file, pointer: p)
            var base: [String: FirestoreValue]? = nil
            switch cm["base"] {
            case nil: break
            case .map(let b)?: base = b
            default:
                throw GoldenError(
                    file: file, pointer: p + "/base",
                    message: "the base a write is judged on is a stored document (a map)")
            }
            out.append(
                ConformanceCase(
                    id: id, section: try string(cm, "section", file: file, pointer: p),
                    op: try string(cm, "op", file: file, pointer: p), input: input, expected: expected,
                    note: try optionalString(cm, "note", file: file, pointer: p),
                    pins: try pinList(cm, id: id, file: file, pointer: p), base: base))
        }
        return out
    }
}

/// A golden file of the wrong shape: `FILE: /pointer: message`.
public struct GoldenError: Error, Sendable, CustomStringConvertible {
    /// The golden file's path, relative to the suite root (`VERSION`, `vectors/ids.json`, `schema/`);
    /// empty for the goldens folder itself.
    public var file: String
    /// JSON pointer of the bad part inside the file; empty for the whole file.
    public var pointer: String
    /// What is wrong.
    public var message: String
    /// `FILE: /pointer: message` for a JSON file (`/` for the whole file); `FILE: message` for
    /// `VERSION` or a folder, which have no pointer; `message` for the goldens folder itself.
    public var description: String {
        if file.isEmpty { return message }
        if pointer.isEmpty && !file.hasSuffix(".json") { return "\(file): \(message)" }
        return "\(file): \(pointer.isEmpty ? "/" : pointer): \(message)"
    }
}
