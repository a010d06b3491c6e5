import Foundation
import Testing
import VultureCommandLine
import VultureEmulators
import VultureFirestore
import VultureSchemaCore
import VultureSyncCommand
import VultureSyncEngine
import VultureSyncSchema

/// What a command printed, collected across threads.
final class CollectedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ line: String) {
        lock.lock()
        stored.append(line)
        lock.unlock()
    }
    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// One `vulture-sync` command line run in process, with what it printed.
struct CommandRun {
    var status: Int32
    var output: [String]
    var errors: [String]

    static func run(_ arguments: [String]) throws -> CommandRun {
        let out = CollectedLines()
        let err = CollectedLines()
        let status = try SyncCommand.run(
            arguments, sinks: SyncCommand.Sinks(output: { out.append($0) }, errors: { err.append($0) }))
        return CommandRun(status: status, output: out.lines, errors: err.lines)
    }
}

enum SyncCommandFixtures {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The IGC files of ../shared/corpus/igc, read in place, or nil when the corpus is absent.
    static let corpusIGCFiles: [String]? = {
        let dir = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/igc")
            .standardizedFileURL
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return nil }
        let files = names.filter { $0.lowercased().hasSuffix(".igc") }.sorted().map {
            dir.appendingPathComponent($0).path
        }
        return files.isEmpty ? nil : files
    }()

    static let corpusMissing =
        "../shared/corpus (beside the package root) holds the real IGC files; absent here, so skipped"

    /// A new empty temporary directory.
    static func temporaryDirectory(_ tag: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vulture-sync-\(tag)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The fields `vulture-sync import` gives a flight.
    static func importFields(_ igc: Data) -> [String: FirestoreValue] {
        IGCImportCheck.fields(igc: igc, filename: "flight.igc")
    }

    /// A small valid IGC file.
    static func igc(_ index: Int) -> Data {
        Data(
            ("AXSM\(index)\r\nHFDTE010526\r\nHFPLTPILOTINCHARGE:Pilot \(index)\r\n"
                + "B1000005206000N00006000WA0050000510\r\nB1100005206100N00006100WA0060000610\r\n").utf8)
    }
}

@Suite("vulture-sync without a server: import, edit, delete, status, and the input it refuses")
struct SyncCommandLocalTests {
    func base(_ dir: URL) -> [String] { ["--uid", "u1", "--state", dir.path] }

    /// Makes the state in `dir` for user u1: one flight imported.
    func makeState(_ dir: URL) throws {
        let file = dir.appendingPathComponent("state-maker.igc")
        try SyncCommandFixtures.igc(9).write(to: file)
        #expect(try CommandRun.run(base(dir) + ["import", file.path]).status == 0)
    }

    @Test func importEditDeleteAndStatus() throws {
        let dir = try SyncCommandFixtures.temporaryDirectory("local")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("one.igc")
        try SyncCommandFixtures.igc(1).write(to: file)
        let id = DocumentIds.flightId(igcBytes: SyncCommandFixtures.igc(1))

        let first = try CommandRun.run(base(dir) + ["import", file.path])
        #expect(first.status == 0)
        #expect(first.output.last == "1 imported, 0 already here")
        let again = try CommandRun.run(base(dir) + ["import", file.path])
        #expect(again.output.last == "0 imported, 1 already here")

        let edit = try CommandRun.run(
            base(dir) + ["edit", "flights", id, "comments=\"Wave\"", "rating=4", "taskId=null"])
        #expect(edit.status == 0)
        let store = try SQLiteLocalStore(directory: dir.appendingPathComponent("."))
        let row = try #require(store.row(.flights, id: id))
        #expect(row.fields["comments"] == .string("Wave"))
        #expect(row.fields["rating"] == .integer(4))
        #expect(row.fields["taskId"] == .null)
        #expect(row.fields["pilotName"] == .string("Pilot 1"))
        #expect(row.fields["filename"] == .string("one.igc"))
        #expect(row.fields["inLogbook"] == .boolean(true))
        #expect(row.fields["summary"]?.mapValue?["duration"] == .integer(3600))
        #expect(row.isDirty)

        let status = try CommandRun.run(base(dir) + ["status"])
        #expect(status.output.contains { $0.hasPrefix("Cloud Storage: none") })
        #expect(
            status.output.contains {
                $0.hasPrefix("flights")
                    && $0.split(separator: " ").map(String.init) == ["flights", "1", "1", "0", "1", "-"]
            })
        #expect(status.output.contains("last error: none"))

