import Foundation
import VultureSchemaCore
import VultureSyncSchema

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// Why a SQLite local store cannot be opened, migrated or written: the database file, the rule and
/// what is wrong. Nothing in the file changes when opening fails.
public struct SQLiteStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The rule a file breaks.
    public enum Rule: String, Sendable, Equatable {
        /// The file is not a SQLite database (SQLite's `SQLITE_NOTADB`).
        case notADatabase = "store.not-a-database"
        /// A SQLite database another program made: its `application_id` is not the store's, or it
        /// has tables without being a store.
        case foreignDatabase = "store.foreign-database"
        /// A store whose schema (`PRAGMA user_version`) is newer than this version knows.
        case newerSchema = "store.newer-schema"
        /// The database or a value in it is damaged (`SQLITE_CORRUPT`, or a row that does not read back).
        case corrupt = "store.corrupt"
        /// The file store being migrated (`state.json`, `blobs/`) cannot be read.
        case migration = "store.migration"
        /// SQLite or the file system failed otherwise (the disk is full, the file is read-only, …).
        case io = "store.io"
    }

    /// The file (the database, or the `state.json` being migrated).
    public var path: String
    /// The rule.
    public var rule: Rule
    /// What is wrong.
    public var message: String

    /// An error about `path`.
    public init(path: String, rule: Rule, message: String) {
        self.path = path
        self.rule = rule
        self.message = message
    }

    /// `PATH: RULE: message`.
    public var description: String { "\(path): \(rule.rawValue): \(message)" }
}

/// A local store in one SQLite database (the system library), for the command line and any app:
/// WAL journal, one SQLite transaction per ``commit()`` writing only the rows, objects and engine
/// state changed since the last commit (a commit costs the change, not the logbook), and a
/// versioned schema (`PRAGMA user_version`, ``migrations``).
///
/// Tables (schema version 1): `rows(collection, id, value)` with each row's
/// ``LocalRow/canonicalValue`` in compact canonical typed JSON; `engine_state(singleton, value)`
/// holding ``EngineState/canonicalValue``; `blobs(path, bytes)` the gzipped objects kept on the
/// device; `store_info(key, value)`. The file's `application_id` is ``applicationId``.
///
/// Every row is read into memory when the store opens (``rows(_:)`` answers from memory); objects
/// are read on demand. A kill at any moment leaves the database as of the last completed commit
/// (SQLite's atomic commit; `synchronous = FULL`, so a power loss too).
public final class SQLiteLocalStore: LocalStore {
    /// The database file's name in a state directory (``init(directory:)``).
    public static let fileName = "state.sqlite"
    /// `PRAGMA application_id` of a store: "VulS".
    public static let applicationId: Int32 = 0x5675_6C53

    /// One schema version: the statements that take the previous version to this one.
    public struct Migration: Sendable {
        /// The `user_version` after the step.
        public var version: Int32
        /// The SQL statements, run in order inside the opening transaction.
        public var statements: [String]
    }

