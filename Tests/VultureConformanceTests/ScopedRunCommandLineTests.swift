import Foundation
import Testing
import VultureConformance
import VultureSchemaCore
import VultureSyncSchema

/// Scoped runs and their reports through the `vulture-conformance` executable: `--only`, `--platform`,
/// `--write-failure-list`, `--verbose`, JUnit on every exit, and `check DIR` pointing into its files.
@Suite(.enabled(if: ConformanceCLI.executable != nil, "vulture-conformance is not built"))
struct ScopedRunCommandLineTests {
    /// A testee answering ids only (through the reference testee's library would need a build; Python is enough).
    static let idsOnly = #"""
        import json, sys
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "start":
                print(json.dumps({"type": "started", "protocolVersion": 1, "implementation": "ids-only"}), flush=True)
            elif m["type"] == "stop":
                break
            elif m["op"] == "id.recentCompetition":
                print(json.dumps({"seq": m["seq"], "output": m["input"]["competitionId"]}), flush=True)
            else:
                print(json.dumps({"seq": m["seq"], "skipped": "not implemented"}), flush=True)
        """#

    @Test func writtenFailureListThenARunWithItExitsZero() throws {
        let dir = try ConformanceCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("testee.py")
        try Data(Self.idsOnly.utf8).write(to: script)
        let list = dir.appendingPathComponent("lists/new/failures.txt")
        let junit = dir.appendingPathComponent("reports/deep/junit.xml")
        let command = "python3 '\(script.path)'"
        let first = try ConformanceCLI.run([
            "run", "--testee", command, "--only", "ids", "--write-failure-list", list.path, "--junit", junit.path,
        ])
        #expect(first.status == 1, "\(first.stdout)")
        let text = try String(contentsOf: list, encoding: .utf8)
        #expect(
            text.contains("required.ids.recent-competition.slash  # accepted an input that breaks id.contains-slash"))
        #expect(!text.contains("required.ids.recent-competition.plain"), "a passing case is not listed")
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.contains(#"name="required.ids.recent-competition.plain" time=""#))
        let second = try ConformanceCLI.run(["run", "--testee", command, "--only", "ids", "--failure-list", list.path])
        #expect(second.status == 0, "\(second.stdout)")
        let listed = text.components(separatedBy: "  # ").count - 1
        #expect(second.stdout.contains("\n\(listed) expected failure(s) listed in \(list.path), counted as skipped\n"))
        let unknown = try ConformanceCLI.run(["--only", "idz"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.hasPrefix("vulture-conformance: no case in area idz; areas: "))
    }

    @Test func aTesteeThatCannotStartLeavesValidReports() throws {
        let dir = try ConformanceCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let junit = dir.appendingPathComponent("missing/folder/junit.xml")
        let report = dir.appendingPathComponent("missing/report.json")
        let r = try ConformanceCLI.run(["run", "--testee", "exit 7", "--junit", junit.path, "--report", report.path])
        #expect(r.status == 2)
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(
            xml.hasPrefix(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites tests=\"1\" failures=\"0\" errors=\"1\""))
        #expect(xml.contains("the testee exited with status 7 before answering start"))
        #expect(xml.hasSuffix("</testsuites>\n"))
        let json = try CanonicalJSON.decode(Data(contentsOf: report))
        #expect(json[fieldPath: "error"].map { "\($0)" }?.contains("status 7") == true)
    }

    @Test func verbosePrintsEachFailureOnce() throws {
        let dir = try ConformanceCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("testee.py")
        try Data(Self.idsOnly.utf8).write(to: script)
        let r = try ConformanceCLI.run([
            "run", "--testee", "python3 '\(script.path)'", "--test", "required.ids.recent-competition.slash",
            "--test", "required.ids.recent-competition.plain", "--verbose",
        ])
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("FAIL required.ids.recent-competition.slash") }.count == 1, "\(r.stdout)")
        #expect(lines.contains("pass required.ids.recent-competition.plain"))
        #expect(lines.contains("  note: a document id cannot hold '/'"))
        #expect(lines.contains(#"  input: {"competitionId": "sgp/2026"}"#))
        #expect(lines.last == "1 passed, 1 failed")
    }

    @Test func platformLeavesOutTheOtherWriter() throws {
        let ios = try ConformanceCLI.run(["--platform", "ios", "--only", "schema.flights"])
        #expect(ios.status == 0)
        let all = try ConformanceCLI.run(["--only", "schema.flights"])
        func count(_ out: String) -> Int? {
            out.split(separator: "\n").first.flatMap { $0.split(separator: " ").dropFirst(2).first.flatMap { Int($0) } }
        }
        let iosCount = try #require(count(ios.stdout))
        let allCount = try #require(count(all.stdout))
        #expect(iosCount < allCount && iosCount > allCount / 2, "\(ios.stdout.prefix(80)) \(all.stdout.prefix(80))")
        let bad = try ConformanceCLI.run(["--platform", "windows"])
        #expect(bad.status == 2)
        #expect(bad.stderr.hasPrefix("vulture-conformance: --platform is android or ios, not windows"))
    }

    @Test func checkPointsIntoItsFilesAndWantsErrorsAsStrings() throws {
        let golden = try CommandLineTests.flightGolden()
        let dir = try ConformanceCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for folder in ["schema", "vectors"] {
            try FileManager.default.createDirectory(
                at: dir.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        var stored = try #require(golden["stored"]?.mapValue)
        stored["isRead"] = .boolean(false)
        try Data(CanonicalJSON.encode(.map(["stored": .map(stored), "path": golden["path"]!]))).write(
            to: dir.appendingPathComponent("schema/flight.android.json"))
        try Data(
            #"{"cases": [{"id": "required.ids.recent-competition.slash", "error": {"code": "id.contains-slash"}}]}"#
                .utf8
        ).write(to: dir.appendingPathComponent("vectors/ids.json"))
        let r = try ConformanceCLI.run(["check", dir.path])
        #expect(r.status == 1)
        #expect(
            r.stdout.contains("  /stored/isRead: value-mismatch: expected boolean true, actual boolean false"),
            "\(r.stdout)")
        #expect(!r.stdout.contains("/document/"))
        #expect(
            r.stdout.contains(
                "FAIL required.ids.recent-competition.slash (schema §4): \(dir.appendingPathComponent("vectors/ids.json").path): /cases/0/error: an error is the rule id as a string (\"id.too-long\"), not map"
            ), "\(r.stdout)")
    }
}
