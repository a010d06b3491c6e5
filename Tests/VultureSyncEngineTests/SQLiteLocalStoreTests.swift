import Foundation
import Testing
import VultureFirestore
import VultureFirestoreTesting
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

@Suite("SQLiteLocalStore: round trip, reopen, migration from state.json, refused files")
struct SQLiteLocalStoreTests {
    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vulture-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static let time = FirestoreTimestamp(seconds: 1_792_504_987, microseconds: 250_000, orEpoch: ())

    /// A state with every field set, so a field the encoding forgets fails the round trip.
    static var fullState: EngineState {
        var s = EngineState()
        s.cursors = [.flights: time, .homebases: time.adding(seconds: 5)]
        s.pausedUntil = time.adding(seconds: 86_400)
        s.profile = ["storageBytes": .integer(12_345), "schema": .integer(1)]
        s.duplicatePassDone = true
        s.lastPullAt = time.adding(seconds: 60)
        s.heldRecords = ["flights/abc": ["/rating: schema.type"], "tasks/t1": ["/name: schema.required", "/x: y"]]
        return s
    }

    /// Rows using every LocalRow field.
    static var rows: [LocalRow] {
        [
            LocalRow(
                collection: .flights, id: String(repeating: "a", count: 64),
                fields: ["rating": .integer(4), "comments": .string("Wave ü"), "taskId": .null],
                base: ["rating": .integer(3)], baseUpdateTime: time, origin: .local, createdAt: time,
                deferredTaskId: "task-1", pendingBlobMap: .map(["uploaded": .boolean(false)]),
                createdSinceAgreement: true),
            LocalRow(
                collection: .homebases, id: "aachen", fields: ["name": .string("Aachen"), "deleted": .boolean(true)],
                origin: .server, createdAt: time.adding(seconds: 1)),
        ]
    }

    @Test func everyRowFieldTheEngineStateAndObjectsSurviveAReopen() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteLocalStore(directory: dir)
        for row in Self.rows { store.put(row) }
        store.state = Self.fullState
        store.setBlob(Data([1, 2, 3]), at: "users/u_1/igc/x.igc.gz")
        try store.commit()
        // Uncommitted: lost on reopen, as a kill would lose it.
        store.put(LocalRow(collection: .tasks, id: "t9", fields: [:], origin: .server, createdAt: Self.time))
        store.setBlob(Data([9]), at: "users/u_1/igc/y.igc.gz")

        let reopened = try SQLiteLocalStore(directory: dir)
        #expect(reopened.rows(.flights) == [Self.rows[0]])
        #expect(reopened.rows(.homebases) == [Self.rows[1]])
        #expect(reopened.rows(.tasks).isEmpty)
        #expect(reopened.state == Self.fullState)
        #expect(reopened.blob("users/u_1/igc/x.igc.gz") == Data([1, 2, 3]))
        #expect(reopened.blob("users/u_1/igc/y.igc.gz") == nil)