    /// The schema's steps, oldest first; a new version appends a step (never edits one).
    public static let migrations: [Migration] = [
        Migration(
            version: 1,
            statements: [
                "CREATE TABLE rows (collection TEXT NOT NULL, id TEXT NOT NULL, value BLOB NOT NULL, "
                    + "PRIMARY KEY (collection, id))",
                "CREATE TABLE engine_state (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), value BLOB NOT NULL)",
                "CREATE TABLE blobs (path TEXT PRIMARY KEY, bytes BLOB NOT NULL)",
                "CREATE TABLE store_info (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            ])
    ]

    /// The newest schema version this version reads and writes.
    public static var schemaVersion: Int32 { migrations.last?.version ?? 0 }

    /// The database file.
    public let file: URL
    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    private let memory = InMemoryLocalStore()
    /// Row ids changed since the last commit, by collection.
    private var changedRows: [SyncCollection: Set<String>] = [:]
    private var stateChanged = false
    /// Objects changed since the last commit (nil: dropped).
    private var pendingBlobs: [String: Data?] = [:]

    /// Opens (or makes) the store `DIR/state.sqlite` of a state directory, migrating a file store
    /// (``FileLocalStore``: `DIR/state.json` and `DIR/blobs/`) found there on first open.
    /// - Throws: ``SQLiteStoreError``.
    public convenience init(directory: URL) throws(SQLiteStoreError) {
        do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            throw SQLiteStoreError(path: directory.path, rule: .io, message: systemReason(of: error))
        }
        try self.init(file: directory.appendingPathComponent(Self.fileName), migratingFileStoreIn: directory)
    }

    /// Opens (or makes) the store in `file`. When the file is new and `legacyDirectory` holds a file
    /// store (`state.json`, `blobs/`), its rows, engine state and objects are copied in within the
    /// transaction that makes the schema; the old files are removed only after that transaction
    /// committed (a kill before leaves them, and the next open migrates again).
    /// - Throws: ``SQLiteStoreError``: `store.not-a-database`, `store.foreign-database`,
    ///   `store.newer-schema`, `store.corrupt`, `store.migration`, `store.io`.
    public init(file: URL, migratingFileStoreIn legacyDirectory: URL? = nil) throws(SQLiteStoreError) {
        self.file = file
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
        let rc = sqlite3_open_v2(file.path, &handle, flags, nil)
        db = handle
        guard rc == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            close()
            throw SQLiteStoreError(path: file.path, rule: .io, message: message)
        }
        do {
            sqlite3_extended_result_codes(handle, 1)
            sqlite3_busy_timeout(handle, 5_000)
            try open(legacyDirectory: legacyDirectory)
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    private func close() {
        for (_, statement) in statements { sqlite3_finalize(statement) }
        statements.removeAll()
        if let db { sqlite3_close_v2(db) }
        db = nil
    }

    // MARK: - LocalStore

    public func row(_ collection: SyncCollection, id: String) -> LocalRow? { memory.row(collection, id: id) }
    public func rows(_ collection: SyncCollection) -> [LocalRow] { memory.rows(collection) }
    public func rows(_ collection: SyncCollection, where isIncluded: (LocalRow) -> Bool) -> [LocalRow] {
        memory.rows(collection, where: isIncluded)
    }

    public func put(_ row: LocalRow) {
        memory.put(row)
        changedRows[row.collection, default: []].insert(row.id)
    }

    public func remove(_ collection: SyncCollection, id: String) {
        memory.remove(collection, id: id)
        changedRows[collection, default: []].insert(id)
    }

    public var state: EngineState {
        get { memory.state }
        set {
            memory.state = newValue
            stateChanged = true
        }
    }

    /// The object: a change not committed yet, else the database's (nil when absent or unreadable).
    public func blob(_ path: String) -> Data? {
        if let pending = pendingBlobs[path] { return pending }
        return try? query("SELECT bytes FROM blobs WHERE path = ?", [.text(path)]) { $0.data(0) }.first
    }

    public func setBlob(_ bytes: Data?, at path: String) { pendingBlobs[path] = .some(bytes) }

    /// Writes the rows, objects and engine state changed since the last commit in one SQLite
    /// transaction (their number, not the store's size).
    /// - Throws: ``SQLiteStoreError`` (`store.io`, `store.corrupt`); the transaction is rolled back and
    ///   the working state keeps every change, so a later commit can try again.
    public func commit() throws {
        if changedRows.isEmpty && pendingBlobs.isEmpty && !stateChanged {
            try memory.commit()
            return
        }
        try execute("BEGIN IMMEDIATE")
        do {
            for (collection, ids) in changedRows.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                for id in ids.sorted() {
                    if let row = memory.row(collection, id: id) {
                        try run(
                            "INSERT OR REPLACE INTO rows (collection, id, value) VALUES (?, ?, ?)",
                            [.text(collection.rawValue), .text(id), .json(row.canonicalValue)])
                    } else {
                        try run(
                            "DELETE FROM rows WHERE collection = ? AND id = ?", [.text(collection.rawValue), .text(id)])
                    }
                }
            }
            for (path, bytes) in pendingBlobs.sorted(by: { $0.key < $1.key }) {
                if let bytes {
                    try run("INSERT OR REPLACE INTO blobs (path, bytes) VALUES (?, ?)", [.text(path), .blob(bytes)])
                } else {
                    try run("DELETE FROM blobs WHERE path = ?", [.text(path)])
                }
            }
            if stateChanged {
                try run(
                    "INSERT OR REPLACE INTO engine_state (singleton, value) VALUES (1, ?)",
                    [.json(memory.state.canonicalValue)])
            }
            try execute("COMMIT")
        } catch {
            if sqlite3_get_autocommit(db) == 0 { try? execute("ROLLBACK") }
            throw error
        }
        changedRows.removeAll(keepingCapacity: true)
        pendingBlobs.removeAll(keepingCapacity: true)
        stateChanged = false
        try memory.commit()
    }

    // MARK: - Opening and the schema

    private func open(legacyDirectory: URL?) throws(SQLiteStoreError) {
        // Read the header before anything writes: a foreign or newer file is left exactly as it was.
        let applicationId = try pragma("application_id")
        let userVersion = try pragma("user_version")
        let tables = try query("SELECT count(*) FROM sqlite_master", []) { $0.int(0) }.first ?? 0
        let fresh = applicationId == 0 && userVersion == 0 && tables == 0
        guard fresh || applicationId == Int64(Self.applicationId) else {
            throw SQLiteStoreError(
                path: file.path, rule: .foreignDatabase,
                message: "a SQLite database of another program (application_id \(applicationId), user_version "
                    + "\(userVersion), \(tables) schema objects), not a Vulture local store (application_id "
                    + "\(Self.applicationId))")
        }
        guard userVersion <= Int64(Self.schemaVersion) else {
            throw SQLiteStoreError(
                path: file.path, rule: .newerSchema,
                message: "schema version \(userVersion) (PRAGMA user_version) is newer than this version's "
                    + "\(Self.schemaVersion): open it with the version that wrote it")
        }
        _ = try query("PRAGMA journal_mode = WAL", []) { $0.text(0) }
        try execute("PRAGMA synchronous = FULL")
        let legacyStateFile = legacyDirectory?.appendingPathComponent("state.json")
        if userVersion < Int64(Self.schemaVersion) {
            try migrate(from: userVersion, legacyStateFile: fresh ? legacyStateFile : nil)
        }
        if let legacyDirectory, let legacyStateFile,
            FileManager.default.fileExists(atPath: legacyStateFile.path),
            try query("SELECT value FROM store_info WHERE key = 'migratedFrom'", [], { $0.text(0) }).first != nil
        {
            Self.removeFileStore(in: legacyDirectory)
        }
        try load()
    }

    /// Runs every step after `version` in one transaction, copying a file store in when there is one.
    private func migrate(from version: Int64, legacyStateFile: URL?) throws(SQLiteStoreError) {
        try execute("BEGIN IMMEDIATE")
        do {
            for step in Self.migrations where Int64(step.version) > version {
                for statement in step.statements { try execute(statement) }
            }
            if version == 0 {
                try execute("PRAGMA application_id = \(Self.applicationId)")
                if let legacyStateFile, FileManager.default.fileExists(atPath: legacyStateFile.path) {
                    try copyFileStore(legacyStateFile)
                }
            }
            try execute("PRAGMA user_version = \(Self.schemaVersion)")
            try execute("COMMIT")
        } catch {
            if sqlite3_get_autocommit(db) == 0 { try? execute("ROLLBACK") }
            throw error
        }
        if let legacyStateFile, FileManager.default.fileExists(atPath: legacyStateFile.path) {
            Self.removeFileStore(in: legacyStateFile.deletingLastPathComponent())
        }
    }

    /// Copies a file store's rows, state and objects into the open transaction.
    private func copyFileStore(_ stateFile: URL) throws(SQLiteStoreError) {
        let legacy = InMemoryLocalStore()
        do {
            let data = try Data(contentsOf: stateFile)
            let value = try CanonicalJSON.decode(data, file: stateFile.path)
            try FileLocalStore.load(value, into: legacy)
        } catch {
            throw SQLiteStoreError(path: stateFile.path, rule: .migration, message: "\(error)")
        }
        for c in SyncCollection.allCases {
            for row in legacy.rows(c) {
                try run(
                    "INSERT INTO rows (collection, id, value) VALUES (?, ?, ?)",
                    [.text(c.rawValue), .text(row.id), .json(row.canonicalValue)])
            }
        }
        try run("INSERT INTO engine_state (singleton, value) VALUES (1, ?)", [.json(legacy.state.canonicalValue)])
        let blobs = stateFile.deletingLastPathComponent().appendingPathComponent("blobs")
        for (name, path) in Self.fileStoreObjects(in: blobs) {
            let bytes: Data
            do { bytes = try Data(contentsOf: blobs.appendingPathComponent(name)) } catch {
                throw SQLiteStoreError(
                    path: blobs.appendingPathComponent(name).path, rule: .migration, message: systemReason(of: error)
                )
            }
            try run("INSERT OR REPLACE INTO blobs (path, bytes) VALUES (?, ?)", [.text(path), .blob(bytes)])
        }
        try run("INSERT INTO store_info (key, value) VALUES ('migratedFrom', ?)", [.text(stateFile.path)])
    }

    /// The objects of a file store's `blobs/` folder: file name → Storage path. ``FileLocalStore``
    /// names an object by its path with `/` as `_`; every object path is `users/{uid}/{folder}/{file}`
    /// and only the uid may hold `_`, so the first and the last two `_` are the slashes.
    static func fileStoreObjects(in folder: URL) -> [(name: String, path: String)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().compactMap { name in
            let parts = name.split(separator: "_", omittingEmptySubsequences: false)
            guard parts.count >= 4, parts[0] == "users", parts.dropFirst().allSatisfy({ !$0.isEmpty }) else {
                return nil
            }
            let uid = parts[1..<(parts.count - 2)].joined(separator: "_")
            return (name, "users/\(uid)/\(parts[parts.count - 2])/\(parts[parts.count - 1])")
        }
    }

    /// Removes a migrated file store: `state.json`, then the objects, then `blobs/` when empty.
    static func removeFileStore(in directory: URL) {
        let manager = FileManager.default
        try? manager.removeItem(at: directory.appendingPathComponent("state.json"))
        let blobs = directory.appendingPathComponent("blobs")
        for (name, _) in fileStoreObjects(in: blobs) { try? manager.removeItem(at: blobs.appendingPathComponent(name)) }
        if (try? manager.contentsOfDirectory(atPath: blobs.path))?.isEmpty == true {
            try? manager.removeItem(at: blobs)
        }
    }

    /// Reads every row and the engine state into memory.
    private func load() throws(SQLiteStoreError) {
        let stored = try query("SELECT collection, id, value FROM rows", []) { ($0.text(0), $0.text(1), $0.data(2)) }
        for (name, id, bytes) in stored {
            guard let collection = SyncCollection(rawValue: name) else {
                throw SQLiteStoreError(
                    path: file.path, rule: .corrupt, message: "rows: no collection \(name) (id \(id))")
            }
            do {
                let value = try CanonicalJSON.decode(bytes, file: "rows/\(name)/\(id)")
                memory.put(try LocalRow(collection: collection, id: id, canonicalValue: value))
            } catch {
                throw SQLiteStoreError(path: file.path, rule: .corrupt, message: "rows \(name)/\(id): \(error)")
            }
        }
        if let bytes = try query("SELECT value FROM engine_state WHERE singleton = 1", [], { $0.data(0) }).first {
            do {
                memory.state = try EngineState(canonicalValue: try CanonicalJSON.decode(bytes, file: "engine_state"))
            } catch {
                throw SQLiteStoreError(path: file.path, rule: .corrupt, message: "engine_state: \(error)")
            }
        }
        do { try memory.commit() } catch {
            throw SQLiteStoreError(path: file.path, rule: .io, message: "\(error)")
        }
    }

    // MARK: - SQLite calls

    /// A value bound to a statement's parameter.
    private enum Parameter {
        case text(String)
        case blob(Data)
        /// A value stored as compact canonical typed JSON.
        case json(FirestoreValue)
    }

    /// One result row.
    private struct ResultRow {
        let statement: OpaquePointer
        func int(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
        func text(_ column: Int32) -> String {
            sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
        }
        func data(_ column: Int32) -> Data {
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return Data() }
            return Data(bytes: bytes, count: count)
        }
    }

    /// SQLite's "copy the bound value now" destructor.
    private static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

    private func error(_ code: Int32, _ what: String) -> SQLiteStoreError {
        let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "no database"
        let rule: SQLiteStoreError.Rule =
            switch code & 0xFF {
            case SQLITE_NOTADB: .notADatabase
            case SQLITE_CORRUPT: .corrupt
            default: .io
            }
        return SQLiteStoreError(path: file.path, rule: rule, message: "\(what): \(message) (SQLite code \(code))")
    }

    /// Runs statements without parameters or results.
    private func execute(_ sql: String) throws(SQLiteStoreError) {
        let rc = sqlite3_exec(db, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc, sql) }
    }