        let delete = try CommandRun.run(base(dir) + ["delete", "flights", id])
        #expect(delete.status == 0)
        #expect(try SQLiteLocalStore(directory: dir).row(.flights, id: id)?.isTombstone == true)
        // A second delete names the record it cannot find.
        #expect(throws: SyncCommandError.self) { try CommandRun.run(base(dir) + ["delete", "flights", id]) }
    }

    @Test func badIGCFilesAreRefusedByRuleAndNothingIsImported() throws {
        let dir = try SyncCommandFixtures.temporaryDirectory("igc")
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.igc")
        try SyncCommandFixtures.igc(2).write(to: good)
        let cases: [(name: String, bytes: Data?, rule: String?, line: Int)] = [
            ("empty.igc", Data(), "igc.empty", 0),
            ("blank.igc", Data("\r\n\r\n".utf8), "igc.empty", 0),
            ("no-a.igc", Data("HFDTE010526\r\nB1000005206000N00006000WA0050000510\r\n".utf8), "igc.a-record", 1),
            ("no-fix.igc", Data("AXSM1\r\nHFDTE010526\r\nB99\r\n".utf8), "igc.no-fix", 0),
            ("binary.igc", Data([0x1F, 0x8B, 0x08, 0x00, 0xFF, 0x00, 0x41]), "igc.a-record", 1),
            ("missing.igc", nil, nil, 0),
        ]
        for c in cases {
            let path = dir.appendingPathComponent(c.name).path
            if let bytes = c.bytes { try bytes.write(to: URL(fileURLWithPath: path)) }
            do {
                _ = try CommandRun.run(base(dir) + ["import", good.path, path])
                Issue.record("\(c.name) was imported")
            } catch let error as SyncCommandError {
                switch (error, c.rule) {
                case (.igc(let p, let line, let rule, _), let expected?):
                    #expect(p == path)
                    #expect(rule == expected, "\(c.name)")
                    #expect(line == c.line, "\(c.name)")
                case (.file(let p, let reason), nil):
                    #expect(p == path)
                    #expect(reason == "no such file")
                default: Issue.record("\(c.name): \(error)")
                }
            }
        }
        // The good file before each bad one was not imported either: the files are checked first.
        #expect(try SQLiteLocalStore(directory: dir).rows(.flights).isEmpty)
    }

    /// A named pipe or a device is refused by what it is, before a read that could block or never
    /// end; a symbolic link is judged by the file it names.
    @Test func aFileThatIsNotARegularFileIsRefusedByWhatItIs() throws {
        let dir = try SyncCommandFixtures.temporaryDirectory("special")
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("pipe.igc").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let toDevice = dir.appendingPathComponent("zero.igc")
        try FileManager.default.createSymbolicLink(atPath: toDevice.path, withDestinationPath: "/dev/zero")
        let good = dir.appendingPathComponent("good.igc")
        try SyncCommandFixtures.igc(3).write(to: good)
        let toGood = dir.appendingPathComponent("link.igc")
        try FileManager.default.createSymbolicLink(atPath: toGood.path, withDestinationPath: good.path)
        for (path, reason) in [
            (fifo, "a named pipe or other special file, not a regular IGC file"),
            ("/dev/zero", "a device, not a regular IGC file"), (toDevice.path, "a device, not a regular IGC file"),
        ] {
            #expect(throws: SyncCommandError.file(path: path, reason: reason)) {
                try CommandRun.run(base(dir) + ["import", path])
            }
        }
        #expect(try CommandRun.run(base(dir) + ["import", toGood.path]).status == 0)
        #expect(
            try SQLiteLocalStore(directory: dir).rows(.flights).map(\.id) == [
                DocumentIds.flightId(igcBytes: SyncCommandFixtures.igc(3))
            ])
    }

    @Test func editArgumentsAreCheckedByTheSchema() throws {
        let dir = try SyncCommandFixtures.temporaryDirectory("edit")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("f.igc")
        try SyncCommandFixtures.igc(3).write(to: file)
        _ = try CommandRun.run(base(dir) + ["import", file.path])
        let id = DocumentIds.flightId(igcBytes: SyncCommandFixtures.igc(3))
        let refused: [(String, String, String)] = [
            ("rating=4.5", "/rating", "schema.type"),
            ("rating=four", "/rating", "json.syntax"),
            ("comments=\(String(repeating: "x", count: 10_001).debugDescription)", "/comments", "schema.max-chars"),
            // One Character of 10,001 scalars: too long, and shown by its scalars.
            ("comments=\"e\(String(repeating: "\u{301}", count: 10_000))\"", "/comments", "schema.max-chars"),
            ("bogus=1", "/bogus", "schema.unknown-field"),
            ("updatedBy=\"me\"", "/updatedBy", "edit.engine-field"),
            ("igc=null", "/igc", "edit.engine-field"),
            ("rating", "", "edit.shape"),
            // Checked as the full write the engine sends: a map value holds every key its schema
            // requires (an empty summary would rank below the server's and be lost to the merge).
            ("summary={}", "/summary/analysisVersion", "schema.missing-field"),
            ("summary={\"analysisVersion\": 0}", "/summary/takeoffAt", "schema.missing-field"),
        ]
        for (argument, pointer, rule) in refused {
            do {
                _ = try CommandRun.run(base(dir) + ["edit", "flights", id, argument])
                Issue.record("\(argument) was accepted")
            } catch let SyncCommandError.value(a, p, r, m) {
                #expect(a == argument)
                #expect(p == pointer, "\(argument)")
                #expect(r == rule, "\(argument)")
                // The line shows a long argument by its first 100 scalars and its length.
                let line = SyncCommandError.value(argument: a, pointer: p, rule: r, message: m).description
                #expect(argument.unicodeScalars.count <= 100 || line.unicodeScalars.count < 300, "\(line.prefix(200))")
                if argument.hasPrefix("comments=\"xxx") {
                    let shown = "comments=\"" + String(repeating: "x", count: 90) + "… (10012 characters)"
                    #expect(line == "\(shown): /comments: schema.max-chars: \(m)")
                }
            }
        }
        #expect(try SQLiteLocalStore(directory: dir).row(.flights, id: id)?.fields["rating"] == .integer(0))
        // A whole summary with one value changed is an edit.
        guard case .map(var summary)? = try SQLiteLocalStore(directory: dir).row(.flights, id: id)?.fields["summary"]
        else {
            Issue.record("the imported flight has no summary map")
            return
        }
        summary["duration"] = .integer(99)
        let edited = try CommandRun.run(
            base(dir) + [
                "edit", "flights", id,
                "summary=" + String(decoding: CanonicalJSON.encode(.map(summary)), as: UTF8.self),
            ])
        #expect(edited.output == ["edited flights/\(id): summary"])
        #expect(
            try SQLiteLocalStore(directory: dir).row(.flights, id: id)?.fields["summary"]?.mapValue?["duration"]
                == .integer(99))
        // A new home base must carry the id its rule gives.
        let name = "Aachen Merzbrück"
        let homebaseId = DocumentIds.homebaseId(name: name)
        #expect(throws: SyncCommandError.self) {
            try CommandRun.run(base(dir) + ["edit", "homebases", "aachen", "name=\"\(name)\""])
        }
        let made = try CommandRun.run(base(dir) + ["edit", "homebases", homebaseId, "name=\"\(name)\""])
        #expect(made.output == ["made homebases/\(homebaseId): name"])
    }

    /// A state directory an earlier version wrote (`state.json`, `blobs/`) is migrated into
    /// `state.sqlite` by the first command, with nothing lost; the old files go once it is in.
    @Test func aStateJSONDirectoryIsMigratedToSQLite() throws {
        let dir = try SyncCommandFixtures.temporaryDirectory("migrate")
        defer { try? FileManager.default.removeItem(at: dir) }
        let device: FirestoreValue = .map([
            "formatVersion": .integer(1), "uid": .string("u1"), "deviceId": .string("old-device"),
            "platform": .string("ios"), "lastError": .null,
        ])
        try Data(CanonicalJSON.encode(device)).write(to: dir.appendingPathComponent("device.json"))
        let igc = SyncCommandFixtures.igc(4)
        let id = DocumentIds.flightId(igcBytes: igc)
        let old = try FileLocalStore(directory: dir)
        let now = try FirestoreTimestamp(seconds: 1_792_504_987)
        let clock: @Sendable () -> FirestoreTimestamp = { now }
        let engine = SyncEngine(
            configuration: SyncConfiguration(uid: "u1", deviceId: "old-device", platform: .ios),
            database: InMemoryFirestore(clock: clock), storage: InMemoryCloudStorage(), store: old,
            clock: clock)
        try engine.importFlight(igc: igc, fields: SyncCommandFixtures.importFields(igc))
        let before = try #require(old.row(.flights, id: id))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("state.json").path))

        let dump = try CommandRun.run(base(dir) + ["dump"])
        #expect(dump.status == 0)
        #expect(dump.output.count == 1)
        #expect(dump.output.first?.contains(id) == true)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("state.json").path))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(SQLiteLocalStore.fileName).path))
        let store = try SQLiteLocalStore(directory: dir)
        #expect(store.row(.flights, id: id) == before)
        let opened = try CommandRun.run(base(dir) + ["open", id])
        #expect(opened.output == ["opened flights/\(id): IGC file \(igc.count) bytes, SHA-256 checked"])
    }

    @Test func aDamagedDatabaseIsAStateErrorNamingTheFileAndTheRule() throws {
        let dir = try SyncCommandFixtures.temporaryDirectory("damaged")
        defer { try? FileManager.default.removeItem(at: dir) }
        try makeState(dir)
        let file = dir.appendingPathComponent(SQLiteLocalStore.fileName)
        try Data(repeating: 0x5A, count: 8192).write(to: file)
        do {
            _ = try CommandRun.run(base(dir) + ["status"])
            Issue.record("a damaged database opened")
        } catch let SyncCommandError.state(path, reason) {
            #expect(path == file.path)
            #expect(reason.hasPrefix("store.not-a-database: "))
        }
    }

    /// A state folder that cannot be made is named with the system's reason, not Foundation's
    /// "The operation could not be completed".
    @Test func aStateFolderThatCannotBeMadeSaysWhy() throws {
        let dir = try SyncCommandFixtures.temporaryDirectory("not-a-folder")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("plain-file")
        try Data("x".utf8).write(to: file)
        let state = file.appendingPathComponent("state")
        do {
            _ = try CommandRun.run(base(state) + ["import", "none.igc"])
            Issue.record("a state folder was made under a file")
        } catch let SyncCommandError.file(path, reason) {
            #expect(path == state.path)
            #expect(reason == "Not a directory")
        }
    }

    /// A record id or collection name from the command line is shown as an excerpt, and an id
    /// Firestore refuses is refused before anything reads or writes it.
    @Test func idsAreCheckedAndShownAsExcerpts() throws {
        let dir = try SyncCommandFixtures.temporaryDirectory("ids")
        defer { try? FileManager.default.removeItem(at: dir) }
        let long = String(repeating: "a", count: 5_000)
        let shown = "\(long.prefix(100))… (5000 characters)"
        let tooLong = "document id is 5000 bytes, over Firestore's 1500-byte limit"
        func refusal(_ arguments: [String]) -> String {
            do {
                let run = try CommandRun.run(base(dir) + arguments)
                return "ran: \(run.status) \(run.output)"
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal(["delete", "flights", long]) == "flights/\(shown): \(tooLong)")
        #expect(refusal(["open", long]) == "flights/\(shown): \(tooLong)")
        #expect(refusal(["edit", "homebases", long, "name=\"x\""]) == "homebases/\(shown): \(tooLong)")
        #expect(refusal(["delete", "flights", "../x"]) == "flights/../x: document id must not contain '/'")
        #expect(
            refusal(["delete", long, "x"])
                == "no collection \(shown); one of "
                + SyncCollection.pushOrder.map(\.rawValue).joined(separator: ", "))
        let status = try CommandRun.run(base(dir) + ["status"])
        // Nothing was made or deleted.
        for collection in ["flights", "homebases"] {
            #expect(
                status.output.contains { $0.split(separator: " ") == [collection[...], "0", "0", "0", "0", "-"] },
                "\(status.output)")
        }
    }

    @Test func usageErrors() throws {
        let dir = try SyncCommandFixtures.temporaryDirectory("usage")
        defer { try? FileManager.default.removeItem(at: dir) }
        func usage(_ arguments: [String]) -> String? {
            do {
                _ = try CommandRun.run(arguments)
                return nil
            } catch let e as UsageError {
                return e.message
            } catch {
                return "\(error)"
            }
        }
        #expect(usage(base(dir) + ["push"]) == "push needs --emulator HOST:PORT")
        #expect(
            usage(base(dir) + ["--emulator", "localhost", "pull"])
                == "--emulator is HOST:PORT (127.0.0.1:8080), not localhost")
        #expect(
            usage(base(dir) + ["frobnicate"])
                == "unknown command 'frobnicate'; one of \(SyncCommand.commands.joined(separator: ", "))")
        #expect(usage(base(dir) + ["open"]) == "open takes ID, got 0 argument(s)")
        #expect(usage(["--state", dir.path, "status"]) == "missing --uid")
        #expect(
            usage(base(dir) + ["--storage-emulator", "127.0.0.1:4443", "status"])
                == "--storage-emulator and --bucket go together")
        let long = String(repeating: "a", count: 5_000)
        #expect(
            usage(["--uid", long, "--state", dir.path, "status"])
                == "--uid \(long.prefix(100))… (5000 characters): invalid uid: document id is 5000 bytes, "
                + "over Firestore's 1500-byte limit")
        #expect(
            usage(["--uid", "u1", "--state", "", "status"]) == "--state names the device's folder, not an empty string")
        for (project, shown) in [
            ("", #""" (empty)"#), ("bad project/x", "bad project/x"), ("Demo-vulture", "Demo-vulture"),
        ] {
            #expect(
                usage(base(dir) + ["--project", project, "status"])
                    == "--project is a project id: 6 to 30 lowercase letters, digits and hyphens, a letter first "
                    + "(demo-vulture), not \(shown)")
        }
        for bucket in ["", "ab", "-files", "files/x", "Files"] {
            #expect(
                usage(base(dir) + ["--storage-emulator", "127.0.0.1:4443", "--bucket", bucket, "status"])?
                    .hasPrefix("--bucket is a bucket name: 3 to 63 lowercase letters") == true, "\(bucket)")
        }
        // status and dump read a state; they do not make one where --state names none.
        for command in ["status", "dump"] {
            do {
                _ = try CommandRun.run(base(dir) + [command])
                Issue.record("\(command) made a state")
            } catch let SyncCommandError.state(path, reason) {
                #expect(path == dir.path)
                #expect(reason.hasPrefix("no device state here (no device.json)"))
            }
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("device.json").path))
        try makeState(dir)
        // The state directory belongs to u1 now.
        #expect(
            usage(["--uid", "u2", "--state", dir.path, "status"])?.contains("this state is user u1, not u2") == true)
        #expect(
            usage(base(dir) + ["--platform", "ios", "status"])?.hasSuffix(
                "this state is platform android, not ios: --platform is fixed when the folder is made; leave it out, "
                    + "or use another --state") == true)
        #expect(
            usage(base(dir) + ["--device", "", "status"])?.contains(#"not "" (empty): --device is fixed"#) == true)
    }

    /// A push that stopped after its reservations leaves agreed rows (not dirty) whose objects are
    /// not uploaded: `status` counts them, so the device does not look synced.
    @Test func statusCountsTheObjectsAStoppedPushLeftToUpload() throws {
        let dir = try SyncCommandFixtures.temporaryDirectory("reserved")
        defer { try? FileManager.default.removeItem(at: dir) }
        try makeState(dir)
        func objectsLine() throws -> [String] {
            try CommandRun.run(base(dir) + ["status"]).output.filter {
                $0.hasPrefix("objects to upload:") || $0.hasPrefix("dirty rows:")
            }
        }
        #expect(try objectsLine() == ["dirty rows: 1", "objects to upload: 0"])
        // The row as a push leaves it after the reservation committed and before the upload.
        let store = try SQLiteLocalStore(directory: dir)
        var row = try #require(store.rows(.flights).first)
        guard case .map(var map)? = row.pendingBlobMap else {
            Issue.record("an imported flight has no pending blob map")
            return
        }
        map[StorageObjectKind.MapField.uploaded] = .boolean(false)
        row.fields[StorageObjectKind.igc.mapField] = .map(map)
        row.pendingBlobMap = nil
        row.base = row.fields
        store.put(row)
        try store.commit()
        #expect(try objectsLine() == ["dirty rows: 0", "objects to upload: 1"])
    }

    /// A database whose device.json is gone is not taken over by whichever --uid comes next: its
    /// records would be pushed into that user's account.
    @Test func aDatabaseWithoutItsDeviceFileIsRefused() throws {
        let dir = try SyncCommandFixtures.temporaryDirectory("orphan")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("one.igc")
        try SyncCommandFixtures.igc(1).write(to: file)
        #expect(try CommandRun.run(base(dir) + ["import", file.path]).status == 0)
        try FileManager.default.removeItem(at: dir.appendingPathComponent("device.json"))
        for command in [["status"], ["import", file.path]] {
            do {
                _ = try CommandRun.run(["--uid", "someone-else", "--state", dir.path] + command)
                Issue.record("\(command) took over the database")
            } catch let SyncCommandError.state(path, reason) {
                #expect(path == dir.appendingPathComponent("device.json").path)
                #expect(
                    reason
                        == "missing beside state.sqlite, so this state's user and device cannot be told: "
                        + "restore device.json, or use another --state")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("device.json").path))
    }

    /// Every bad file of an import is named in one run (the last as the command's error), and a
    /// field set twice by one edit is refused rather than the last value winning.
    @Test func everyBadImportFileIsNamedAndAFieldSetTwiceIsRefused() throws {
        let dir = try SyncCommandFixtures.temporaryDirectory("many")
        defer { try? FileManager.default.removeItem(at: dir) }
        let empty = dir.appendingPathComponent("empty.igc")
        try Data().write(to: empty)
        let missing = dir.appendingPathComponent("missing.igc").path
        let good = dir.appendingPathComponent("good.igc")
        try SyncCommandFixtures.igc(3).write(to: good)
        let errors = CollectedLines()
        do {
            _ = try SyncCommand.run(
                base(dir) + ["import", empty.path, good.path, missing],
                sinks: SyncCommand.Sinks(output: { _ in }, errors: { errors.append($0) }))
            Issue.record("bad files were imported")
        } catch let error as SyncCommandError {
            #expect(error == .file(path: missing, reason: "no such file"))
        }
        #expect(errors.lines == ["vulture-sync: \(empty.path): igc.empty: an empty file is no IGC file"])
        #expect(try SQLiteLocalStore(directory: dir).rows(.flights).isEmpty)

        #expect(try CommandRun.run(base(dir) + ["import", good.path]).status == 0)
        let id = DocumentIds.flightId(igcBytes: SyncCommandFixtures.igc(3))
        let before = try SQLiteLocalStore(directory: dir).row(.flights, id: id)?.fields
        do {
            _ = try CommandRun.run(base(dir) + ["edit", "flights", id, "rating=4", "rating=5"])
            Issue.record("a field set twice was edited")
        } catch let error as SyncCommandError {
            #expect(
                error
                    == .value(
                        argument: "rating=5", pointer: "/rating", rule: "edit.shape",
                        message: "rating is given twice; give each field once"))
        }
        #expect(try SQLiteLocalStore(directory: dir).row(.flights, id: id)?.fields == before)
    }
}

