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
                    failures += 1
                    let detail = differences.map(\.description).joined(separator: "\n")
                    body = "<failure message=\"\(escape(message))\">\(escape(detail))</failure>"
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
                    "    <testcase classname=\"failure-list\" name=\"failure-list.stale.\(escape(id))\">"
                        + "<failure message=\"listed as failing but passed: remove it from the failure list\"/></testcase>"
                )
            }
            for entry in rec.unknownEntries {
                failures += 1
                cases.append(
                    "    <testcase classname=\"failure-list\" name=\"failure-list.unknown.\(escape(entry.id))\">"
                        + "<failure message=\"line \(entry.line): matches no case\"/></testcase>")
            }
        }
        let total = cases.count
        let time = formatSeconds(results.reduce(0) { $0 + $1.seconds })
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites>
              <testsuite name="vulture-conformance" tests="\(total)" failures="\(failures)" skipped="\(skipped)" time="\(time)">
                <properties><property name="suiteVersion" value="\(escape(suiteVersion))"/></properties>
            \(cases.joined(separator: "\n"))
              </testsuite>
            </testsuites>

            """
    }

    /// A JSON report in canonical bytes: `{suiteVersion, summary: {passed, failed, skipped},
    /// cases: [{id, section, outcome, message?, reason?, differences?: [{pointer, kind, expected?,
    /// actual?, hint?}]}], failureList?: {unexpectedFailures, unexpectedPasses, unknownEntries}}`.
    /// Expected and actual values are canonical typed JSON.
    public static func json(
        _ results: [CaseResult], summary: RunSummary, reconciliation: FailureList.Reconciliation?,
        suiteVersion: String
    ) -> String {
        var cases: [FirestoreValue] = []
        for r in results {
            var m: [String: FirestoreValue] = ["id": .string(r.id), "section": .string(r.section)]
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