    private func pragma(_ name: String) throws(SQLiteStoreError) -> Int64 {
        try query("PRAGMA \(name)", []) { $0.int(0) }.first ?? 0
    }

    /// The prepared statement for `sql`, kept for the store's life.
    private func prepared(_ sql: String) throws(SQLiteStoreError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(rc, sql) }
        statements[sql] = statement
        return statement
    }

    private func run(_ sql: String, _ parameters: [Parameter]) throws(SQLiteStoreError) {
        _ = try query(sql, parameters) { _ in () }
    }

    private func query<T>(_ sql: String, _ parameters: [Parameter], _ read: (ResultRow) -> T) throws(SQLiteStoreError)
        -> [T]
    {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (k, parameter) in parameters.enumerated() {
            let index = Int32(k + 1)
            let rc: Int32
            switch parameter {
            case .text(let text): rc = sqlite3_bind_text(statement, index, text, -1, Self.transient)
            case .blob(let data): rc = Self.bind(data, statement, index)
            case .json(let value):
                rc = Self.bind(Data(CanonicalJSON.compactString(value).utf8), statement, index)
            }
            guard rc == SQLITE_OK else { throw error(rc, sql) }
        }
        var out: [T] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw error(rc, sql) }
            out.append(read(ResultRow(statement: statement)))
        }
        return out
    }

    private static func bind(_ data: Data, _ statement: OpaquePointer, _ index: Int32) -> Int32 {
        guard !data.isEmpty else { return sqlite3_bind_zeroblob(statement, index, 0) }
        return data.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient) }
    }
}
