import Foundation
import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

/// The progress line of long work: counts of what went over the wire so far, written to a sink
/// (stderr in the executable) once a second after the first second, and once at the end when a
/// line was written (work shorter than a second prints none).
public final class SyncProgress: @unchecked Sendable {
    private let lock = NSLock()
    private let sink: (String) -> Void
    private var lastLine: UInt64 = 0
    private var printed = false
    /// Commits sent and acknowledged.
    public private(set) var commits = 0
    /// Writes in those commits.
    public private(set) var writes = 0
    /// Documents read by queries and gets.
    public private(set) var documentsRead = 0
    /// Objects uploaded.
    public private(set) var uploads = 0
    /// Files imported (the `import` command).
    public private(set) var imported = 0
    /// Files to import.
    public var importTotal = 0

    /// Progress written to `sink`, one line at a time.
    public init(sink: @escaping (String) -> Void) {
        self.sink = sink
        lastLine = DispatchTime.now().uptimeNanoseconds
    }

    /// The current line, e.g. `import 120/500 · 37 commits, 1,204 writes · 500 documents read · 12 uploads`.
    public var line: String {
        var parts: [String] = []
        if importTotal > 0 { parts.append("import \(imported)/\(importTotal)") }
        if commits > 0 || writes > 0 { parts.append("\(commits) commits, \(writes) writes") }
        if documentsRead > 0 { parts.append("\(documentsRead) documents read") }
        if uploads > 0 { parts.append("\(uploads) uploads") }
        return parts.isEmpty ? "nothing sent yet" : parts.joined(separator: " · ")
    }

    func record(_ body: (SyncProgress) -> Void) {
        lock.lock()
        body(self)
        let now = DispatchTime.now().uptimeNanoseconds
        let somethingDone = commits + documentsRead + uploads + imported > 0
        let due = somethingDone && now &- lastLine >= 1_000_000_000
        if due { lastLine = now }
        let text = line
        if due { printed = true }
        lock.unlock()
        if due { sink(text) }
    }

    func committed(_ n: Int) {
        record {
            $0.commits += 1
            $0.writes += n
        }
    }
    func read(_ n: Int) { record { $0.documentsRead += n } }
    func uploaded() { record { $0.uploads += 1 } }
    func importedOne() { record { $0.imported += 1 } }

    /// The last line, when a line was printed during the work (so the log ends with the totals).
    public func finish() {
        lock.lock()
        let show = printed
        let text = line
        lock.unlock()
        if show { sink(text) }
    }
}

/// A Firestore in front of another that counts what passes for the progress line.
final class ObservedFirestore: FirestoreDatabase, @unchecked Sendable {
    let base: FirestoreDatabase
    let progress: SyncProgress
    init(_ base: FirestoreDatabase, progress: SyncProgress) {
        self.base = base
        self.progress = progress
    }
    var database: String { base.database }
    func commit(_ writes: [FirestoreWrite]) throws(FirestoreError) -> FirestoreCommitResult {
        let result = try base.commit(writes)
        progress.committed(writes.count)
        return result
    }
    // The base's commits in flight pass through (the REST client overlaps them), counted as they land.
    var commitsInFlight: Int { base.commitsInFlight }
    func commitEach(_ batches: [[FirestoreWrite]]) -> [Result<FirestoreCommitResult, FirestoreError>] {
        let results = base.commitEach(batches)
        for (batch, result) in zip(batches, results) {
            if case .success = result { progress.committed(batch.count) }
        }
        return results
    }
    func get(_ path: String) throws(FirestoreError) -> FirestoreDocument? {
        let document = try base.get(path)
        progress.read(document == nil ? 0 : 1)
        return document
    }
    func runQuery(_ query: FirestoreQuery) throws(FirestoreError) -> [FirestoreDocument] {
        let documents = try base.runQuery(query)
        progress.read(documents.count)
        return documents
    }
}

/// A Cloud Storage in front of another that counts uploads for the progress line.
final class ObservedCloudStorage: CloudStorage, @unchecked Sendable {
    let base: CloudStorage
    let progress: SyncProgress
    init(_ base: CloudStorage, progress: SyncProgress) {
        self.base = base
        self.progress = progress
    }
    func upload(_ object: StorageObject, onlyIfAbsent: Bool) throws(CloudStorageError) {
        try base.upload(object, onlyIfAbsent: onlyIfAbsent)
        progress.uploaded()
    }
    func download(_ path: String) throws(CloudStorageError) -> StorageObject? { try base.download(path) }
    func delete(_ path: String) throws(CloudStorageError) { try base.delete(path) }
}

/// The database of a command that needs none (`import`, `edit`, `status`, …): every request is
/// UNAVAILABLE, naming the missing option.
final class NoFirestore: FirestoreDatabase, @unchecked Sendable {
    var database: String { "projects/-/databases/(default)" }
    func commit(_ writes: [FirestoreWrite]) throws(FirestoreError) -> FirestoreCommitResult {
        throw FirestoreError(.unavailable, "no --emulator HOST:PORT given")
    }
    func get(_ path: String) throws(FirestoreError) -> FirestoreDocument? {
        throw FirestoreError(.unavailable, "no --emulator HOST:PORT given")
    }
    func runQuery(_ query: FirestoreQuery) throws(FirestoreError) -> [FirestoreDocument] {
        throw FirestoreError(.unavailable, "no --emulator HOST:PORT given")
    }
}