        // A removal and a dropped object are written by the next commit.
        reopened.remove(.homebases, id: "aachen")
        reopened.setBlob(nil, at: "users/u_1/igc/x.igc.gz")
        try reopened.commit()
        let third = try SQLiteLocalStore(directory: dir)
        #expect(third.rows(.homebases).isEmpty)
        #expect(third.blob("users/u_1/igc/x.igc.gz") == nil)
        #expect(third.rows(.flights) == [Self.rows[0]])
    }

    @Test func theEngineStateHasOneEncodingThatRoundTrips() throws {
        let value = Self.fullState.canonicalValue
        #expect(try EngineState(canonicalValue: value) == Self.fullState)
        // Through the bytes every store writes.
        let bytes = CanonicalJSON.encode(value)
        #expect(try EngineState(canonicalValue: try CanonicalJSON.decode(bytes)) == Self.fullState)
        #expect(try EngineState(canonicalValue: .map([:])) == EngineState())
        #expect(throws: StoredValueError(pointer: "/cursors/flights", message: "a cursor is a timestamp")) {
            try EngineState(canonicalValue: .map(["cursors": .map(["flights": .integer(1)])]))
        }
        for row in Self.rows {
            #expect(try LocalRow(collection: row.collection, id: row.id, canonicalValue: row.canonicalValue) == row)
        }
    }

    @Test func aFileStoreIsMigratedOnFirstOpenAndItsFilesRemovedAfterwards() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = "users/pilot_one/igc/\(String(repeating: "b", count: 64)).igc.gz"
        let old = try FileLocalStore(directory: dir)
        for row in Self.rows { old.put(row) }
        old.state = Self.fullState
        old.setBlob(Data([7, 7, 7]), at: path)
        try old.commit()
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("state.json").path))

        let store = try SQLiteLocalStore(directory: dir)
        #expect(store.rows(.flights) == [Self.rows[0]])
        #expect(store.rows(.homebases) == [Self.rows[1]])
        #expect(store.state == Self.fullState)
        #expect(store.blob(path) == Data([7, 7, 7]))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("state.json").path))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("blobs").path))

        // Reopening reads the database (the old files are gone), and a change after it persists.
        store.put(
            LocalRow(collection: .tasks, id: "t1", fields: ["name": .string("T")], origin: .local, createdAt: Self.time)
        )
        try store.commit()
        let reopened = try SQLiteLocalStore(directory: dir)
        #expect(reopened.rows(.tasks).map(\.id) == ["t1"])
        #expect(reopened.state == Self.fullState)
        #expect(reopened.blob(path) == Data([7, 7, 7]))
    }

    @Test func aBrokenStateJSONIsAMigrationErrorAndLeavesEverythingInPlace() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stateFile = dir.appendingPathComponent("state.json")
        try Data("{\"formatVersion\": 1, \"rows\": {\"flights\": {\"x\": 3}}, \"state\": {}}\n".utf8).write(
            to: stateFile)
        do {
            _ = try SQLiteLocalStore(directory: dir)
            Issue.record("a broken state.json was migrated")
        } catch {
            #expect(error.rule == .migration)
            #expect(error.path == stateFile.path)
            #expect(error.message.contains("/rows/flights/x"))
        }
        #expect(FileManager.default.fileExists(atPath: stateFile.path))
        // Nothing was committed: the database is still fresh, and once the file is fixed it migrates.
        try Data("{\"formatVersion\": 1, \"rows\": {}, \"state\": {\"duplicatePassDone\": true}}\n".utf8).write(
            to: stateFile)
        let store = try SQLiteLocalStore(directory: dir)
        #expect(store.state.duplicatePassDone)
    }

    @Test func aFileThatIsNoDatabaseIsRefusedByRuleAndLeftAsItWas() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent(SQLiteLocalStore.fileName)
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: file)
        #expect(throws: SQLiteStoreError.self) { try SQLiteLocalStore(directory: dir) }
        do { _ = try SQLiteLocalStore(directory: dir) } catch {
            #expect(error.rule == .notADatabase)
            #expect(error.path == file.path)
            #expect(error.description.hasPrefix("\(file.path): store.not-a-database: "))
        }
        #expect(try Data(contentsOf: file) == garbage)
    }

    @Test func aDamagedStoreIsRefusedAsCorrupt() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent(SQLiteLocalStore.fileName)
        do {
            let store = try SQLiteLocalStore(directory: dir)
            for k in 0..<300 {
                store.put(
                    LocalRow(
                        collection: .tasks, id: "task-\(k)",
                        fields: ["name": .string(String(repeating: "n", count: 200))],
                        origin: .local, createdAt: Self.time))
            }
            try store.commit()
        }
        // Fold the WAL into the file, then overwrite the pages after the first with noise.
        try checkpoint(file)
        var bytes = try Data(contentsOf: file)
        #expect(bytes.count > 3 * 4096)
        for k in 4096..<bytes.count { bytes[k] = UInt8(truncatingIfNeeded: k &* 131) }
        try bytes.write(to: file)
        do {
            _ = try SQLiteLocalStore(directory: dir)
            Issue.record("a damaged database opened")
        } catch {
            #expect(error.rule == .corrupt || error.rule == .notADatabase, "\(error)")
            #expect(error.path == file.path)
        }
    }

    @Test func aForeignDatabaseAndANewerSchemaAreRefused() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent(SQLiteLocalStore.fileName)
        try sqlite(file, "CREATE TABLE notes (x TEXT); PRAGMA user_version = 3;")
        do {
            _ = try SQLiteLocalStore(directory: dir)
            Issue.record("a foreign database opened")
        } catch {
            #expect(error.rule == .foreignDatabase)
            #expect(error.path == file.path)
        }

        try FileManager.default.removeItem(at: file)
        do {
            let store = try SQLiteLocalStore(directory: dir)
            store.state = Self.fullState
            try store.commit()
        }
        try sqlite(file, "PRAGMA user_version = \(SQLiteLocalStore.schemaVersion + 1);")
        do {
            _ = try SQLiteLocalStore(directory: dir)
            Issue.record("a newer schema opened")
        } catch {
            #expect(error.rule == .newerSchema)
            #expect(error.path == file.path)
            #expect(error.message.contains("schema version \(SQLiteLocalStore.schemaVersion + 1)"))
        }
    }

    @Test func aCommitWritesTheChangeNotTheStore() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent(SQLiteLocalStore.fileName)
        let store = try SQLiteLocalStore(directory: dir)
        for k in 0..<2_000 {
            store.put(
                LocalRow(
                    collection: .tasks, id: "task-\(k)", fields: ["name": .string(String(repeating: "n", count: 500))],
                    origin: .local, createdAt: Self.time))
        }
        try store.commit()
        try checkpoint(file)
        let wal = URL(fileURLWithPath: file.path + "-wal")
        func walBytes() -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: wal.path))?[.size] as? NSNumber)?.intValue ?? 0
        }
        let before = walBytes()
        var row = try #require(store.row(.tasks, id: "task-7"))
        row.fields["name"] = .string("edited")
        store.put(row)
        try store.commit()
        // The store is over a megabyte; one edit appends a few pages to the WAL.
        #expect(walBytes() - before < 64 * 1024, "\(walBytes() - before) bytes")
        #expect(try SQLiteLocalStore(directory: dir).row(.tasks, id: "task-7")?.fields["name"] == .string("edited"))
    }

    @Test func anEngineSyncsThroughTheStoreAndReopensWhereItStopped() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let world = World()
        let store = try SQLiteLocalStore(directory: dir)
        let (engine, _) = world.device("s", store: store)
        let id = try engine.importFlight(igc: EngineTests.igc, fields: ["filename": .string("a.igc")])
        try engine.sync()
        let reopened = try SQLiteLocalStore(directory: dir)
        let row = try #require(reopened.row(.flights, id: id))
        #expect(row == store.row(.flights, id: id))
        #expect(!row.isDirty)
        #expect(reopened.state == store.state)
        guard case .map(let igc)? = row.fields["igc"], case .string(let path)? = igc["path"] else {
            Issue.record("no igc map")
            return
        }
        #expect(try IGCDownload.verify(gzipped: try #require(reopened.blob(path)), flightId: id) == EngineTests.igc)
    }

    /// Runs SQL on `file` through SQLite's own shell-less API: the test's stand-in for another program.
    func sqlite(_ file: URL, _ sql: String) throws {
        try SQLiteTestDatabase.execute(file, sql)
    }

    func checkpoint(_ file: URL) throws {
        try SQLiteTestDatabase.execute(file, "PRAGMA wal_checkpoint(TRUNCATE);")
    }
}

