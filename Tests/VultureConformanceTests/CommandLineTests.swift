import Foundation
import Testing
import VultureChildProcess
import VultureConformance
import VultureSchemaCore
import VultureSyncSchema

/// The `vulture-conformance` executable as a user runs it: exit codes, lines, the closing summary.
enum ConformanceCLI {
    static let executable = ChildProcess.builtExecutable(named: "vulture-conformance")

    /// The package root (three levels above this file).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs `executable` (default: vulture-conformance) with `arguments`, optionally in `directory`
    /// and with the file `standardInput` as its standard input (else the null device).
    static func run(
        _ arguments: [String], executable: String? = executable, in directory: URL? = nil,
        standardInput: URL? = nil
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let r = try ChildProcess.run(
            try #require(executable), arguments, input: standardInput.map { .file($0) } ?? .empty,
            currentDirectory: directory)
        return (r.status, r.stdout, r.stderr)
    }

    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vulture-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }
}

@Suite(.enabled(if: ConformanceCLI.executable != nil, "vulture-conformance is not built"))
struct CommandLineTests {
    static func flightGolden() throws -> [String: FirestoreValue] {
        try CanonicalJSON.decode(
            Data(contentsOf: GoldenSuite.defaultRoot.appendingPathComponent("schema/flight.android.json"))
        )
        .mapValue ?? [:]
    }

    /// The golden flight's stored form, and the same with `rating` a string (`schema.type`).
    static func storedFlightAndOneWithAStringRating() throws -> (
        stored: [String: FirestoreValue], wrong: [String: FirestoreValue]
    ) {
        let stored = try #require(try flightGolden()["stored"]?.mapValue, "flight golden has no stored form")
        var wrong = stored
        wrong["rating"] = .string("5")
        return (stored, wrong)
    }

