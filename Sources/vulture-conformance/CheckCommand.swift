import Foundation
import VultureCommandLine
import VultureConformance
import VultureSchemaCore
import VultureSyncSchema

/// `check DIR`: compares an implementation's output files, named as the goldens, with the
/// goldens by typed value (README "The conformance runner").
enum CheckCommand {
    static let usage = """
        usage: vulture-conformance check DIR [--goldens DIR] [--failure-list FILE] [--only AREA]… [--platform NAME]
                                             [--junit FILE] [--report FILE] [--write-failure-list FILE]

        DIR holds an implementation's outputs under the goldens' names:
          DIR/schema/NAME.PLATFORM.json  {"path": …, "write": {…}, "stored": {…}} (any of the three)
          DIR/vectors/AREA.json          {"cases": [{"id": …, "output": … | "error": "RULE-ID" | "skipped": "why"}]}
        in canonical typed JSON. Each is compared with the golden by typed value; cases without
        an output are skipped, and a difference is reported at its place in the output file
        (/write/…, /stored/…, /path); a form the file lacks leaves its case skipped, and a path
        given alone is compared too. An output file that is malformed (an unknown member, an
        error that is not a string, a case id the golden file does not have, a case answered
        twice) fails, and so does a file in schema/ or vectors/ that no golden is named as; an
        error string that is no rule id fails its case, and the report says so. A golden-named
        path that cannot be read (a folder, a dangling link) is an I/O error.
        --only, --platform, --junit, --report and --write-failure-list work as for a run (the
        folders of their files are made when missing).

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
        let args = try CommandLineArguments(
            arguments,
            valueOptions: ["goldens", "failure-list", "junit", "report", "only", "platform", "write-failure-list"],
            repeatable: ["only"])
        let dir = URL(fileURLWithPath: try args.positionals("DIR")[0])
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw IOFailure(message: "\(dir.path.shownArgument) is not a folder")
        }
        let suite = try SuiteCommand.loadSuite(args.option("goldens"))
        let failureList = try SuiteCommand.loadFailureList(args)
        let only = try SuiteCommand.Selection(args, suite: suite).ids(of: suite.cases)
        try SuiteCommand.prepareReports(args, suiteVersion: suite.version)
        var answers: [String: ImplementationAnswer] = [:]
        var problems: [String] = []
        var filesRead = 0
        for (relative, golden) in suite.files {
            let url = dir.appendingPathComponent(relative)
            // Absent: no output for these cases. Present but unreadable (a folder, a dangling link): an I/O error.
            guard
                (try? FileManager.default.attributesOfItem(atPath: url.path)) != nil
                    || (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) != nil
            else { continue }
            let bytes: [UInt8]
            do {
                bytes = try FileContents.bytes(atPath: url.path)
            } catch {
                throw IOFailure(message: "\(error)")
            }
            filesRead += 1
            let value: FirestoreValue
            do {
                value = try CanonicalJSON.decode(bytes, file: url.path)
            } catch {
                for id in caseIDs(in: golden) { answers[id] = .broken("unreadable output: \(error)") }
                continue
            }
            if relative.hasPrefix("schema/") {
                collectDocumentAnswers(value, golden: golden, file: url.path, into: &answers, problems: &problems)
            } else {
                collectVectorAnswers(value, golden: golden, file: url.path, into: &answers, problems: &problems)
            }
        }
        // A file in schema/ or vectors/ that no golden is named as is a misnamed output, not nothing.
        let goldenNames = Set(suite.files.map(\.path))
        for folder in ["schema", "vectors"] {
            let url = dir.appendingPathComponent(folder)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { continue }
            guard isFolder.boolValue else {
                problems.append("\(url.path): /: \(folder) must be a folder of output files named as the goldens")
                continue
            }
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
            for name in names where !goldenNames.contains("\(folder)/\(name)") {
                problems.append("\(url.appendingPathComponent(name).path): /: no golden is named \(folder)/\(name)")
            }
        }
        guard filesRead > 0 else {
            throw IOFailure(
                message: "\(dir.path.shownArgument) holds no file named as a golden (schema/*.json, vectors/*.json)")
        }
        var implementation = FileAnswers(answers: answers)
        var outcome = ConformanceRunner.run(
            suite.cases, on: &implementation, failureList: failureList, only: only, skippedRequiredFails: false)
        outcome.results = outcome.results.map(pointingIntoOutputFiles)
        try SuiteCommand.writeReports(outcome, args: args, suiteVersion: suite.version)
        try SuiteCommand.writeFailureList(outcome, args: args, suiteVersion: suite.version)
        for line in problems { print(line) }
        var lines = ConformanceRunner.report(outcome, failureList: failureList)
        var summary = outcome.summary
        summary.failed += problems.count
        lines[lines.count - 1] = summary.line
        for line in lines { print(line) }
        return problems.isEmpty ? outcome.exitStatus : 1
    }

    /// A document case's differences at the member of the output file they concern: the case compares
    /// `{path, document}`, the file holds `path`, `write` and `stored`, so `/document/…` of `CASE.write`
    /// is `/write/…` of the file.
    static func pointingIntoOutputFiles(_ r: CaseResult) -> CaseResult {
        guard case .failed(let message, let differences) = r.outcome, r.testCase?.op == "encode",
            let form = r.id.split(separator: ".").last.map(String.init), DocumentForm(rawValue: form) != nil
        else { return r }
        var result = r
        result.outcome = .failed(
            message: message,
            differences: differences.map { d in
                var moved = d
                if d.pointer == "/document" || d.pointer.hasPrefix("/document/") {
                    moved.pointer = "/" + form + d.pointer.dropFirst("/document".count)
                }
                return moved
            })
        return result
    }

    static func caseIDs(in golden: FirestoreValue) -> [String] {
        if case .string(let id)? = golden.mapValue?["case"] {
            return DocumentForm.allCases.map { "\(id).\($0.rawValue)" }
        }
        guard case .array(let cases)? = golden.mapValue?["cases"] else { return [] }
        return cases.compactMap { if case .string(let id)? = $0.mapValue?["id"] { id } else { nil } }
    }

    /// A document output answers `CASE.write` and `CASE.stored` with `{path, document}`. Members:
    /// `path`, `write`, `stored`, at least one; a member it lacks is taken from the golden so that
    /// only what it has is judged. Anything else breaks both cases.
    static func collectDocumentAnswers(
        _ value: FirestoreValue, golden: FirestoreValue, file: String,
        into answers: inout [String: ImplementationAnswer],
        problems: inout [String]
    ) {
        guard case .map(let g) = golden, case .string(let id)? = g["case"] else { return }
        let known: Set<String> = ["path", "write", "stored"]
        func breakBoth(_ message: String) {
            for form in DocumentForm.allCases { answers["\(id).\(form.rawValue)"] = .broken("\(file): \(message)") }
        }
        guard case .map(let m) = value else { return breakBoth("the output is a map {path, write, stored}") }
        if let extra = m.keys.sorted().first(where: { !known.contains($0) }) {
            return breakBoth("unknown member \"\(extra)\"; an output has path, write and stored")
        }
        guard !m.isEmpty else { return breakBoth("the output has none of path, write, stored") }
        // A form the output lacks is not answered (its case is skipped): filled from the golden, it
        // would pass a document the implementation never wrote.
        for form in DocumentForm.allCases {
            guard let document = m[form.rawValue] else { continue }
            answers["\(id).\(form.rawValue)"] = .output(
                .map(["path": m["path"] ?? g["path"] ?? .null, "document": document]))
        }
        // A path alone is still compared: no case holds it, so a difference is a problem of the file.
        if let path = m["path"], m["write"] == nil, m["stored"] == nil, path != g["path"] {
            problems.append(
                "\(file): /path: \(CanonicalJSON.compactString(path)), the golden's is "
                    + CanonicalJSON.compactString(g["path"] ?? .null))
        }
    }

    /// A vector output: `{"cases": [{"id", "output" | "error" | "skipped"}]}` (the golden's own
    /// members `area`, `summary`, `section`, `op`, `input`, `note` and `base` may be echoed). An entry
    /// without an id, with an id this file's golden does not have, or given twice is a problem.
    static func collectVectorAnswers(
        _ value: FirestoreValue, golden: FirestoreValue, file: String,
        into answers: inout [String: ImplementationAnswer],
        problems: inout [String]
    ) {
        guard case .map(let root) = value, case .array(let cases)? = root["cases"] else {
            problems.append(
                "\(file): /: an output vector file is {\"cases\": [{\"id\", \"output\" | \"error\" | \"skipped\"}]}")
            return
        }
        if let extra = root.keys.sorted().first(where: { !["cases", "area", "summary"].contains($0) }) {
            problems.append("\(file): /\(extra): unknown member")
        }
        let known = Set(caseIDs(in: golden))
        var seen: Set<String> = []
        let allowed: Set<String> = ["id", "output", "error", "skipped", "section", "op", "input", "note", "base"]
        for (i, c) in cases.enumerated() {
            let p = "\(file): /cases/\(i)"
            guard case .map(let m) = c, case .string(let id)? = m["id"] else {
                problems.append("\(p): a case output is a map with a string id")
                continue
            }
            guard known.contains(id) else {
                problems.append("\(p): no case \(id) in this golden file")
                continue
            }
            guard seen.insert(id).inserted else {
                problems.append("\(p): case \(id) is answered twice")
                answers[id] = .broken("\(file): answered twice")
                continue
            }
            if let extra = m.keys.sorted().first(where: { !allowed.contains($0) }) {
                answers[id] = .broken("\(p)/\(extra): unknown member")
                continue
            }
            switch (m["output"], m["error"], m["skipped"]) {
            case (let o?, nil, nil): answers[id] = .output(o)
            case (nil, .string(let code)?, nil): answers[id] = .error(code: code, message: "")
            case (nil, .some(let other), nil):
                answers[id] = .broken(
                    "\(p)/error: an error is the rule id as a string (\"id.too-long\"), not \(other.typeName)")
            case (nil, nil, .string(let reason)?): answers[id] = .skipped(reason: reason)
            default: answers[id] = .broken("\(p): a case output has exactly one of output, error, skipped")
            }
        }
    }
}
