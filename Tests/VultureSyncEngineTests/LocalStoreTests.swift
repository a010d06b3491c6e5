import Foundation
import Testing
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// The in-memory store's durable commit, kept as a journal of changes over the durable state: what
/// a crash keeps and drops, and how reads see both.
@Suite("InMemoryLocalStore: commit and crash")
struct LocalStoreTests {
    static let t0 = (try? FirestoreTimestamp(seconds: 1_792_504_987)) ?? .minimum

    static func row(_ collection: SyncCollection, _ id: String, _ comments: String) -> LocalRow {
        LocalRow(
            collection: collection, id: id, fields: ["comments": .string(comments)], origin: .local, createdAt: t0)
    }

    @Test func aCrashKeepsExactlyWhatWasCommitted() throws {
        let store = InMemoryLocalStore()
        store.put(Self.row(.flights, "b", "one"))
        store.put(Self.row(.flights, "a", "one"))
        store.put(Self.row(.tasks, "t", "task"))
        store.setBlob(Data([1, 2, 3]), at: "users/u/igc/b.igc.gz")
        store.state.cursors[.flights] = Self.t0
        #expect(store.hasUncommittedChanges)
        try store.commit()
        #expect(!store.hasUncommittedChanges)

        // Changes after the commit: an edit, a new row, a removal, an object dropped, the cursor moved.
        store.put(Self.row(.flights, "a", "two"))
        store.put(Self.row(.flights, "c", "new"))
        store.remove(.flights, id: "b")
        store.setBlob(nil, at: "users/u/igc/b.igc.gz")
        store.state.cursors[.flights] = Self.t0.adding(seconds: 60)
        #expect(store.rows(.flights).map(\.id) == ["a", "c"])
        #expect(store.row(.flights, id: "a")?.fields["comments"] == .string("two"))
        #expect(store.row(.flights, id: "b") == nil)
        #expect(store.blob("users/u/igc/b.igc.gz") == nil)
        #expect(store.rows(.tasks).map(\.id) == ["t"])
        #expect(store.hasUncommittedChanges)

        store.crash()
        #expect(store.rows(.flights).map(\.id) == ["a", "b"])
        #expect(store.row(.flights, id: "a")?.fields["comments"] == .string("one"))
        #expect(store.blob("users/u/igc/b.igc.gz") == Data([1, 2, 3]))
        #expect(store.state.cursors[.flights] == Self.t0)
        #expect(!store.hasUncommittedChanges)

        // The same changes committed survive the next crash.
        store.put(Self.row(.flights, "a", "two"))
        store.remove(.flights, id: "b")
        store.setBlob(nil, at: "users/u/igc/b.igc.gz")
        try store.commit()
        store.crash()
        #expect(store.rows(.flights).map { $0.fields["comments"] } == [.string("two")])
        #expect(store.blob("users/u/igc/b.igc.gz") == nil)
    }

    /// A store that keeps its rows in an in-memory store and answers the filtered reads with the
    /// protocol's own defaults.
    final class DefaultReads: LocalStore {
        let inner = InMemoryLocalStore()
        func row(_ collection: SyncCollection, id: String) -> LocalRow? { inner.row(collection, id: id) }
        func rows(_ collection: SyncCollection) -> [LocalRow] { inner.rows(collection) }
        func put(_ row: LocalRow) { inner.put(row) }
        func remove(_ collection: SyncCollection, id: String) { inner.remove(collection, id: id) }
        var state: EngineState {
            get { inner.state }
            set { inner.state = newValue }
        }
        func blob(_ path: String) -> Data? { inner.blob(path) }
        func setBlob(_ bytes: Data?, at path: String) { inner.setBlob(bytes, at: path) }
        func commit() throws { try inner.commit() }
    }

