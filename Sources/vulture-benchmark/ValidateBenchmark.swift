import Foundation
import VultureSyncSchema

/// `vulture-benchmark validate`: documents per second of parse + schema validation (the per-file work
/// of `vulture-conformance validate --collection flights`, without its printing) on 100,000 generated valid stored-form flights, beside Python
/// jsonschema 4.23.0 (PyPI) validating the same JSON Lines against
/// `Goldens/jsonschema/flights.stored.schema.json` in the same run. Errors out when either side
/// rejects a document; prints a `skipped:` line for the Python side when Python or pip is missing.
enum ValidateBenchmark {
    /// Documents generated and validated per pass.
    static let documentCount = 100_000
    /// Passes per measurement on our side (the best is reported).
    static let ourRepetitions = 3
    /// Passes per measurement on the Python side (slower; one pass of 100,000 is already long).
    static let pythonRepetitions = 1
    /// The pinned reference, installed from PyPI under `.build/ci-python` as CI does.
    static let jsonschemaPin = "4.23.0"

    /// The package root: three levels above this file (`Sources/vulture-benchmark/…`).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func run() throws {
        let fixture = packageRoot.appendingPathComponent("Goldens/jsonschema/fixtures/valid/flights.stored.json")
        let schema = packageRoot.appendingPathComponent("Goldens/jsonschema/flights.stored.schema.json")
        guard
            case .map(let base) = try CanonicalJSON.decode(Data(contentsOf: fixture), file: fixture.path, form: .stored)
        else { throw ValidateBenchmarkError.setup("\(fixture.path) is not a map of fields") }

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vulture-bench-validate-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let jsonl = dir.appendingPathComponent("flights.stored.jsonl")
        var text: [UInt8] = []
        text.reserveCapacity(documentCount * 2_000)
        for i in 0..<documentCount {
            text.append(contentsOf: CanonicalJSON.compactString(flight(i, base: base)).utf8)
            text.append(0x0A)
        }
        try Data(text).write(to: jsonl)
        print(
            "validate: \(documentCount) generated stored-form flights (from the valid fixture), "
                + String(format: "%.1f MB of canonical JSON Lines; ", Double(text.count) / 1e6)
                + "ours best of \(ourRepetitions), Python best of \(pythonRepetitions)")

        let validator = SchemaValidator(schema: .vulture)
        var parsed = 0
        let ourParse = try bestTime(repetitions: ourRepetitions) {
            parsed = try pass(jsonl, validator: nil)
        }
        var validated = 0
        let ourValidate = try bestTime(repetitions: ourRepetitions) {
            validated = try pass(jsonl, validator: validator)
        }
        guard parsed == documentCount, validated == documentCount else {
            throw ValidateBenchmarkError.setup("read \(parsed)/\(validated) documents, wrote \(documentCount)")
        }

