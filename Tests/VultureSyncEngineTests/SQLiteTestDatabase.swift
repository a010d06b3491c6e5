import Foundation

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// Another program's hands on a database file: SQL run straight through SQLite, not the store.
enum SQLiteTestDatabase {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func execute(_ file: URL, _ sql: String) throws {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open(file.path, &db) == SQLITE_OK else { throw Failure(description: "cannot open \(file.path)") }
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw Failure(description: message.map { String(cString: $0) } ?? "sqlite3_exec failed")
        }
    }
}
