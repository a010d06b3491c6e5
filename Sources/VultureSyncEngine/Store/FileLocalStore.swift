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
    public func rows(_ collection: SyncCollection, where isIncluded: (LocalRow) -> Bool) -> [LocalRow] {
        memory.rows(collection, where: isIncluded)
    }
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

    /// The whole state file: every row (``LocalRow/canonicalValue`` by collection and id) and the
    /// engine state (``EngineState/canonicalValue``).
    static func value(of store: InMemoryLocalStore) -> FirestoreValue {
        var rows: [String: FirestoreValue] = [:]
        for c in SyncCollection.allCases {
            var byId: [String: FirestoreValue] = [:]
            for r in store.rows(c) { byId[r.id] = r.canonicalValue }
            if !byId.isEmpty { rows[c.rawValue] = .map(byId) }
        }
        return .map(["formatVersion": .integer(1), "rows": .map(rows), "state": store.state.canonicalValue])
    }

    /// Reads a state file's value (``value(of:)``) into `store` as uncommitted changes.
    /// - Throws: ``StoredValueError`` with the pointer inside the file.
    static func load(_ value: FirestoreValue, into store: InMemoryLocalStore) throws(StoredValueError) {
        guard case .map(let root) = value, root["formatVersion"] == .integer(1),
            case .map(let rows)? = root["rows"], case .map(let state)? = root["state"]
        else { throw StoredValueError(pointer: "", message: "not a state file of format 1") }
        for (name, byId) in rows {
            guard let c = SyncCollection(rawValue: name), case .map(let entries) = byId else {
                throw StoredValueError(pointer: "/rows/\(name)", message: "no such collection")
            }
            for (id, entry) in entries {
                do { store.put(try LocalRow(collection: c, id: id, canonicalValue: entry)) } catch {
                    throw StoredValueError(pointer: "/rows/\(name)/\(id)\(error.pointer)", message: error.message)
                }
            }
        }
        do { store.state = try EngineState(canonicalValue: .map(state)) } catch {
            throw StoredValueError(pointer: "/state\(error.pointer)", message: error.message)
        }
    }
}