    @Test func mainCommandRunsTheSuite() throws {
        let r = try ConformanceCLI.run([])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let last = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasSuffix(" passed, 0 failed"), "\(last)")
    }

    /// A Firestore REST rendering of the golden flight validates; mutated renderings do not.
    @Test func validateRESTAcceptsTheGoldenFlightAndRejectsMutants() throws {
        let golden = try Self.flightGolden()
        guard case .string(let path)? = golden["path"], case .map(let stored)? = golden["stored"] else {
            Issue.record("flight golden has no path or stored form")
            return
        }
        let name = "projects/vulture-app-store/databases/(default)/documents/" + path
        let dir = try ConformanceCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func write(_ fields: [String: FirestoreValue], _ file: String) throws -> String {
            let url = dir.appendingPathComponent(file)
            try Data(try FirestoreRESTJSON.encodeDocument(FirestoreRESTDocument(name: name, fields: fields))).write(
                to: url)
            return url.path
        }
        let good = try write(stored, "flight.rest.json")
        let ok = try ConformanceCLI.run(["validate", "--format", "rest", "--strict", good])
        #expect(ok.status == 0, "\(ok.stdout)")
        #expect(ok.stdout == "1 passed, 0 failed\n")

        var integerDistance = stored
        var summary = stored["summary"]?.mapValue ?? [:]
        summary["optimizedDistance"] = .integer(512_437)
        integerDistance["summary"] = .map(summary)
        var misspelt = stored
        misspelt["waterBalast"] = misspelt.removeValue(forKey: "waterBallast")
        var missing = stored
        missing.removeValue(forKey: "updatedBy")
        let files = [
            try write(integerDistance, "integer.rest.json"), try write(misspelt, "misspelt.rest.json"),
            try write(missing, "missing.rest.json"),
        ]
        let bad = try ConformanceCLI.run(["validate", "--format", "rest", "--strict"] + files)
        #expect(bad.status == 1)
        let lines = bad.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "\(files[0]): /fields/summary/mapValue/fields/optimizedDistance: schema.type: FlightSummary.optimizedDistance is double, found integer; write a double with a fraction: 512437.0, not 512437"
            ))
        #expect(
            lines.contains(
                "\(files[1]): /fields/waterBalast: schema.unknown-field: the schema has no field \"waterBalast\" here; did you mean waterBallast?"
            ))
        #expect(
            lines.contains(
                "\(files[2]): /fields/updatedBy: schema.missing-field: CommonFields.updatedBy (string) is required; "
                    + "a reader has neither a value nor a default for it")
        )
        #expect(lines.last == "0 passed, 3 failed")
    }

    @Test func validateReportsSyntaxErrorsWithPositionAndUsageErrorsWithTwo() throws {
        let dir = try ConformanceCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("broken.json")
        try Data("{\n  \"schema\": 1,\n  \"schema\": 2\n}\n".utf8).write(to: file)
        let r = try ConformanceCLI.run(["validate", "--collection", "flights", file.path])
        #expect(r.status == 1)
        #expect(r.stdout.hasPrefix("\(file.path):3:3: /schema: json.duplicate-key: duplicate key \"schema\""))
        let usage = try ConformanceCLI.run(["validate", "--form", "sideways", file.path])
        #expect(usage.status == 2)
        #expect(usage.stderr.hasPrefix("vulture-conformance validate: --form is write or stored"))
        let missing = try ConformanceCLI.run(["validate", dir.appendingPathComponent("absent.json").path])
        #expect(missing.status == 2)
    }

    /// An export-style folder: every `*.json` under it in path order, the path naming the collection and
    /// the id; the files are checked on every core and reported in order.
    @Test func validateReadsAnExportStyleFolder() throws {
        let golden = try Self.flightGolden()
        guard case .string(let path)? = golden["path"], case .map(let stored)? = golden["stored"] else {
            Issue.record("flight golden has no path or stored form")
            return
        }
        let dir = try ConformanceCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func write(_ fields: [String: FirestoreValue], _ relative: String) throws {
            let url = dir.appendingPathComponent(relative)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(CanonicalJSON.encode(.map(fields))).write(to: url)
        }
        try write(stored, path + ".json")
        let id = path.split(separator: "/").last.map(String.init) ?? ""
        /// The stored flight of the user `uid`: its IGC object's path names that uid (schema.storage-path).
        func of(_ uid: String, _ fields: [String: FirestoreValue] = stored) -> [String: FirestoreValue] {
            var out = fields
            var igc = out["igc"]?.mapValue ?? [:]
            igc["path"] = .string("users/\(uid)/igc/\(id).igc.gz")
            out["igc"] = .map(igc)
            return out
        }
        var wrongType = stored
        wrongType["waterBallast"] = .double(1.5)
        // Many valid copies under other users, so that both cores have files.
        for k in 0..<300 { try write(of("u\(k)"), "users/u\(k)/flights/\(id).json") }
        try write(of("zz", wrongType), "users/zz/flights/\(id).json")
        try write(of("zz"), "users/zz/flights/not-its-id.json")
        // The golden's IGC path names its own uid, not yy: the finding points at the path field.
        try write(stored, "users/yy/flights/\(id).json")
        try write(stored, "users/u1/tasks/t1.json")
        try write(stored, "loose/flight.json")
        try Data("not json".utf8).write(to: dir.appendingPathComponent("notes.txt"))
        let r = try ConformanceCLI.run(["validate", "--strict", dir.path])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let base = dir.path
        #expect(
            lines.filter { !$0.contains("/users/u1/tasks/t1.json: /") } == [
                "\(base)/users/yy/flights/\(id).json: /igc/path: schema.storage-path: IGCBlob.path is "
                    + "\"\(path.split(separator: "/").prefix(2).joined(separator: "/"))/igc/\(id).igc.gz\"; expected "
                    + "users/yy/igc/\(id).igc.gz: the Storage path users/{uid}/igc/{flightId}.igc.gz (schema §2 "
                    + "Storage objects) with {uid} this document's uid, {flightId} this document's id",
                "\(base)/users/zz/flights/\(id).json: /waterBallast: schema.type: FlightDocument.waterBallast is "
                    + "integer, found double; write an integer without a fraction",
                "\(base)/users/zz/flights/not-its-id.json: /: schema.document-id: the document id is not-its-id, but "
                    + "igc.sha256 (the flight id is the SHA-256 of the IGC file) gives \(id) (schema §4)",
                "302 passed, 4 failed",
            ], "\(lines)")
        // The task path makes the flight's fields unknown, as a file at that path would be.
        #expect(
            lines.contains {
                $0.hasPrefix("\(base)/users/u1/tasks/t1.json: /filename: schema.unknown-field: the schema has no field")
            })
        // Read as a task, a stored flight lacks nothing a task reader needs (every task field is
        // nullable or has a default) and every flight field is unknown: warnings, an error with --strict.
        let file = dir.appendingPathComponent(path + ".json").path
        let named = try ConformanceCLI.run(["validate", "--collection", "tasks", file])
        #expect(named.status == 0, "\(named.stdout)")
        #expect(named.stdout.contains("/filename: schema.unknown-field: warning:"), "\(named.stdout)")
        let strict = try ConformanceCLI.run(["validate", "--strict", "--collection", "tasks", file])
        #expect(strict.status == 1)
    }

    /// A folder that would check nothing is an error, not "0 passed": one without any `*.json` file,
    /// or with only a folder reached through a symbolic link; a dangling `*.json` link is a file
    /// that cannot be read.
    @Test func validateRefusesAFolderWithNothingToCheck() throws {
        let dir = try ConformanceCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fm = FileManager.default
        for name in ["empty", "text", "linked", "dangling", "target"] {
            try fm.createDirectory(at: dir.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        try Data("not json".utf8).write(to: dir.appendingPathComponent("text/a.txt"))
        try Data("{}".utf8).write(to: dir.appendingPathComponent("target/a.json"))
        try fm.createSymbolicLink(
            atPath: dir.appendingPathComponent("linked/inner").path,
            withDestinationPath: dir.appendingPathComponent("target").path)
        try fm.createSymbolicLink(
            atPath: dir.appendingPathComponent("dangling/d.json").path,
            withDestinationPath: dir.appendingPathComponent("absent.json").path)
        for name in ["empty", "text", "linked"] {
            let r = try ConformanceCLI.run(["validate", dir.appendingPathComponent(name).path])
            #expect(r.status == 2, "\(name): \(r.stdout)")
            #expect(r.stderr.contains("\(name) holds no *.json file"), "\(name): \(r.stderr)")
            #expect(r.stdout.hasSuffix("0 passed, 0 failed, 1 skipped\n"), "\(name): \(r.stdout)")
        }
        let dangling = try ConformanceCLI.run(["validate", dir.appendingPathComponent("dangling").path])
        #expect(dangling.status == 2, "\(dangling.stdout)")
        #expect(
            dangling.stderr.contains("cannot open \(dir.appendingPathComponent("dangling/d.json").path)"),
            "\(dangling.stderr)")
    }

    /// `--jsonl`: one document per line, numbered in the messages, blank lines skipped, the summary
    /// counting documents; standard input as `-`.
    @Test func validateReadsJSONLines() throws {
        let (stored, wrong) = try Self.storedFlightAndOneWithAStringRating()
        let text = [
            CanonicalJSON.compactString(.map(stored)), "", CanonicalJSON.compactString(.map(wrong)), "{\"a\": [1,]}",
            CanonicalJSON.compactString(.map(stored)),
        ].joined(separator: "\n")
        let dir = try ConformanceCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("flights.jsonl")
        try Data(text.utf8).write(to: file)
        let r = try ConformanceCLI.run(["validate", "--jsonl", "--collection", "flights", file.path])
        #expect(r.status == 1)
        #expect(
            r.stdout.split(separator: "\n").map(String.init) == [
                "\(file.path):3: /rating: schema.type: FlightDocument.rating is integer, found string",
                "\(file.path):4:10: /a/1: json.syntax: unexpected ']', expected a value",
                "2 passed, 2 failed",
            ], "\(r.stdout)")
        let piped = try ConformanceCLI.run(
            ["validate", "--jsonl", "--collection", "flights", "-"], standardInput: file)
        #expect(piped.stdout.hasPrefix("(standard input):3: /rating: schema.type"))
        #expect(piped.status == 1)
    }

    /// A stream through a pipe (handed over in pieces, lines across them) is checked as the same
    /// bytes in a file are; blank lines, a CRLF one or one of spaces, hold no document; a stream
    /// without any document is refused (exit 2), as nothing would be checked.
    @Test func validateReadsAPipedStreamAsAFileAndSkipsBlankLines() throws {
        let (stored, wrong) = try Self.storedFlightAndOneWithAStringRating()
        let good = CanonicalJSON.compactString(.map(stored))
        var lines = Array(repeating: good, count: 400)
        lines[149] = CanonicalJSON.compactString(.map(wrong))
        lines[9] = ""
        lines[10] = "   \t"
        let text = lines.joined(separator: "\r\n") + "\r\n"
        #expect(text.utf8.count > 4 * 65_536, "the stream spans many of a pipe's reads")
        let dir = try ConformanceCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("flights.jsonl")
        try Data(text.utf8).write(to: file)
        let fromFile = try ConformanceCLI.run(["validate", "--jsonl", file.path])
        #expect(fromFile.status == 1)
        #expect(
            fromFile.stdout.split(separator: "\n").map(String.init) == [
                "\(file.path):150: /rating: schema.type: FlightDocument.rating is integer, found string",
                "397 passed, 1 failed",
            ], "\(fromFile.stdout)")
        let executable = try #require(ConformanceCLI.executable)
        let piped = try ChildProcess.run(executable, ["validate", "--jsonl", "-"], input: .bytes(Data(text.utf8)))
        #expect(piped.status == 1)
        #expect(piped.stdout == fromFile.stdout.replacingOccurrences(of: file.path, with: "(standard input)"))

        for blank in ["", "\n\n", "\r\n \r\n"] {
            let empty = try ChildProcess.run(executable, ["validate", "--jsonl", "-"], input: .bytes(Data(blank.utf8)))
            #expect(empty.status == 2, "\(blank.debugDescription)")
            #expect(
                empty.stderr
                    == "vulture-conformance validate: (standard input) holds no document (it is empty or all blank "
                    + "lines): nothing to check\n")
            #expect(empty.stdout == "0 passed, 0 failed, 1 skipped\n")
        }
    }

    /// `-` without `--jsonl` is one document read from standard input, named so in its lines.
    @Test func validateReadsOneDocumentFromStandardInput() throws {
        guard case .map(let stored)? = try Self.flightGolden()["stored"] else {
            Issue.record("flight golden has no stored form")
            return
        }
        var wrong = stored
        wrong["rating"] = .string("5")
        for (document, lines, status) in [
            (stored, ["1 passed, 0 failed"], Int32(0)),
            (
                wrong,
                [
                    "(standard input): /rating: schema.type: FlightDocument.rating is integer, found string",
                    "0 passed, 1 failed",
                ], 1
            ),
        ] {
            let dir = try ConformanceCLI.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let file = dir.appendingPathComponent("flight.json")
            try Data(CanonicalJSON.compactString(.map(document)).utf8).write(to: file)
            // A folder named - where it runs is not what - means.
            try FileManager.default.createDirectory(
                at: dir.appendingPathComponent("-"), withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: dir.appendingPathComponent("-/x.json"))
            let r = try ConformanceCLI.run(
                ["validate", "--collection", "flights", "-"], in: dir, standardInput: file)
            #expect(r.stdout.split(separator: "\n").map(String.init) == lines, "\(r.stdout)")
            #expect(r.status == status)
        }
        // Standard input is read once; a second - would find it empty (or share it, read on two cores).
        for arguments in [["-", "-"], ["--jsonl", "-", "-"]] {
            let twice = try ConformanceCLI.run(["validate"] + arguments)
            #expect(twice.status == 2)
            #expect(
                twice.stderr.hasPrefix("vulture-conformance validate: - (standard input) can be given once"),
                "\(twice.stderr)")
        }
    }

    /// `check DIR` over output files named as the goldens: the golden flight passes, a changed one fails.
    @Test func checkComparesOutputFilesWithTheGoldens() throws {
        let golden = try Self.flightGolden()
        let dir = try ConformanceCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("schema"), withIntermediateDirectories: true)
        var output: [String: FirestoreValue] = [
            "path": golden["path"]!, "write": golden["write"]!, "stored": golden["stored"]!,
        ]
        try Data(CanonicalJSON.encode(.map(output))).write(to: dir.appendingPathComponent("schema/flight.android.json"))
        let ok = try ConformanceCLI.run(["check", dir.path])
        #expect(ok.status == 0, "\(ok.stdout)")
        #expect(
            ok.stdout.split(separator: "\n").last.map(String.init)?.hasPrefix("2 passed, 0 failed, ") == true,
            "\(ok.stdout)")

        var write = golden["write"]!.mapValue!
        write["updatedAt"] = golden["stored"]!.mapValue!["updatedAt"]
        output["write"] = .map(write)
        try Data(CanonicalJSON.encode(.map(output))).write(to: dir.appendingPathComponent("schema/flight.android.json"))
        let junit = dir.appendingPathComponent("junit.xml")
        let bad = try ConformanceCLI.run(["check", dir.path, "--junit", junit.path])
        #expect(bad.status == 1)
        #expect(bad.stdout.contains("FAIL required.schema.flight.android.write"))
        #expect(bad.stdout.contains("must be the server-timestamp sentinel"))
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(
            xml.contains(
                "<testcase classname=\"required.schema.flight.android\" name=\"required.schema.flight.android.write\""))
        #expect(xml.contains("<failure message="))
    }

    /// A form the output file lacks is skipped, never filled from the golden: a file with only the
    /// path passed both document cases. A path given alone is compared with the golden's.
    @Test func checkSkipsAFormTheOutputLacksAndComparesAPathAlone() throws {
        let golden = try Self.flightGolden()
        let dir = try ConformanceCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("schema"), withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("schema/flight.android.json")
        func check(_ output: [String: FirestoreValue]) throws -> (status: Int32, lines: [String]) {
            try Data(CanonicalJSON.encode(.map(output))).write(to: file)
            let r = try ConformanceCLI.run(["check", dir.path, "--only", "schema"])
            return (r.status, r.stdout.split(separator: "\n").map(String.init))
        }
        // Nothing answered: no case passes, which the runner calls not conformant.
        let pathOnly = try check(["path": golden["path"]!])
        #expect(pathOnly.status == 1)
        #expect(pathOnly.lines.last?.hasPrefix("0 passed, 0 failed, ") == true, "\(pathOnly.lines)")
        let storedOnly = try check(["path": golden["path"]!, "stored": golden["stored"]!])
        #expect(storedOnly.lines.last?.hasPrefix("1 passed, 0 failed, ") == true, "\(storedOnly.lines)")
        let wrongPath = try check(["path": .string("users/u/flights/x")])
        #expect(wrongPath.status == 1)
        #expect(
            wrongPath.lines.contains(
                "\(file.path): /path: \"users/u/flights/x\", the golden's is \(CanonicalJSON.compactString(golden["path"]!))"
            ), "\(wrongPath.lines)")
        #expect(wrongPath.lines.last?.hasPrefix("0 passed, 1 failed, ") == true, "\(wrongPath.lines)")
    }

    @Test func runSelectsOneCaseAndWritesAReport() throws {
        let dir = try ConformanceCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = dir.appendingPathComponent("report.json")
        let r = try ConformanceCLI.run(["--test", "required.ids.homebase.trim", "--report", report.path])
        #expect(r.status == 0)
        #expect(r.stdout.hasSuffix("1 passed, 0 failed\n"))
        #expect(r.stdout.contains(": 1 case against the reference implementation\n"), "\(r.stdout)")
        let json = try CanonicalJSON.decode(Data(contentsOf: report))
        #expect(json[fieldPath: "summary.passed"] == .integer(1))
        let unknown = try ConformanceCLI.run(["--test", "required.ids.homebase"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no case required.ids.homebase; cases near it: required.ids.homebase.plain"))
    }

    @Test func checkRejectsMalformedOutputFiles() throws {
        let dir = try ConformanceCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("schema"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("vectors"), withIntermediateDirectories: true)
        try Data(#"{"writ": {}}"#.utf8).write(to: dir.appendingPathComponent("schema/flight.android.json"))
        try Data(
            #"{"cases": [{"id": "required.blobs.path.igc", "output": "x"}, 5, {"id": "required.ids.homebase.plain", "output": "a"}, {"id": "required.ids.homebase.plain", "output": "a"}]}"#
                .utf8
        ).write(to: dir.appendingPathComponent("vectors/ids.json"))
        let r = try ConformanceCLI.run(["check", dir.path])
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let ids = dir.appendingPathComponent("vectors/ids.json").path
        #expect(lines.contains("\(ids): /cases/0: no case required.blobs.path.igc in this golden file"))
        #expect(lines.contains("\(ids): /cases/1: a case output is a map with a string id"))
        #expect(lines.contains("\(ids): /cases/3: case required.ids.homebase.plain is answered twice"))
        #expect(
            lines.contains {
                $0.hasPrefix("FAIL required.schema.flight.android.write")
                    && $0.hasSuffix("unknown member \"writ\"; an output has path, write and stored")
            })
        try FileManager.default.removeItem(at: dir.appendingPathComponent("vectors/ids.json"))
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("vectors/ids.json"), withIntermediateDirectories: true)
        let io = try ConformanceCLI.run(["check", dir.path])
        #expect(io.status == 2)
        #expect(io.stderr.contains("Is a directory"))
    }

    @Test(arguments: ["inf", "1e19", "0", "-1", "abc"])
    func timeoutOutsideItsRangeIsAUsageError(_ value: String) throws {
        let r = try ConformanceCLI.run(["run", "--testee", "true", "--timeout", value])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("vulture-conformance run: --timeout takes seconds, more than 0 and at most 86400"))
    }

    /// `--goldens` naming a folder without every part of the layout, or with no case, is an input
    /// error (exit 2) naming the folder and what it lacks, for a run and for `check`; not a pass of 0 cases.
    @Test func partialGoldensAreAnInputError() throws {
        let dir = try ConformanceCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fm = FileManager.default
        try fm.createDirectory(at: dir.appendingPathComponent("g"), withIntermediateDirectories: true)
        try fm.copyItem(
            at: GoldenSuite.defaultRoot.appendingPathComponent("VERSION"), to: dir.appendingPathComponent("g/VERSION"))
        let layout = "a goldens folder holds VERSION, schema/, vectors/, scenarios/ (Goldens/README.md)"
        let none = try ConformanceCLI.run(["--goldens", "g"], in: dir)
        #expect(none.status == 2)
        #expect(none.stdout == "")
        #expect(
            none.stderr
                == "vulture-conformance: cannot read the goldens at g: no schema/ or vectors/ or scenarios/ folder; \(layout)\n"
        )
        try fm.copyItem(
            at: GoldenSuite.defaultRoot.appendingPathComponent("schema"), to: dir.appendingPathComponent("g/schema"))
        let check = try ConformanceCLI.run(["check", ".", "--goldens", "g"], in: dir)
        #expect(check.status == 2)
        #expect(
            check.stderr
                == "vulture-conformance check: cannot read the goldens at g: no vectors/ or scenarios/ folder; \(layout)\n"
        )
        try fm.removeItem(at: dir.appendingPathComponent("g/schema"))
        for folder in GoldenSuite.folders {
            try fm.createDirectory(at: dir.appendingPathComponent("g/\(folder)"), withIntermediateDirectories: true)
        }
        let empty = try ConformanceCLI.run(["--goldens", "g"], in: dir)
        #expect(empty.status == 2)
        #expect(
            empty.stderr
                == "vulture-conformance: cannot read the goldens at g: no case: schema/, vectors/, scenarios/ hold no *.json golden\n"
        )
        let missing = try ConformanceCLI.run(["--goldens", "absent"], in: dir)
        #expect(missing.status == 2)
        #expect(missing.stderr == "vulture-conformance: cannot read the goldens at absent: No such file or directory\n")
    }

    /// A path argument of 120,000 characters is shown in an error as its first 100 and its length, by
    /// every command that names a path it cannot use.
    @Test func aLongPathIsShownAsAnExcerpt() throws {
        let long = String(repeating: "a", count: 120_000)
        let shown = String(repeating: "a", count: 100) + "… (120000 characters)"
        for (arguments, line) in [
            (["validate", long], "vulture-conformance validate: cannot open \(shown): File name too long"),
            (["validate", "--jsonl", long], "vulture-conformance validate: cannot open \(shown): File name too long"),
            (["id", "flight", long], "vulture-conformance id: cannot open \(shown): File name too long"),
            (["--goldens", long], "vulture-conformance: cannot read the goldens at \(shown): File name too long"),
            (["--failure-list", long], "vulture-conformance: \(shown): cannot open: File name too long"),
            (
                ["check", "/" + long],
                "vulture-conformance check: /\(long.prefix(99))… (120001 characters) is not a folder"
            ),
        ] {
            let r = try ConformanceCLI.run(arguments)
            #expect(r.status == 2, "\(arguments.first ?? "")")
            let first = r.stderr.split(separator: "\n").first.map(String.init) ?? ""
            #expect(first == line, "\(arguments.first ?? "")")
        }
    }
}