/// ``EngineState`` and ``LocalRow`` are Codable through their canonical values (issue 21: an app's
/// own store keeps Codable rows), with the types a coder must not blur (a double that is whole,
/// bytes, timestamps) and a typed error for a corrupt one.
@Suite struct CodableRowTests {
    @Test func aRowAndTheStateRoundTripThroughJSONEncoder() throws {
        let t = FirestoreTimestamp(seconds: 1_792_504_987, microseconds: 250_000, orEpoch: ())
        let fields: [String: FirestoreValue] = [
            "rating": .integer(5), "waterBallast": .double(5.0), "trackPreview": .bytes(Data([0, 1, 2])),
            "createdAt": .timestamp(t), "summary": .map(["analysisVersion": .integer(2), "duration": .double(0.5)]),
            "comments": .string("über"), "taskId": .null,
        ]
        let row = LocalRow(
            collection: .flights, id: "abc", fields: fields, base: fields, baseUpdateTime: t, origin: .server,
            createdAt: t, deferredTaskId: "task-1", pendingBlobMap: .map(["uploaded": .boolean(false)]),
            createdSinceAgreement: true)
        let data = try JSONEncoder().encode(row)
        let back = try JSONDecoder().decode(LocalRow.self, from: data)
        #expect(back == row)
        #expect(back.fields["waterBallast"] == .double(5.0), "a whole double stays a double")

        var state = EngineState()
        state.cursors[.flights] = t
        state.pendingStorageDeletes = ["users/u1/igc/x.igc.gz"]
        state.heldRecords["flights/abc"] = ["/fields/rating: type"]
        let stateBack = try JSONDecoder().decode(EngineState.self, from: try JSONEncoder().encode(state))
        #expect(stateBack == state)
    }

    @Test func aCorruptRowIsADecodingErrorNamingTheRule() throws {
        let unknown = Data(#"{"collection": "planes", "id": "a", "row": {}}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(LocalRow.self, from: unknown) }
        let noOrigin = Data(#"{"collection": "flights", "id": "a", "row": {"fields": {}}}"#.utf8)
        do {
            _ = try JSONDecoder().decode(LocalRow.self, from: noOrigin)
            Issue.record("a row without origin decoded")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.debugDescription.contains("row flights/a"))
            #expect(context.debugDescription.contains("origin"))
        }
    }
}
