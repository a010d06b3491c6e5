import Foundation
import VultureFirestore
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// The properties every run must keep (README "The simulation").
public enum Invariant: String, Sendable, Hashable, CaseIterable {
    /// The server answered every request of the world itself (not an engine invariant: against the
    /// emulators, a run whose server stopped answering cannot be judged).
    case serverAnswered
    /// At quiescence every device holds exactly the server's documents.
    case convergence
    /// An edit the server acknowledged is on the server at quiescence unless a later edit of the same
    /// field (by `clientUpdatedAt`) or a delete replaced it.
    case acknowledgedEditKept
    /// `inLogbook` and a blob map's `uploaded` never go from true to false on a live document.
    case orFlagNeverDrops
    /// `importedAt` never moves later.
    case importedAtNeverLater
    /// `summary.analysisVersion` never drops.
    case analysisVersionNeverDrops
    /// A live document's blob map is never dropped.
    case blobMapKept
    /// `uploaded: true` means the object exists and its gunzipped bytes hash to the record's id or hash.
    case uploadedObjectExists
    /// At quiescence every object a device uploaded that is still in the bucket is named by a live
    /// document (a tombstone's objects are deleted, a failed delete retried).
    case noOrphanedObject
    /// `storageBytes` equals the gzipped sizes of the distinct objects live documents reserve.
    case storageBytesCounted
    /// `storageBytes` stays under the cap without Pro.
    case storageCap
    /// Every batch holds at most 400 writes and 4 MB estimated.
    case batchLimits
    /// Within one push, collections are pushed in order.
    case pushOrder
    /// A tombstone comes back only by a re-import (or from a device offline for more than 90 days).
    case noResurrection
    /// At most 50 flights carry `lastOpenedAt`, the same set on every device, at quiescence.
    case recents
    /// Flights opened at one instant lose their date by id, the larger first (Spec/pins.tsv recentsTieOrder).
    case recentsTieOrder
    /// A file is downloaded only when its record says `uploaded` (schema §5.1).
    case downloadOnlyWhenUploaded
    /// The same seed gives the same trace.
    case determinism
}

/// An invariant that did not hold: which, at which step, and what was seen.
public struct InvariantViolation: Error, Sendable, Hashable, CustomStringConvertible {
    /// The invariant.
    public var invariant: Invariant
    /// What was seen, for a person.
    public var message: String

    /// `invariant: message`.
    public var description: String { "\(invariant.rawValue): \(message)" }
}

/// Checks the invariants of a world step by step: it keeps the previous server state for the
/// properties that compare two moments.
struct InvariantChecker {
    let uid: String
    var previous: [String: FirestoreDocument] = [:]
    /// Paths that may come back to life: re-imported or re-created after their delete.
    var revivalsAllowed: Set<String> = []
    /// When a device made a record anew (its local creation time, device clock), by path: a record
    /// made after a remote delete's `deletedAt` outlives it (schema §5.4), whatever the real order.
    var creations: [String: [FirestoreTimestamp]] = [:]
    /// Objects another client wrote directly (a scenario's `serverUpload`): their bytes are that
    /// client's doing, not an engine's.
    var foreignObjects: Set<String> = []
    /// Records whose tombstone was pushed after its retention had passed and so purged at once: a
    /// device that kept the record agreed keeps it (schema §5.4 accepts what a device offline that
    /// long brings about).
    var lateDeletes: Set<String> = []
    /// The SHA-256 of each object's gunzipped bytes as last checked, with the bytes it was computed
    /// from (nil: they do not gunzip): the check runs after every step, and the bytes rarely change.
    var objectDigests: [String: (bytes: Data, digest: String?)] = [:]

    init(uid: String) { self.uid = uid }

    /// The SHA-256 of `object`'s gunzipped bytes (nil when they do not gunzip), computed again only
    /// when its bytes differ from the last time.
    mutating func digest(of object: StorageObject) -> String? {
        if let known = objectDigests[object.path], known.bytes == object.bytes { return known.digest }
        let digest = (try? Gzip.decompress(object.bytes, maximumOutputBytes: SchemaLimits.igcImportMaxRawBytes))
            .map { SHA256Stream.hexDigest(of: $0) }
        objectDigests[object.path] = (object.bytes, digest)
        return digest
    }

    /// Each kind of Storage object with `/collection/` of the records that name it (`/flights/`, `/mapFiles/`).
    static let blobCollections: [(kind: StorageObjectKind, marker: String)] = StorageObjectKind.allCases.map { kind in
        (kind, "/\(SyncCollection.allCases.first { $0.documentType == kind.recordType }?.rawValue ?? "")/")
    }

    /// The blob maps a record holds (`igc` of a flight, `content` of a map file). Called for every
    /// document at every step, so the path test compares UTF-8 bytes (Foundation's `contains` was a
    /// sixth of a run's time).
    static func blobMaps(_ doc: FirestoreDocument) -> [(kind: StorageObjectKind, map: [String: FirestoreValue])] {
        blobCollections.compactMap { kind, marker in
            guard inCollection(doc.path, marker), case .map(let m)? = doc.fields[kind.mapField] else { return nil }
            return (kind, m)
        }
    }

