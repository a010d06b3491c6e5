import Foundation
import VultureFirestore
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// The app's own database, as an app would keep one over Core Data or SQLite: Codable records in
/// tables keyed by string, saved as a whole only by ``save()``. Here it is a dictionary in memory
/// with a durable copy, so a test can drop unsaved changes as a process kill would.
public final class LogbookDatabase: @unchecked Sendable {
    /// One stored record: an engine row or state as canonical JSON, or a kept gzipped object.
    public struct Record: Codable, Hashable, Sendable {
        /// The record's bytes.
        public var bytes: Data
    }

    /// Saved tables: table name → key → record.
    private var saved: [String: [String: Record]] = [:]
    /// Tables as the app sees them now (saved plus unsaved changes).
    private var working: [String: [String: Record]] = [:]

    /// An empty database.
    public init() {}

    /// The record at `key` of `table`, or nil.
    public func record(_ table: String, _ key: String) -> Record? { working[table]?[key] }
    /// Every record of `table`, by key.
    public func records(_ table: String) -> [String: Record] { working[table] ?? [:] }
    /// Inserts, replaces or (with nil) deletes a record.
    public func set(_ record: Record?, table: String, key: String) { working[table, default: [:]][key] = record }
    /// Makes the working tables durable.
    public func save() { saved = working }
    /// Drops every unsaved change, as a kill of the app would.
    public func discardUnsaved() { working = saved }
}

/// The engine's ``LocalStore`` over the app's ``LogbookDatabase``: rows, engine state and kept
/// objects are records, encoded with the engine's canonical value pair (``LocalRow/canonicalValue``,
/// ``EngineState/canonicalValue``), so rows written by one version of the app read back in the next.
public final class LogbookStore: LocalStore {
    /// The database the store keeps its records in.
    public let database: LogbookDatabase

    /// A store over `database`.
    public init(database: LogbookDatabase) { self.database = database }

    static func table(_ collection: SyncCollection) -> String { "rows." + collection.rawValue }

    static func encode(_ value: FirestoreValue) -> LogbookDatabase.Record {
        LogbookDatabase.Record(bytes: Data(CanonicalJSON.encode(value)))
    }

    static func decode(_ record: LogbookDatabase.Record) -> FirestoreValue? {
        try? CanonicalJSON.decode(record.bytes)
    }

    public func row(_ collection: SyncCollection, id: String) -> LocalRow? {
        guard let record = database.record(Self.table(collection), id), let value = Self.decode(record) else {
            return nil
        }
        return try? LocalRow(collection: collection, id: id, canonicalValue: value)
    }

    public func rows(_ collection: SyncCollection) -> [LocalRow] {
        database.records(Self.table(collection)).keys.sorted().compactMap { row(collection, id: $0) }
    }

    public func put(_ row: LocalRow) {
        database.set(Self.encode(row.canonicalValue), table: Self.table(row.collection), key: row.id)
    }

    public func remove(_ collection: SyncCollection, id: String) {
        database.set(nil, table: Self.table(collection), key: id)
    }

    public var state: EngineState {
        get {
            guard let record = database.record("engine", "state"), let value = Self.decode(record) else {
                return EngineState()
            }
            return (try? EngineState(canonicalValue: value)) ?? EngineState()
        }
        set { database.set(Self.encode(newValue.canonicalValue), table: "engine", key: "state") }
    }

    public func blob(_ path: String) -> Data? { database.record("objects", path)?.bytes }

    public func setBlob(_ bytes: Data?, at path: String) {
        database.set(bytes.map { LogbookDatabase.Record(bytes: $0) }, table: "objects", key: path)
    }

    public func commit() throws { database.save() }
}
