import VultureSchemaCore
import VultureSyncSchema

/// Machine-readable reports of a run: JUnit XML for CI dashboards and a JSON report.
public enum RunReport {
    /// JUnit XML: one `<testsuite name="vulture-conformance">`, one `<testcase>` per case
    /// (`classname` = the id without its last component, `name` = the id), `<failure>` with the
    /// differences, `<skipped>` with the reason. Failure-list reconciliation problems appear as
    /// extra failed test cases named `failure-list.*`.
    public static func junitXML(
        _ results: [CaseResult], reconciliation: FailureList.Reconciliation?, suiteVersion: String
    ) -> String {
        var cases: [String] = []
        var failures = 0
        var errors = 0
        var skipped = 0
        for r in results {
            let classname = r.id.split(separator: ".").dropLast().joined(separator: ".")
            var body = ""
            switch r.outcome {
            case .passed: break
            case .failed(let message, let differences):
                let expectedFailure = reconciliation.map { !$0.unexpectedFailures.contains(r.id) } ?? false
                if expectedFailure {
                    skipped += 1
                    body = "<skipped message=\"\(escape("expected failure (failure list): " + message))\"/>"
                } else {
                    let detail = (differences.map(\.description) + FailureExplanation.lines(for: r))
                        .joined(separator: "\n")
                    // A crash, protocol break or timeout is an error of the run, a wrong answer a failure.
                    if case .broken? = r.answer {
                        errors += 1
                        body = "<error message=\"\(escape(message))\">\(escape(detail))</error>"
                    } else {
                        failures += 1
                        body = "<failure message=\"\(escape(message))\">\(escape(detail))</failure>"
                    }
                }
            case .skipped(let reason):
                skipped += 1
                body = "<skipped message=\"\(escape(reason))\"/>"
            }
            cases.append(
                "    <testcase classname=\"\(escape(classname))\" name=\"\(escape(r.id))\" time=\"\(formatSeconds(r.seconds))\">"
                    + body + "</testcase>")
        }
        if let rec = reconciliation {
            for id in rec.unexpectedPasses {
                failures += 1
                cases.append(
                    "    <testcase classname=\"failure-list\" name=\"failure-list.stale.\(escape(id))\" time=\"0.000\">"
                        + "<failure message=\"listed as failing but passed: remove it from the failure list\"/></testcase>"
                )
            }
            for entry in rec.unknownEntries {
                failures += 1
                cases.append(
                    "    <testcase classname=\"failure-list\" name=\"failure-list.unknown.\(escape(entry.id))\" time=\"0.000\">"
                        + "<failure message=\"line \(entry.line): matches no case\"/></testcase>")
            }
        }
        let total = cases.count
        let time = formatSeconds(results.reduce(0) { $0 + $1.seconds })
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites tests="\(total)" failures="\(failures)" errors="\(errors)" skipped="\(skipped)" time="\(time)">
              <testsuite name="vulture-conformance" tests="\(total)" failures="\(failures)" errors="\(errors)" skipped="\(skipped)" time="\(time)">
                <properties><property name="suiteVersion" value="\(escape(suiteVersion))"/></properties>
            \(cases.joined(separator: "\n"))
              </testsuite>
            </testsuites>

            """
    }

    /// JUnit XML for a run that did not get to its cases (the testee could not start, the run was
    /// interrupted): one `<testcase name="vulture-conformance.run">` with an `<error>` giving `reason`.
    /// Written before a run starts, so that a report file is valid XML on every exit.
    public static func junitXML(notRun reason: String, suiteVersion: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites tests="1" failures="0" errors="1" skipped="0" time="0.000">
          <testsuite name="vulture-conformance" tests="1" failures="0" errors="1" skipped="0" time="0.000">
            <properties><property name="suiteVersion" value="\(escape(suiteVersion))"/></properties>
            <testcase classname="vulture-conformance" name="vulture-conformance.run" time="0.000"><error message="\(escape(reason))"/></testcase>
          </testsuite>
        </testsuites>

        """
    }

    /// The JSON report of a run that did not get to its cases: `{suiteVersion, error, summary, cases: []}`.
    public static func json(notRun reason: String, suiteVersion: String) -> String {
        CanonicalJSON.string(
            .map([
                "suiteVersion": .string(suiteVersion), "error": .string(reason),
                "summary": .map(["passed": .integer(0), "failed": .integer(0), "skipped": .integer(0)]),
                "cases": .array([]),
            ]))
    }