@Suite(
    "vulture-sync against the Firestore emulator",
    .enabled(
        if: {
            if case .available = FirestoreEmulator.availability() { return true }
            return FirestoreEmulator.isRequired
        }(), "the Firestore emulator jar is not installed (google-cloud-cli-firestore-emulator)"))
struct SyncCommandEmulatorTests {
    /// Done criterion of the engine's issue: a corpus logbook pushed into a fresh emulator by one
    /// state directory is pulled back identical (typed values, row by row) by a second.
    @Test(.enabled(if: SyncCommandFixtures.corpusIGCFiles != nil, Comment(rawValue: SyncCommandFixtures.corpusMissing)))
    func aCorpusLogbookPushedByOneStateIsPulledBackIdenticalByAnother() throws {
        let files = try #require(SyncCommandFixtures.corpusIGCFiles)
        let emulator = try FirestoreEmulator.start()
        defer { emulator.stop() }
        let a = try SyncCommandFixtures.temporaryDirectory("a")
        let b = try SyncCommandFixtures.temporaryDirectory("b")
        defer {
            try? FileManager.default.removeItem(at: a)
            try? FileManager.default.removeItem(at: b)
        }
        let common = ["--emulator", "127.0.0.1:\(emulator.port)", "--uid", "corpus-pilot"]
        let imported = try CommandRun.run(common + ["--state", a.path, "import"] + files)
        #expect(imported.status == 0)
        let push = try CommandRun.run(common + ["--state", a.path, "push"])
        #expect(push.status == 0, "\(push.errors)")
        #expect(push.output.contains("reserved flights: \(files.count) objects, storageBytes +\(try gzBytes(a))"))
        let pull = try CommandRun.run(common + ["--state", b.path, "--platform", "ios", "pull"])
        #expect(pull.status == 0, "\(pull.errors)")
        #expect(pull.output.contains("pulled flights: \(files.count) documents in 1 pages"))

        let storeA = try SQLiteLocalStore(directory: a)
        let storeB = try SQLiteLocalStore(directory: b)
        let ids = Set(files.map { DocumentIds.flightId(igcBytes: FileManager.default.contents(atPath: $0) ?? Data()) })
        #expect(Set(storeA.rows(.flights).map(\.id)) == ids)
        for c in SyncCollection.allCases {
            let rowsA = storeA.rows(c)
            let rowsB = storeB.rows(c)
            #expect(rowsA.map(\.id) == rowsB.map(\.id), "\(c)")
            for (ra, rb) in zip(rowsA, rowsB) {
                #expect(ra.fields == rb.fields, "\(c.rawValue)/\(ra.id)")
                #expect(!ra.isDirty && !rb.isDirty)
            }
        }
        for row in storeB.rows(.flights) {
            #expect(row.fields["igc"]?.mapValue?["uploaded"] == .boolean(true))
            #expect(row.fields["updatedAt"] != nil)
        }
        // The emulator holds what both agree on.
        let documents = try emulator.client().runQuery(
            .init(parent: "users/corpus-pilot", collectionId: "flights"))
        #expect(documents.count == files.count)
        for document in documents {
            #expect(storeB.row(.flights, id: document.id)?.fields == document.fields)
        }
        // And the dumps (what .ci/run compares) are the same bytes.
        let dumpA = try CommandRun.run(common + ["--state", a.path, "dump"]).output
        let dumpB = try CommandRun.run(common + ["--state", b.path, "dump"]).output
        #expect(dumpA.count == files.count)
        #expect(dumpA == dumpB)
    }