        guard let python = try runPython(schema: schema, jsonl: jsonl) else {
            reportRate("parse only", documents: documentCount, ours: ourParse, reference: nil)
            reportRate("parse + validate", documents: documentCount, ours: ourValidate, reference: nil)
            return
        }
        guard python.documents == documentCount, python.parsed == documentCount, python.valid == documentCount else {
            throw ValidateBenchmarkError.rejected(
                "Python jsonschema: \(python.valid) of \(python.documents) valid (\(python.parsed) parsed), "
                    + "wrote \(documentCount): \(python.errors.joined(separator: "; "))")
        }
        print(
            "  both sides: \(documentCount) of \(documentCount) valid; Python \(python.python), "
                + "jsonschema \(python.jsonschema) Draft202012Validator")
        reportRate(
            "parse only", documents: documentCount, ours: ourParse, reference: python.parseSeconds,
            referenceName: "json.loads")
        reportRate(
            "parse + validate", documents: documentCount, ours: ourValidate, reference: python.validateSeconds,
            referenceName: "jsonschema")
    }

    /// One pass over the JSON Lines file: read it, decode every line (stored form) and, when a
    /// validator is given, validate it as a `FlightDocument`; the number of documents.
    /// - Throws: the reader's `SchemaInputError`, or `.rejected` at the first violation.
    static func pass(_ file: URL, validator: SchemaValidator?) throws -> Int {
        let bytes = [UInt8](try Data(contentsOf: file))
        let options = ValidationOptions(form: .stored)
        var count = 0
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            let value = try CanonicalJSON.decode(Array(bytes[start..<end]), file: file.path, form: .stored)
            count += 1
            if let validator {
                guard case .map(let fields) = value else {
                    throw ValidateBenchmarkError.rejected("line \(count): not a map of fields")
                }
                let violations = validator.validate(fields, documentType: "FlightDocument", options: options)
                if !violations.isEmpty {
                    throw ValidateBenchmarkError.rejected(
                        "line \(count): " + violations.map(\.description).joined(separator: "; "))
                }
            }
            start = end + 1
        }
        return count
    }

    /// Flight `i`: the fixture's fields as a live document (not a tombstone) with ids, timestamps,
    /// names, numbers, flags and optional nulls varied per document.
    static func flight(_ i: Int, base: [String: FirestoreValue]) -> FirestoreValue {
        func ts(_ offset: Int64) -> FirestoreValue {
            .timestamp(
                try! FirestoreTimestamp(
                    seconds: 1_792_504_987 + Int64(i) * 3_607 + offset, microseconds: Int32(i % 1_000) * 1_000))
        }
        func hex64(_ seed: Int) -> String {
            var x = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
            var out = ""
            for _ in 0..<4 {
                x ^= x << 13
                x ^= x >> 7
                x ^= x << 17
                out += String(x, radix: 16).leftPadded(to: 16)
            }
            return out
        }
        let pilots = ["Jérôme Pilote", "Anna Müller", "Łukasz Kowalski", "Sato Ken 佐藤", "Mary O'Brien", "Ana \"Ace\""]
        let gliders = [("LS8-18", "D-1234"), ("ASG 29", "D-KXXA"), ("Discus 2b", "F-CLAB"), ("Ventus 3", "G-CKZZ")]
        let airfields = [("LFNA", "Gap-Tallard", "FR"), ("EDKA", "Aachen-Merzbrück", "DE"), ("EGHL", "Lasham", "GB")]
        let (glider, registration) = gliders[i % gliders.count]
        let (code, name, country) = airfields[i % airfields.count]
        let seconds = 3_600 + (i * 37) % 28_000
        let distance = 50_000.5 + Double((i * 7_919) % 900_000) / 4
        let sha = hex64(i)
        var f = base
        f["schema"] = .integer(1)
        f["deleted"] = .boolean(false)
        f["deletedAt"] = .null
        f["updatedAt"] = ts(86_400)
        f["clientUpdatedAt"] = ts(86_399)
        f["updatedBy"] = .string("d7f1c0de-\(String(i % 4_096, radix: 16))-4a5b-8c9d-\(String(i, radix: 16))")
        f["platform"] = .string(i % 2 == 0 ? "android" : "ios")
        f["createdAt"] = ts(40_000)
        f["importedAt"] = i % 5 == 0 ? .null : ts(39_000)
        f["lastOpenedAt"] = i % 3 == 0 ? .null : ts(50_000)
        f["filename"] = .string("2026-10-20-XCS-\(String(i, radix: 36).uppercased())-\(i % 10).igc")
        f["pilotName"] = .string(pilots[i % pilots.count])
        f["passengerName"] = i % 7 == 0 ? .string(pilots[(i + 1) % pilots.count]) : .null
        f["gliderType"] = .string(glider)
        f["gliderRegistration"] = .string(registration)
        f["competitionIdentification"] = .string(String(registration.suffix(2)))
        f["competitionClass"] = i % 4 == 0 ? .null : .string(["Standard", "15m", "18m", "Open"][i % 4])
        f["comments"] =
            i % 6 == 0 ? .null : .string("Flight \(i): good thermals over the ridge; \"strong\" wind\nfrom 250°.")
        f["inLogbook"] = .boolean(i % 10 != 0)
        f["isRead"] = .boolean(i % 2 == 1)
        f["isFavorite"] = .boolean(i % 3 == 0)
        f["isContest"] = .boolean(i % 11 == 0)
        f["isFieldLanding"] = .boolean(i % 13 == 0)
        f["isRecordedByVulture"] = .boolean(i % 5 == 1)
        f["isTakeoffProcessed"] = .boolean(i % 9 != 0)
        f["waterBallast"] = .integer(Int64((i * 20) % 200))
        f["rating"] = .integer(Int64(i % 6))
        f["taskId"] = i % 4 == 1 ? .string("task-\(hex64(i / 4).prefix(20))") : .null
        f["weglideFlightId"] = i % 8 == 0 ? .string(String(100_000 + i)) : .null
        f["skylinesFlightId"] = i % 16 == 0 ? .string(String(200_000 + i)) : .null
        f["takeoffCode"] = .string(code)
        f["takeoffName"] = .string(name)
        f["takeoffCountryCode"] = .string(country)
        f["trackPreview"] = .bytes(Data((0..<(32 + i % 224)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) }))
        f["trackPreviewVersion"] = .integer(Int64(i % 3))
        f["igc"] =
            i % 20 == 0
            ? .null
            : .map([
                "path": .string((try? BlobPaths.igcObjectPath(uid: "u\(i % 97)", flightId: sha)) ?? ""),
                "sha256": .string(sha),
                "sizeBytes": .integer(Int64(400_000 + (i * 31) % 2_000_000)),
                "gzBytes": .integer(Int64(90_000 + (i * 17) % 500_000)), "uploaded": .boolean(i % 4 != 3),
            ])
        var summary = base["summary"]?.mapValue ?? [:]
        summary["analysisVersion"] = .integer(Int64(1 + i % 2))
        summary["takeoffAt"] = ts(0)
        summary["landingAt"] = ts(Int64(seconds))
        summary["sportKind"] = i % 17 == 0 ? .null : .string(["glider", "parapente", "delta"][i % 3])
        summary["isTaskCompleted"] = .boolean(i % 3 == 2)
        summary["taskDeclaredDistance"] = .double(distance * 1.1)
        summary["taskCompletedDistance"] = .double(distance)
        summary["taskAverageSpeed"] = .double(distance / Double(seconds))
        summary["optimizedDistance"] = .double(distance * 1.2)
        summary["optimizedAverageSpeed"] = .double(distance * 1.2 / Double(seconds))
        summary["fastestAverageSpeed"] = .double(distance * 1.3 / Double(seconds))
        summary["duration"] = .integer(Int64(seconds))
        summary["altitudeGained"] = .integer(Int64(300 + (i * 13) % 2_500))
        summary["thermalAltitudeGained"] = i % 2 == 0 ? .integer(Int64((i * 29) % 9_000)) : nil
        summary["averageCruisingSpeed"] = .double(20.25 + Double(i % 400) / 16)
        summary["bestThermalVario"] = .double(0.5 + Double(i % 64) / 8)
        summary["rightThermalCount"] = .integer(Int64(i % 40))
        summary["leftThermalCount"] = .integer(Int64((i / 40) % 40))
        f["summary"] = .map(summary)
        return .map(f)
    }

    /// The Python side's verdicts and best times (`jsonschema_validate.py`'s JSON output).
    struct PythonResult: Decodable {
        var python: String
        var jsonschema: String
        var documents: Int
        var parsed: Int
        var valid: Int
        var errors: [String]
        var parseSeconds: Double
        var validateSeconds: Double

        enum CodingKeys: String, CodingKey {
            case python, jsonschema, documents, parsed, valid, errors
            case parseSeconds = "parse_seconds"
            case validateSeconds = "validate_seconds"
        }
    }

    /// Runs `Tools/benchmark/jsonschema_validate.py` with jsonschema pinned under `.build/ci-python`,
    /// installing it there with pip first when the pinned version does not import.
    /// - Returns: nil (after printing `skipped: …`) when python3 or the pinned jsonschema is unavailable.
    static func runPython(schema: URL, jsonl: URL) throws -> PythonResult? {
        guard let python3 = IdsBenchmark.which("python3") else {
            print("  skipped: Python jsonschema side (python3 not on PATH)")
            return nil
        }
        let target = packageRoot.appendingPathComponent(".build/ci-python").path
        let check =
            "import sys; from importlib.metadata import version; import jsonschema; "
            + "sys.exit(0 if version('jsonschema') == '\(jsonschemaPin)' else 1)"
        if try runPythonProcess(python3, ["-c", check], target: target).status != 0 {
            print("  installing jsonschema==\(jsonschemaPin) from PyPI under \(target)")
            let install = try runPythonProcess(
                python3,
                [
                    "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--upgrade", "--target", target,
                    "jsonschema==\(jsonschemaPin)",
                ], target: target)
            guard install.status == 0, try runPythonProcess(python3, ["-c", check], target: target).status == 0 else {
                FileHandle.standardError.write(Data(install.stderr.utf8))
                print("  skipped: Python jsonschema side (pip could not install jsonschema==\(jsonschemaPin))")
                return nil
            }
        }
        let script = packageRoot.appendingPathComponent("Tools/benchmark/jsonschema_validate.py").path
        let run = try runPythonProcess(
            python3, [script, schema.path, jsonl.path, "--repeat", String(pythonRepetitions)], target: target)
        guard run.status == 0 else {
            FileHandle.standardError.write(Data(run.stderr.utf8))
            throw ValidateBenchmarkError.setup("\(script) exited with status \(run.status)")
        }
        return try JSONDecoder().decode(PythonResult.self, from: run.stdout)
    }

    /// Runs python3 with `PYTHONPATH=target`; its exit status, stdout and stderr.
    static func runPythonProcess(_ python3: String, _ args: [String], target: String) throws -> (
        status: Int32, stdout: Data, stderr: String
    ) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python3)
        p.arguments = args
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = target
        p.environment = environment
        // stderr goes to a file so that neither pipe can fill while the other is read.
        let errorPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("vulture-bench-python-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).err")
        _ = FileManager.default.createFile(atPath: errorPath.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorPath) }
        p.standardError = try FileHandle(forWritingTo: errorPath)
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let err = (try? String(contentsOf: errorPath, encoding: .utf8)) ?? ""
        return (p.terminationStatus, out, err)
    }

    /// One report line in documents per second: ours, the reference's (when it ran), and ours / reference.
    static func reportRate(
        _ what: String, documents: Int, ours: Double, reference: Double?, referenceName: String = ""
    ) {
        let n = Double(documents)
        let what = what.padding(toLength: 28, withPad: " ", startingAt: 0)
        guard let reference else {
            print(String(format: "%@ ours %10.0f docs/s   (%ld docs)", what as NSString, n / ours, documents))
            return
        }
        print(
            String(
                format: "%@ ours %10.0f docs/s   %@ %10.0f docs/s   ratio %.2fx   (%ld docs)", what as NSString,
                n / ours, referenceName as NSString, n / reference, reference / ours, documents))
    }
}

/// Runs the `validate` benchmark (``ValidateBenchmark``).
func runValidateBenchmark() throws {
    try ValidateBenchmark.run()
}

/// Why the validate benchmark stopped: a document one side rejected, or a broken setup.
enum ValidateBenchmarkError: Error, CustomStringConvertible {
    case rejected(String)
    case setup(String)
    var description: String {
        switch self {
        case .rejected(let what): "a generated document was rejected: \(what)"
        case .setup(let what): "setup: \(what)"
        }
    }
}

extension String {
    /// The string left-padded with zeros to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