    /// A JSON report in canonical bytes: `{suiteVersion, summary: {passed, failed, skipped},
    /// cases: [{id, section, op, area, outcome, seconds, message?, reason?, differences?: [{pointer, kind,
    /// expected?, actual?, hint?}], …}], failureList?: {unexpectedFailures, unexpectedPasses, unknownEntries}}`.
    /// A failed case also carries `input`, `note`, `pins`, `expected` (`{"output": value}` or
    /// `{"error": code}`), `actual` (`{"output": value}`, `{"error": {code, message}}`, `{"skipped": reason}`
    /// or `{"broken": message}`), `expectedError` and `actualError` (the codes, when rejections) and
    /// `hashed` (the text the reference hashed, for an id). Values are canonical typed JSON.
    public static func json(
        _ results: [CaseResult], summary: RunSummary, reconciliation: FailureList.Reconciliation?,
        suiteVersion: String
    ) -> String {
        var cases: [FirestoreValue] = []
        for r in results {
            var m: [String: FirestoreValue] = [
                "id": .string(r.id), "section": .string(r.section),
                "seconds": .double((r.seconds * 1000).rounded() / 1000),
            ]
            if let c = r.testCase {
                m["op"] = .string(c.op)
                m["area"] = .string(c.area)
            }
            switch r.outcome {
            case .passed: m["outcome"] = .string("passed")
            case .skipped(let reason):
                m["outcome"] = .string("skipped")
                m["reason"] = .string(reason)
            case .failed(let message, let differences):
                m["outcome"] = .string("failed")
                m["message"] = .string(message)
                m["differences"] = .array(
                    differences.map { d in
                        var dm: [String: FirestoreValue] = [
                            "pointer": .string(d.pointer), "kind": .string(d.kind.rawValue),
                        ]
                        if let e = d.expected { dm["expected"] = e }
                        if let a = d.actual { dm["actual"] = a }
                        if let h = d.hint { dm["hint"] = .string(h) }
                        return .map(dm)
                    })
                if let c = r.testCase {
                    m["input"] = c.input
                    if let note = c.note { m["note"] = .string(note) }
                    if !c.pins.isEmpty { m["pins"] = .array(c.pins.map { .string($0) }) }
                    switch c.expected {
                    case .output(let v): m["expected"] = .map(["output": v])
                    case .error(let code):
                        m["expected"] = .map(["error": .string(code)])
                        m["expectedError"] = .string(code)
                    }
                    if let hashed = FailureExplanation.hashedText(op: c.op, input: c.input) {
                        m["hashed"] = .string(hashed)
                    }
                }
                switch r.answer {
                case .output(let v)?: m["actual"] = .map(["output": v])
                case .error(let code, let message)?:
                    m["actual"] = .map(["error": .map(["code": .string(code), "message": .string(message)])])
                    m["actualError"] = .string(code)
                case .skipped(let reason)?: m["actual"] = .map(["skipped": .string(reason)])
                case .broken(let message)?: m["actual"] = .map(["broken": .string(message)])
                case nil: break
                }
            }
            cases.append(.map(m))
        }
        var root: [String: FirestoreValue] = [
            "suiteVersion": .string(suiteVersion),
            "summary": .map([
                "passed": .integer(Int64(summary.passed)), "failed": .integer(Int64(summary.failed)),
                "skipped": .integer(Int64(summary.skipped)),
            ]),
            "cases": .array(cases),
        ]
        if let rec = reconciliation {
            root["failureList"] = .map([
                "unexpectedFailures": .array(rec.unexpectedFailures.map { .string($0) }),
                "unexpectedPasses": .array(rec.unexpectedPasses.map { .string($0) }),
                "unknownEntries": .array(rec.unknownEntries.map { .string($0.id) }),
            ])
        }
        return CanonicalJSON.string(.map(root))
    }

    static func formatSeconds(_ s: Double) -> String {
        let ms = Int((s * 1000).rounded())
        let frac = String(ms % 1000)
        return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }

    /// XML attribute and text escaping; control characters XML 1.0 cannot hold become U+FFFD.
    static func escape(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n": out += "&#10;"
            case "\t", "\r": out.unicodeScalars.append(u)
            case "\u{0}"..."\u{1F}", "\u{FFFE}", "\u{FFFF}": out += "\u{FFFD}"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }
}