    /// With `--storage-emulator`, the IGC objects go to fake-gcs-server: a second state pulls the
    /// records and opens every flight, downloaded from the bucket with its SHA-256 checked, the
    /// same bytes as the file imported.
    @Test(.enabled(if: Self.storageEmulatorEnabled, Self.storageEmulatorSkipReason))
    func theFilesTravelThroughTheCloudStorageEmulator() throws {
        let emulator = try FirestoreEmulator.start()
        defer { emulator.stop() }
        let storage = try CloudStorageEmulator.start()
        defer { storage.stop() }
        let bucket = try storage.client(bucket: "vulture-sync-files")
        let dir = try SyncCommandFixtures.temporaryDirectory("files")
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a")
        let b = dir.appendingPathComponent("b")
        var files: [String: Data] = [:]
        var paths: [String] = []
        for index in 1...3 {
            let path = dir.appendingPathComponent("flight-\(index).igc").path
            let bytes = SyncCommandFixtures.igc(index)
            try bytes.write(to: URL(fileURLWithPath: path))
            files[DocumentIds.flightId(igcBytes: bytes)] = bytes
            paths.append(path)
        }
        let common = [
            "--emulator", "127.0.0.1:\(emulator.port)", "--uid", "files-pilot",
            "--storage-emulator", "127.0.0.1:\(storage.port)", "--bucket", "vulture-sync-files",
        ]
        let imported = try CommandRun.run(common + ["--state", a.path, "import"] + paths)
        #expect(imported.status == 0, "\(imported.errors)")
        let push = try CommandRun.run(common + ["--state", a.path, "push"])
        #expect(push.status == 0, "\(push.errors)")
        for id in files.keys {
            let object = try bucket.download("users/files-pilot/igc/\(id).igc.gz")
            #expect(object?.contentType == "application/gzip", "users/files-pilot/igc/\(id).igc.gz")
        }
        let pull = try CommandRun.run(common + ["--state", b.path, "--platform", "ios", "pull"])
        #expect(pull.status == 0, "\(pull.errors)")
        for (id, bytes) in files.sorted(by: { $0.key < $1.key }) {
            let open = try CommandRun.run(common + ["--state", b.path, "open", id])
            #expect(open.status == 0, "\(open.errors)")
            #expect(open.output == ["opened flights/\(id): IGC file \(bytes.count) bytes, SHA-256 checked"])
        }
    }

    static let storageEmulatorEnabled: Bool = {
        if case .available = CloudStorageEmulator.availability() { return true }
        return FirestoreEmulator.isRequired
    }()

    static let storageEmulatorSkipReason: Comment = {
        if case .unavailable(let why) = CloudStorageEmulator.availability() { return Comment(rawValue: why) }
        return "fake-gcs-server is available"
    }()

    /// The sum of the flights' gzBytes in a state directory: what the reservations counted.
    func gzBytes(_ dir: URL) throws -> Int64 {
        try SQLiteLocalStore(directory: dir).rows(.flights).reduce(0) { sum, row in
            guard case .integer(let n)? = row.fields["igc"]?.mapValue?["gzBytes"] else { return sum }
            return sum + n
        }
    }
}
