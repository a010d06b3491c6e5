import Foundation
import VultureFirestore
import VultureFirestoreTesting
import VultureSchemaCore
import VultureSyncCommand
import VultureSyncEngine
import VultureSyncSchema

/// `store`: what one local commit costs as the logbook grows. A device that imported and synced N
/// flights (in memory, not timed) is copied into a ``FileLocalStore`` (`state.json` rewritten on
/// every commit) and a ``SQLiteLocalStore`` (one transaction of the changed rows); then, in rounds
/// that alternate the two, the pilot edits one flight's comments and the engine pushes it: the
/// store commits of that edit and push are timed (wall clock, fsync included) and the bytes the
/// process wrote in them counted (`wchar` of /proc/self/io; not available off Linux).
enum StoreBenchmark {
    /// A store that forwards to another and times its commits.
    final class TimedStore: LocalStore {
        let inner: LocalStore
        var commits = 0
        var commitSeconds = 0.0
        var bytesWritten = 0
        init(_ inner: LocalStore) { self.inner = inner }
        func row(_ collection: SyncCollection, id: String) -> LocalRow? { inner.row(collection, id: id) }
        func rows(_ collection: SyncCollection) -> [LocalRow] { inner.rows(collection) }
        func rows(_ collection: SyncCollection, where isIncluded: (LocalRow) -> Bool) -> [LocalRow] {
            inner.rows(collection, where: isIncluded)
        }
        func put(_ row: LocalRow) { inner.put(row) }
        func remove(_ collection: SyncCollection, id: String) { inner.remove(collection, id: id) }
        var state: EngineState {
            get { inner.state }
            set { inner.state = newValue }
        }
        func blob(_ path: String) -> Data? { inner.blob(path) }
        func setBlob(_ bytes: Data?, at path: String) { inner.setBlob(bytes, at: path) }
        func commit() throws {
            let before = StoreBenchmark.bytesWrittenByProcess()
            commitSeconds += try seconds { try inner.commit() }
            if let before, let after = StoreBenchmark.bytesWrittenByProcess() { bytesWritten += after - before }
            commits += 1
        }
    }

    /// Bytes this process passed to write(2) so far (`wchar`), or nil where /proc/self/io is absent.
    static func bytesWrittenByProcess() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("wchar:") {
            return Int(line.dropFirst("wchar:".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// The flight counts measured (the last is the 50,000).
    static let counts = [5_000, 50_000]

    static func run() throws {
        print("store: one edit and push in a synced logbook, FileLocalStore (state.json) beside SQLiteLocalStore")
        print(machineLine())
        for count in counts { try measure(count) }
    }

    static func measure(_ count: Int) throws {
        let uid = "benchmark-store"
        let serverClock = WritesBenchmark.Clock()
        let database = InMemoryFirestore(clock: { serverClock.now() })
        let storage = InMemoryCloudStorage()
        let clock = ManualClock(try FirestoreTimestamp(seconds: 1_792_504_987))
        let configuration = SyncConfiguration(uid: uid, deviceId: "benchmark-store", platform: .android)
        let source = InMemoryLocalStore()
        let first = SyncEngine(
            configuration: configuration, database: database, storage: storage, store: source, clock: clock.source)
        let flights = SyncBenchmark.logbook(count)
        for (name, bytes) in flights {
            try first.importFlight(igc: bytes, fields: IGCImportCheck.fields(igc: bytes, filename: name))
        }
        try first.sync()
        let ids = source.rows(.flights).map(\.id)
        guard ids.count == count, source.rows(.flights).allSatisfy({ !$0.isDirty }) else {
            throw BenchmarkError.mismatch("the logbook of \(count) flights did not sync")
        }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vulture-benchmark-store-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fileStore = try FileLocalStore(directory: directory.appendingPathComponent("file"))
        let sqliteStore = try SQLiteLocalStore(directory: directory.appendingPathComponent("sqlite"))
        for store in [fileStore as LocalStore, sqliteStore] {
            for c in SyncCollection.allCases { for row in source.rows(c) { store.put(row) } }
            store.state = source.state
            for row in source.rows(.flights) {
                if let path = try? BlobPaths.igcObjectPath(uid: uid, flightId: row.id), let gz = source.blob(path) {
                    store.setBlob(gz, at: path)
                }
            }
            try store.commit()
        }
        let stateBytes = fileSize(directory.appendingPathComponent("file/state.json"))
        let databaseBytes = fileSize(directory.appendingPathComponent("sqlite/\(SQLiteLocalStore.fileName)"))
        print(
            "  \(Report.count(count)) flights: state.json \(Report.mib(stateBytes)) (+ one file per IGC object), "
                + "state.sqlite \(Report.mib(databaseBytes)) (objects inside)")

        let sides: [(name: String, store: TimedStore)] = [
            ("FileLocalStore (state.json)", TimedStore(fileStore)), ("SQLiteLocalStore", TimedStore(sqliteStore)),
        ]
        let engines = sides.map {
            SyncEngine(
                configuration: configuration, database: database, storage: storage, store: $0.store,
                clock: clock.source)
        }
        let rounds = 5
        var edits = 0
        var editSeconds = [[Double]](repeating: [], count: sides.count)
        for round in 0..<rounds {
            for (k, engine) in engines.enumerated() {
                // Each side edits its own flights, so neither meets the other's change on the server.
                let id = ids[(round * sides.count + k) * 7 % ids.count]
                clock.advance(seconds: 1)
                editSeconds[k].append(
                    try seconds {
                        try engine.save(.flights, id: id, changes: ["comments": .string("Edit \(round) on side \(k)")])
                        try engine.push()
                    })
                guard sides[k].store.row(.flights, id: id)?.isDirty == false else {
                    throw BenchmarkError.mismatch("\(sides[k].name): the edit of \(id) was not pushed")
                }
                edits += k == 0 ? 1 : 0
            }
        }
        var perCommit: [Double] = []
        for (k, side) in sides.enumerated() {
            let s = side.store
            let mean = s.commitSeconds / Double(max(s.commits, 1))
            perCommit.append(mean)
            let bytes =
                bytesWrittenByProcess() == nil
                ? "bytes written: n/a (no /proc/self/io)"
                : "\(Report.mib(s.bytesWritten / max(s.commits, 1))) written per commit"
            print(
                Report.line(
                    "\(side.name)",
                    String(format: "%9.2f ms/commit", mean * 1e3)
                        + " · \(s.commits / edits) commits per edit+push · \(bytes)"
                        + String(format: " · edit+push %.1f ms (median)", median(editSeconds[k]) * 1e3)))
        }
        print(
            String(
                format: "    SQLite ÷ file store, time per commit: %.4f (%.0f× cheaper)", perCommit[1] / perCommit[0],
                perCommit[0] / perCommit[1]))
    }

    static func fileSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}