    /// A filtered read sees the committed rows and the changes since, as the
    /// whole read does: an edit that now passes the filter, one that no longer does, a new row, a
    /// removed one. So in every store, and with the protocol's defaults.
    @Test(arguments: ["memory", "file", "sqlite", "defaults"])
    func aFilteredReadIsTheWholeReadFiltered(store kind: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vulture-filtered-\(kind)-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store: any LocalStore =
            switch kind {
            case "file": try FileLocalStore(directory: dir)
            case "sqlite": try SQLiteLocalStore(directory: dir)
            case "defaults": DefaultReads()
            case "memory": InMemoryLocalStore()
            default: throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "no store \(kind)"])
            }
        for (id, comments) in [("a", "keep"), ("b", "drop"), ("d", "keep"), ("e", "keep")] {
            store.put(Self.row(.flights, id, comments))
        }
        try store.commit()
        store.put(Self.row(.flights, "b", "keep"))
        store.put(Self.row(.flights, "d", "drop"))
        store.put(Self.row(.flights, "c", "keep"))
        store.remove(.flights, id: "e")
        let kept: (LocalRow) -> Bool = { $0.fields["comments"] == .string("keep") }
        #expect(store.rows(.flights, where: kept).map(\.id) == ["a", "b", "c"])
        #expect(store.rows(.flights, where: kept) == store.rows(.flights).filter(kept))
        #expect(store.rows(.flights, where: { _ in false }).isEmpty)
        #expect(store.rows(.tasks, where: kept).isEmpty)
    }

    @Test func aChangeBackToTheCommittedValueIsNothingToCommit() throws {
        let store = InMemoryLocalStore()
        store.put(Self.row(.flights, "a", "one"))
        try store.commit()
        store.put(Self.row(.flights, "a", "two"))
        #expect(store.hasUncommittedChanges)
        store.put(Self.row(.flights, "a", "one"))
        #expect(!store.hasUncommittedChanges)
    }

    /// Thousands of commits of one change each over a large store leave every row as last put: the
    /// journal is applied in full at each commit (the engine commits after every reservation).
    @Test func manySmallCommitsOverALargeStore() throws {
        let store = InMemoryLocalStore()
        for i in 0..<20_000 { store.put(Self.row(.flights, String(format: "f%05d", i), "v0")) }
        try store.commit()
        for i in stride(from: 0, to: 20_000, by: 7) {
            store.put(Self.row(.flights, String(format: "f%05d", i), "v1"))
            try store.commit()
        }
        store.put(Self.row(.flights, "f00001", "lost"))
        store.crash()
        let rows = store.rows(.flights)
        #expect(rows.count == 20_000)
        #expect(rows.filter { $0.fields["comments"] == .string("v1") }.count == (20_000 + 6) / 7)
        #expect(store.row(.flights, id: "f00001")?.fields["comments"] == .string("v0"))
    }

    /// Puts, removes, commits and crashes in a seeded random order, checked after every step against
    /// a model of two dictionaries (durable, working): every read sees the working rows sorted by id,
    /// whichever order the durable rows were added and removed in.
    @Test(arguments: [1, 2, 3] as [UInt64]) func readsMatchAModelOfDurableAndWorkingRows(seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        let store = InMemoryLocalStore()
        var durable: [String: String] = [:]
        var working: [String: String] = [:]
        let ids = (0..<40).map { "f\(($0 * 7_919) % 97)" }
        for step in 0..<600 {
            let id = random.pick(ids)
            switch random.below(10) {
            case 0..<5:
                store.put(Self.row(.flights, id, "v\(step)"))
                working[id] = "v\(step)"
            case 5..<7:
                store.remove(.flights, id: id)
                working[id] = nil
            case 7..<9:
                try store.commit()
                durable = working
            default:
                store.crash()
                working = durable
            }
            let expected = working.keys.sorted().map { Self.row(.flights, $0, working[$0] ?? "") }
            #expect(store.rows(.flights) == expected, "step \(step)")
            #expect(store.rows(.flights) { $0.id.utf8.count == 2 } == expected.filter { $0.id.utf8.count == 2 })
            #expect(store.row(.flights, id: id) == working[id].map { Self.row(.flights, id, $0) })
        }
    }
}
