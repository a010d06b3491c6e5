import Foundation
import VultureConformance
import VultureSyncSchema

/// `check DIR`: compares an implementation's output files, named as the goldens, with the
/// goldens by typed value (DESIGN.md §4).
enum CheckCommand {
    static let usage = """
        usage: vulture-conformance check DIR [--goldens DIR] [--failure-list FILE] [--junit FILE] [--report FILE]

        DIR holds an implementation's outputs under the goldens' names:
          DIR/schema/NAME.json    {"path": …, "write": {…}, "stored": {…}} (any of the three)
          DIR/vectors/AREA.json   {"cases": [{"id": …, "output": … | "error": "RULE-ID"}]}
        in canonical typed JSON. Each is compared with the golden by typed value; cases without
        an output are skipped.

        Exit status: 0 no unexpected difference and the failure list is exact; 1 differences;
        2 usage or I/O error. The last line is `N passed, N failed[, N skipped]`.
        """

    /// An implementation whose answers are read from files instead of computed.
    struct FileAnswers: ConformanceImplementation {
        var answers: [String: ImplementationAnswer]
        mutating func answer(_ testCase: ConformanceCase) -> ImplementationAnswer {
            answers[testCase.id] ?? .skipped(reason: "no output for this case in the checked folder")
        }
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try CommandLineArguments(arguments, valueOptions: ["goldens", "failure-list", "junit", "report"])
        if args.wantsHelp {
            print(usage)
            return 0
        }
        let dir = URL(fileURLWithPath: try args.positionals("DIR")[0])
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw IOFailure(message: "\(dir.path) is not a folder")
        }
        let suite = try SuiteCommand.loadSuite(args.option("goldens"))
        let failureList = try args.option("failure-list").map { path in
            do { return try FailureList.load(path: path) } catch { throw UsageError(message: "\(error)") }
        }
        var answers: [String: ImplementationAnswer] = [:]
        var filesRead = 0
        for (relative, golden) in suite.files {
            let url = dir.appendingPathComponent(relative)
            guard let data = FileManager.default.contents(atPath: url.path) else { continue }
            filesRead += 1
            let value: FirestoreValue
            do {
                value = try CanonicalJSON.decode([UInt8](data), file: url.path)
            } catch {
                for id in caseIDs(in: golden, relative: relative) {
                    answers[id] = .broken("unreadable output: \(error)")
                }
                continue
            }
            if relative.hasPrefix("schema/") {
                collectDocumentAnswers(value, golden: golden, into: &answers)
            } else {
                collectVectorAnswers(value, file: relative, into: &answers)
            }
        }
        guard filesRead > 0 else {
            throw IOFailure(message: "\(dir.path) holds no file named as a golden (schema/*.json, vectors/*.json)")
        }
        var implementation = FileAnswers(answers: answers)
        let outcome = ConformanceRunner.run(suite.cases, on: &implementation, failureList: failureList)
        try SuiteCommand.writeReports(outcome, args: args, suiteVersion: suite.version)
        for line in ConformanceRunner.report(outcome, failureList: failureList) { print(line) }
        return outcome.exitStatus
    }

    static func caseIDs(in golden: FirestoreValue, relative: String) -> [String] {
        if case .string(let id)? = golden.mapValue?["case"] {
            return DocumentForm.allCases.map { "\(id).\($0.rawValue)" }
        }
        guard case .array(let cases)? = golden.mapValue?["cases"] else { return [] }
        return cases.compactMap { if case .string(let id)? = $0.mapValue?["id"] { id } else { nil } }
    }

    /// A document output answers `CASE.write` and `CASE.stored` with `{path, document}`; a member
    /// it lacks is taken from the golden so that only what it has is judged.
    static func collectDocumentAnswers(
        _ value: FirestoreValue, golden: FirestoreValue, into answers: inout [String: ImplementationAnswer]
    ) {
        guard case .map(let g) = golden, case .string(let id)? = g["case"] else { return }
        guard case .map(let m) = value else {
            for form in DocumentForm.allCases { answers["\(id).\(form.rawValue)"] = .broken("the output is not a map") }
            return
        }
        for form in DocumentForm.allCases {
            guard let document = m[form.rawValue] else { continue }
            answers["\(id).\(form.rawValue)"] = .output(
                .map(["path": m["path"] ?? g["path"] ?? .null, "document": document]))
        }
    }

    static func collectVectorAnswers(
        _ value: FirestoreValue, file: String, into answers: inout [String: ImplementationAnswer]
    ) {
        guard case .array(let cases)? = value.mapValue?["cases"] else { return }
        for c in cases {
            guard case .map(let m) = c, case .string(let id)? = m["id"] else { continue }
            switch (m["output"], m["error"], m["skipped"]) {
            case (let o?, nil, nil): answers[id] = .output(o)
            case (nil, .string(let code)?, nil): answers[id] = .error(code: code, message: "")
            case (nil, .map(let e)?, nil):
                if case .string(let code)? = e["code"] { answers[id] = .error(code: code, message: "") }
            case (nil, nil, .string(let reason)?): answers[id] = .skipped(reason: reason)
            default: answers[id] = .broken("\(file): case \(id) needs exactly one of output, error, skipped")
            }
        }
    }
}