    /// Whether `path` contains `marker` (`/flights/`), byte for byte (a plain scan: paths are short,
    /// and the standard library's generic `firstRange(of:)` costs more than Foundation's search).
    static func inCollection(_ path: String, _ marker: String) -> Bool {
        var path = path
        var marker = marker
        return path.withUTF8 { p in
            marker.withUTF8 { m in
                guard m.count <= p.count else { return false }
                var start = 0
                while start + m.count <= p.count {
                    var k = 0
                    while k < m.count && p[start + k] == m[k] { k += 1 }
                    if k == m.count { return true }
                    start += 1
                }
                return false
            }
        }
    }

    static func isLive(_ doc: FirestoreDocument?) -> Bool {
        doc.map { $0.fields[CommonFields.Field.deleted] != .boolean(true) } ?? false
    }

    /// The properties of the server state now and since the previous step.
    mutating func afterStep(
        documents: [FirestoreDocument], storage: CloudStorage, pro: Bool, newCommits: [[FirestoreWrite]],
        pushes: [[[FirestoreWrite]]]
    ) -> [InvariantViolation] {
        var out: [InvariantViolation] = []
        let now = Dictionary(documents.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        for (path, after) in now.sorted(by: { $0.key < $1.key }) {
            guard let before = previous[path] else { continue }
            let recreated: Bool = {
                guard case .timestamp(let deletedAt)? = before.fields[CommonFields.Field.deletedAt] else {
                    return false
                }
                return creations[path, default: []].contains { $0 > deletedAt }
            }()
            if !Self.isLive(before) && Self.isLive(after) && !revivalsAllowed.contains(path) && !recreated {
                out.append(
                    InvariantViolation(invariant: .noResurrection, message: "\(path) came back after its delete"))
            }
            guard Self.isLive(before) && Self.isLive(after) else { continue }
            if before.fields[FlightDocument.Field.inLogbook] == .boolean(true)
                && after.fields[FlightDocument.Field.inLogbook] == .boolean(false),
                !revivalsAllowed.contains(path)
            {
                out.append(InvariantViolation(invariant: .orFlagNeverDrops, message: "\(path) inLogbook true → false"))
            }
            if case .timestamp(let a)? = before.fields[FlightDocument.Field.importedAt],
                case .timestamp(let b)? = after.fields[FlightDocument.Field.importedAt],
                b > a, !revivalsAllowed.contains(path)
            {
                out.append(
                    InvariantViolation(
                        invariant: .importedAtNeverLater, message: "\(path) importedAt \(a.rfc3339) → \(b.rfc3339)"))
            }
            if case .integer(let a)? = before.fields[FlightDocument.Field.summary]?.mapValue?[
                FlightSummary.Field.analysisVersion],
                case .integer(let b)? = after.fields[FlightDocument.Field.summary]?.mapValue?[
                    FlightSummary.Field.analysisVersion], b < a
            {
                out.append(
                    InvariantViolation(
                        invariant: .analysisVersionNeverDrops, message: "\(path) analysisVersion \(a) → \(b)"))
            }
            for (kind, map) in Self.blobMaps(before) {
                guard case .map(let newMap)? = after.fields[kind.mapField] else {
                    out.append(
                        InvariantViolation(invariant: .blobMapKept, message: "\(path) lost its \(kind.mapField) map"))
                    continue
                }
                if map[StorageObjectKind.MapField.path] == newMap[StorageObjectKind.MapField.path],
                    map[StorageObjectKind.MapField.uploaded] == .boolean(true),
                    newMap[StorageObjectKind.MapField.uploaded] != .boolean(true)
                {
                    out.append(
                        InvariantViolation(
                            invariant: .orFlagNeverDrops, message: "\(path) \(kind.mapField).uploaded true → false"))
                }
            }
        }
        // Uploaded objects exist with the right bytes; storageBytes counts each live object once.
        var counted: [String: Int64] = [:]
        for doc in documents where Self.isLive(doc) {
            for (kind, map) in Self.blobMaps(doc) {
                guard case .string(let objectPath)? = map[StorageObjectKind.MapField.path] else { continue }
                if case .integer(let gz)? = map[StorageObjectKind.MapField.gzBytes] { counted[objectPath] = gz }
                guard map[StorageObjectKind.MapField.uploaded] == .boolean(true) else { continue }
                guard let object = (try? storage.download(objectPath)) ?? nil else {
                    out.append(
                        InvariantViolation(
                            invariant: .uploadedObjectExists,
                            message:
                                "\(doc.path) says uploaded (written by \(doc.fields[CommonFields.Field.updatedBy] ?? .null)), \(objectPath) is missing"
                        ))
                    continue
                }
                let expected: String? =
                    kind == .igc ? doc.id : doc.fields[MapFileDocument.Field.contentHash]?.stringValue
                if let expected, !foreignObjects.contains(objectPath), let digest = digest(of: object),
                    digest != expected
                {
                    out.append(
                        InvariantViolation(
                            invariant: .uploadedObjectExists, message: "\(objectPath) does not hash to \(expected)"))
                }
            }
        }
        if case .integer(let bytes)? = now[SyncCollection.profilePath(uid: uid)]?.fields[
            ProfileDocument.Field.storageBytes]
        {
            let expected = counted.values.reduce(0, +)
            if bytes != expected {
                out.append(
                    InvariantViolation(
                        invariant: .storageBytesCounted,
                        message: "storageBytes \(bytes), the live objects hold \(expected)"))
            }
            if !pro && bytes > SchemaLimits.storageCapBytes {
                out.append(
                    InvariantViolation(
                        invariant: .storageCap, message: "storageBytes \(bytes) over the cap without Pro"))
            }
        }
        for writes in newCommits {
            let bytes = writes.reduce(0) { $0 + StorageSize.document(path: $1.path ?? "", fields: $1.fields ?? [:]) }
            if writes.count > Int(SchemaLimits.engineBatchMaxWrites)
                || bytes > Int(SchemaLimits.engineBatchMaxPayloadBytes)
            {
                out.append(
                    InvariantViolation(
                        invariant: .batchLimits, message: "a batch of \(writes.count) writes, \(bytes) bytes"))
            }
        }
        // Push order: within one device's sync, the collections of its record writes never go back
        // (the purge's deletes and the profile's own writes aside).
        let order = SyncCollection.pushOrder
        for sync in pushes {
            var last = -1
            for writes in sync {
                guard
                    let first = writes.first(where: { !$0.isDelete && $0.path != SyncCollection.profilePath(uid: uid) }
                    ),
                    let c = Self.collection(of: first.path ?? ""), let rank = order.firstIndex(of: c)
                else { continue }
                if rank < last {
                    out.append(
                        InvariantViolation(
                            invariant: .pushOrder, message: "\(c.rawValue) pushed after a later collection"))
                }
                last = max(last, rank)
            }
        }
        previous = now
        return out
    }

    /// The collection of a document path `users/{uid}/{collection}/{id}`.
    static func collection(of path: String) -> SyncCollection? {
        let parts = FirestoreLimits.slashSegments(path)
        return parts.count == 4 && parts.allSatisfy({ !$0.isEmpty }) ? SyncCollection(rawValue: String(parts[2])) : nil
    }

    static let validator = SchemaValidator(schema: .vulture)

    /// Convergence and the recents at quiescence.
    func atQuiescence(documents: [FirestoreDocument], devices: [(name: String, store: LocalStore)])
        -> [InvariantViolation]
    {
        var out: [InvariantViolation] = []
        let server = Dictionary(
            documents.filter { Self.collection(of: $0.path) != nil }.map { ($0.path, $0.fields) },
            uniquingKeysWith: { a, _ in a })
        // A document that breaks the schema (another client's) is not merged: a device keeps the
        // last valid version it merged, or no row (Spec/pins.tsv malformedDocumentHeld).
        let broken = Set(
            server.compactMap { path, fields -> String? in
                guard let c = Self.collection(of: path) else { return nil }
                let errors = Self.validator.validate(
                    fields, documentType: c.documentType, options: ValidationOptions(form: .stored))
                return errors.contains { $0.severity == .error } ? path : nil
            })
        for (name, store) in devices {
            var rows: [String: [String: FirestoreValue]] = [:]
            for c in SyncCollection.allCases where c != .users {
                // A task id the flight waits for counts as held: the device stores null until the
                // task arrives and keeps the server's id (schema §5.5, LocalRow.pushedFields).
                for row in store.rows(c) { rows[c.documentPath(uid: uid, id: row.id)] = row.pushedFields }
            }
            for path in Set(server.keys).union(rows.keys).sorted() {
                let a = server[path]
                let b = rows[path]
                guard a != b, !(a == nil && lateDeletes.contains(path)), !broken.contains(path) else { continue }
                let message: String
                if a == nil {
                    message = "device \(name) has \(path), the server does not"
                } else if b == nil {
                    message = "the server has \(path), device \(name) does not"
                } else {
                    let keys = Set(a!.keys).union(b!.keys).filter { a?[$0] != b?[$0] }.sorted()
                    message =
                        "device \(name) differs from the server at \(path): "
                        + keys.prefix(3).map { "\($0) server \(a?[$0] ?? .null), device \(b?[$0] ?? .null)" }.joined(
                            separator: "; ")
                }
                out.append(InvariantViolation(invariant: .convergence, message: message))
                break
            }
        }
        let recents = server.filter { path, fields in
            Self.inCollection(path, "/flights/") && fields[CommonFields.Field.deleted] != .boolean(true)
                && (fields[FlightDocument.Field.lastOpenedAt] ?? .null) != .null
        }
        if recents.count > Int(SchemaLimits.recentsMax) {
            out.append(InvariantViolation(invariant: .recents, message: "\(recents.count) flights carry lastOpenedAt"))
        }
        return out
    }
}

extension FirestoreValue {
    /// The string, when this is one.
    var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}
