import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// A local store in a directory, for the command line: `state.json` (every row and the engine
/// state, canonical typed JSON) replaced by an atomic rename on ``commit()``, and the gzipped
/// objects in `blobs/` (content-addressed; written before the state that names them).
///
/// A crash before ``commit()`` leaves the previous `state.json`: exactly the uncommitted changes
/// are lost; an object written for them stays as an unreferenced file.
public final class FileLocalStore: LocalStore {
    /// The store's directory.
    public let directory: URL
    private let memory = InMemoryLocalStore()
    private var pendingBlobs: [String: Data?] = [:]

    /// Why a state file cannot be read.
    public struct ReadError: Error, CustomStringConvertible {
        /// The file and the reader's error.
        public var description: String
    }

    /// Opens (or starts) a store in `directory`.
    /// - Throws: ``ReadError`` for a state file that is not a state this version wrote; the file
    ///   system's error when the directory cannot be made.
    public init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("blobs"), withIntermediateDirectories: true)
        let stateURL = directory.appendingPathComponent("state.json")
        guard let data = FileManager.default.contents(atPath: stateURL.path) else { return }
        let value: FirestoreValue
        do { value = try CanonicalJSON.decode(data, file: stateURL.path) } catch {
            throw ReadError(description: "\(error)")
        }
        do {
            try Self.load(value, into: memory)
        } catch {
            throw ReadError(description: "\(stateURL.path): \(error)")
        }
        try memory.commit()
    }

    public func row(_ collection: SyncCollection, id: String) -> LocalRow? { memory.row(collection, id: id) }
    public func rows(_ collection: SyncCollection) -> [LocalRow] { memory.rows(collection) }
    public func put(_ row: LocalRow) { memory.put(row) }
    public func remove(_ collection: SyncCollection, id: String) { memory.remove(collection, id: id) }

    public var state: EngineState {
        get { memory.state }
        set { memory.state = newValue }
    }

    public func blob(_ path: String) -> Data? {
        if let pending = pendingBlobs[path] { return pending }
        return FileManager.default.contents(atPath: blobURL(path).path)
    }

    public func setBlob(_ bytes: Data?, at path: String) { pendingBlobs[path] = .some(bytes) }

    func blobURL(_ path: String) -> URL {
        directory.appendingPathComponent("blobs").appendingPathComponent(
            path.replacingOccurrences(of: "/", with: "_"))
    }

    /// Writes pending objects, then the state by an atomic rename, then drops removed objects.
    public func commit() throws {
        var removed: [URL] = []
        for (path, bytes) in pendingBlobs.sorted(by: { $0.key < $1.key }) {
            if let bytes { try bytes.write(to: blobURL(path), options: .atomic) } else { removed.append(blobURL(path)) }
        }
        let bytes = CanonicalJSON.encode(Self.value(of: memory))
        try Data(bytes).write(to: directory.appendingPathComponent("state.json"), options: .atomic)
        for url in removed { try? FileManager.default.removeItem(at: url) }
        pendingBlobs.removeAll()
        try memory.commit()
    }

    // MARK: - The state file

    static func value(of store: InMemoryLocalStore) -> FirestoreValue {
        var rows: [String: FirestoreValue] = [:]
        for c in SyncCollection.allCases {
            var byId: [String: FirestoreValue] = [:]
            for r in store.rows(c) {
                byId[r.id] = .map([
                    "fields": .map(r.fields), "base": r.base.map { .map($0) } ?? .null,
                    "baseUpdateTime": r.baseUpdateTime.map { .timestamp($0) } ?? .null,
                    "origin": .string(r.origin.rawValue), "createdAt": .timestamp(r.createdAt),
                    "deferredTaskId": r.deferredTaskId.map { .string($0) } ?? .null,
                    "pendingBlobMap": r.pendingBlobMap ?? .null,
                    "createdSinceAgreement": .boolean(r.createdSinceAgreement),
                ])
            }
            if !byId.isEmpty { rows[c.rawValue] = .map(byId) }
        }
        let s = store.state
        var cursors: [String: FirestoreValue] = [:]
        for (c, t) in s.cursors { cursors[c.rawValue] = .timestamp(t) }
        return .map([
            "formatVersion": .integer(1), "rows": .map(rows),
            "state": .map([
                "cursors": .map(cursors), "pausedUntil": s.pausedUntil.map { .timestamp($0) } ?? .null,
                "profile": s.profile.map { .map($0) } ?? .null, "duplicatePassDone": .boolean(s.duplicatePassDone),
                "lastPullAt": s.lastPullAt.map { .timestamp($0) } ?? .null,
                "heldRecords": .map(s.heldRecords.mapValues { .array($0.map { .string($0) }) }),
            ]),
        ])
    }

    struct FormatError: Error, CustomStringConvertible {
        var description: String
    }

    static func load(_ value: FirestoreValue, into store: InMemoryLocalStore) throws {
        guard case .map(let root) = value, root["formatVersion"] == .integer(1),
            case .map(let rows)? = root["rows"], case .map(let state)? = root["state"]
        else { throw FormatError(description: "/: not a state file of format 1") }
        for (name, byId) in rows {
            guard let c = SyncCollection(rawValue: name), case .map(let entries) = byId else {
                throw FormatError(description: "/rows/\(name): no such collection")
            }
            for (id, entry) in entries {
                let p = "/rows/\(name)/\(id)"
                guard case .map(let m) = entry, case .map(let fields)? = m["fields"],
                    case .string(let originText)? = m["origin"], let origin = RowOrigin(rawValue: originText),
                    case .timestamp(let createdTime)? = m["createdAt"]
                else { throw FormatError(description: "\(p): fields, origin and createdAt are required") }
                var base: [String: FirestoreValue]?
                if case .map(let b)? = m["base"] { base = b }
                var baseTime: FirestoreTimestamp?
                if case .timestamp(let t)? = m["baseUpdateTime"] { baseTime = t }
                var deferred: String?
                if case .string(let d)? = m["deferredTaskId"] { deferred = d }
                let pending = m["pendingBlobMap"] == .null ? nil : m["pendingBlobMap"]
                store.put(
                    LocalRow(
                        collection: c, id: id, fields: fields, base: base, baseUpdateTime: baseTime, origin: origin,
                        createdAt: createdTime, deferredTaskId: deferred, pendingBlobMap: pending,
                        createdSinceAgreement: m["createdSinceAgreement"] == .boolean(true)))
            }
        }
        var s = EngineState()
        if case .map(let cursors)? = state["cursors"] {
            for (name, t) in cursors {
                if let c = SyncCollection(rawValue: name), case .timestamp(let time) = t { s.cursors[c] = time }
            }
        }
        if case .timestamp(let t)? = state["pausedUntil"] { s.pausedUntil = t }
        if case .map(let p)? = state["profile"] { s.profile = p }
        s.duplicatePassDone = state["duplicatePassDone"] == .boolean(true)
        if case .timestamp(let t)? = state["lastPullAt"] { s.lastPullAt = t }
        if case .map(let held)? = state["heldRecords"] {
            for (key, errors) in held {
                guard case .array(let items) = errors else { continue }
                s.heldRecords[key] = items.compactMap { if case .string(let e) = $0 { e } else { nil } }
            }
        }
        store.state = s
    }
}
