import Foundation
import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

/// Why a local change was refused.
public enum LocalChangeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No live row with this id.
    case noSuchRecord(SyncCollection, id: String)
    /// The record's id rule refused its inputs.
    case id(DocumentIdError)
    /// The file could not be gzipped or its path built.
    case blob(BlobError)
    /// A downloaded object failed its check (schema §2: discarded).
    case download(String)
    /// The local store could not make the change durable.
    case store(String)
    /// The change breaks the schema (schema §2 fields, §3 limits): the first error
    /// `vulture-conformance validate --strict` reports for the record as another device reads it
    /// (the stored form), at a field the change sets (any field of a new record); a field the schema
    /// does not know only where the change adds it. Nothing is saved.
    case schema(SchemaViolation)
    /// The bytes given as an IGC file are none a flight can be imported from (`IGCImportViolation`):
    /// nothing is saved.
    case igc(IGCImportViolation)

    /// One line for a person.
    public var description: String {
        switch self {
        case .noSuchRecord(let c, let id): "no \(c.rawValue) record \(id)"
        case .id(let e): "id: \(e)"
        case .blob(let e): "blob: \(e)"
        case .download(let e): "download: \(e)"
        case .store(let e): "local store: \(e)"
        case .schema(let v): "schema: \(v)"
        case .igc(let v): "igc: \(v)"
        }
    }
}

extension SyncEngine {
    // MARK: - What an app does

    /// Makes a local change durable at once: what the pilot did survives a crash before the next sync.
    func commitLocalChange() throws(LocalChangeError) {
        do { try store.commit() } catch { throw .store("\(error)") }
    }

    /// The common fields of a change made now on this device (schema §2): the device clock, id and
    /// platform; `updatedAt` is left to the server.
    func stamp(_ fields: inout [String: FirestoreValue], deleted: Bool = false) {
        let now = clock()
        fields[CommonFields.Field.schema] = .integer(SchemaConstants.schemaVersion)
        fields[CommonFields.Field.clientUpdatedAt] = .timestamp(now)
        fields[CommonFields.Field.updatedBy] = .string(configuration.deviceId)
        fields[CommonFields.Field.platform] = .string(configuration.platform.rawValue)
        fields[CommonFields.Field.deleted] = .boolean(deleted)
        fields[CommonFields.Field.deletedAt] = deleted ? .timestamp(now) : .null
    }

    /// A full document of `collection` from cloud-form `fields`: every field the schema lists, a
    /// missing one as null (nullable) or its default (schema §2; a full write lists every field).
    static func fullDocument(_ collection: SyncCollection, _ fields: [String: FirestoreValue]) -> [String:
        FirestoreValue]
    {
        var out = fields
        for f in SyncSchema.vulture.fields(of: collection.documentType) where out[f.name] == nil && f.isRequired {
            if f.isNullable {
                out[f.name] = .null
            } else if let d = f.defaultValue {
                out[f.name] = d
            }
        }
        return out
    }

    /// Saves a new or changed record of `collection` (cloud-form values: enums as cloud values); a
    /// `.null` clears a field. A new record's id comes from its id rule; `id` names an existing row
    /// or a task's random id. The common fields are the engine's: it stamps them on every change.
    /// - Returns: the document id.
    /// - Throws: ``LocalChangeError``: `.schema` for a value the schema refuses (a wrong type, a
    ///   null where the field is not nullable, an unknown field, a broken limit), before anything
    ///   is saved; `.id` for a new record whose id rule refuses its fields.
    @discardableResult
    public func save(_ collection: SyncCollection, id: String? = nil, changes: [String: FirestoreValue])
        throws(LocalChangeError) -> String
    {
        let saved = try stageSave(collection, id: id, changes: changes)
        try commitLocalChange()
        return saved
    }

    /// ``save(_:id:changes:)`` without the commit: an import commits the row with its object at
    /// once, so a kill never leaves a flight without its IGC file (a re-import would find it "already
    /// here" and the file would be lost).
    func stageSave(_ collection: SyncCollection, id: String?, changes: [String: FirestoreValue])
        throws(LocalChangeError) -> String
    {
        let existing = id.flatMap { store.row(collection, id: $0) }
        if var row = existing, !row.isTombstone {
            for (k, v) in changes { row.fields[k] = v }
            stamp(&row.fields)
            if let v = schemaError(collection, row.fields, at: changes.keys, before: existing?.fields) {
                throw .schema(v)
            }
            // The pilot changed the flight: a task assignment still waiting is dropped (schema §5.5).
            if changes.keys.contains(where: { $0 != FlightDocument.Field.lastOpenedAt }) { row.deferredTaskId = nil }
            store.put(row)
            return row.id
        }
        var fields = Self.fullDocument(collection, changes)
        let newId: String
        if let id {
            newId = id
        } else {
            do throws(DocumentIdError) {
                newId = try DocumentIds.documentId(
                    collection: collection, fields: fields, inputs: DocumentIdInputs(uid: uid)
                ).id
            } catch {
                throw .id(error)
            }
        }
        stamp(&fields)
        if let v = schemaError(collection, fields, at: nil, before: existing?.fields) { throw .schema(v) }
        let previous = store.row(collection, id: newId)
        store.put(
            LocalRow(
                collection: collection, id: newId, fields: fields, base: previous?.base,
                baseUpdateTime: previous?.baseUpdateTime, origin: .local, createdAt: clock(),
                createdSinceAgreement: true))
        return newId
    }

    /// The first schema error of a record about to be saved, as another device would read it once
    /// pushed (the stored form, `updatedAt` a commit time): at a field in `changed`, or anywhere when
    /// `changed` is nil (a new record). Such a document would be held by every other device
    /// (Spec/pins.tsv `malformedDocumentHeld`). A field the change does not touch is not the change's
    /// fault: a pulled document that breaks the schema is held, not saved over. A field the schema
    /// does not know is refused only where the change adds it at the top level (a misspelt name):
    /// readers keep a newer version's fields and settings keys, and so does a change that carries
    /// them on (`before`, the record's fields before the change).
    func schemaError(
        _ collection: SyncCollection, _ fields: [String: FirestoreValue],
        at changed: Dictionary<String, FirestoreValue>.Keys?, before: [String: FirestoreValue]? = nil
    ) -> SchemaViolation? {
        var stored = fields
        if collection.hasCommonFields { stored[CommonFields.Field.updatedAt] = .timestamp(clock()) }
        let violations = Self.schemaValidator.validate(
            stored, documentType: collection.documentType, options: ValidationOptions(form: .stored, strict: true))
        let names = changed.map(Array.init) ?? Array(fields.keys)
        return violations.first { v in
            guard v.severity == .error else { return false }
            if v.rule == SchemaRule.unknownField.rawValue || v.rule == SchemaRule.unknownSettingsKey.rawValue {
                return names.contains { before?[$0] == nil && v.isAt(field: $0, orUnder: false) }
            }
            return changed == nil || names.contains { v.isAt(field: $0) }
        }
    }

    /// Imports an IGC file (schema §2 flights, §4): the flight id is the SHA-256 of the bytes as
    /// imported; the gzipped object is kept on the device and reserved, uploaded and marked by the
    /// next push. Importing a flight that is already here changes nothing; importing one whose row is
    /// a tombstone brings it back (a re-import after the delete, schema §5.4). Without a `summary` in
    /// `fields`, the flight gets one not yet analysed (analysis version 0) with takeoff, landing and
    /// duration from the first and last fix, so that its document has every field a reader needs
    /// (another device holds a flight document without one, Spec/pins.tsv malformedDocumentHeld).
    ///
    /// `fields` say where the flight lives: `inLogbook: true` (the logbook) or a `lastOpenedAt`
    /// (Recents). A flight with neither is a Recents flight without a date, which the recents trim of
    /// every other device tombstones on its first pull (`Spec/sync-rules.tsv` `recentsStranded`).
    /// The bytes are checked as an IGC file (`IGCImportViolation`), then hashed and stored as given.
    /// - Returns: the flight id.
    /// - Throws: ``LocalChangeError``: `.igc` for bytes that are no IGC file, `.schema` for `fields`
    ///   the schema refuses, before anything is saved.
    @discardableResult
    public func importFlight(igc: Data, fields: [String: FirestoreValue] = [:]) throws(LocalChangeError) -> String {
        if let v = IGCImportViolation.first(in: igc) { throw .igc(v) }
        let built: (map: IGCBlob, gzipped: Data)
        do { built = try IGCBlob.build(uid: uid, igcBytes: igc, level: gzipLevel) } catch { throw .blob(error) }
        let id = built.map.sha256
        if let row = store.row(.flights, id: id), !row.isTombstone { return id }
        var record = fields
        record[FlightDocument.Field.igc] = .null
        if record[FlightDocument.Field.importedAt] == nil {
            record[FlightDocument.Field.importedAt] = .timestamp(clock())
        }
        if record[FlightDocument.Field.createdAt] == nil {
            record[FlightDocument.Field.createdAt] = .timestamp(clock())
        }
        if record[FlightDocument.Field.summary] ?? .null == .null {
            let header = IGCHeader(igcBytes: igc)
            var summary = FlightSummary(takeoffAt: header.firstFix, landingAt: header.lastFix)
            if let t = header.firstFix, let l = header.lastFix { summary.duration = max(0, l.seconds - t.seconds) }
            record[FlightDocument.Field.summary] = summary.firestoreValue(form: .stored)
        }
        if let deleted = store.row(.flights, id: id) { keepRankedFields(of: deleted, in: &record) }
        _ = try stageSave(.flights, id: id, changes: record)
        guard var row = store.row(.flights, id: id) else {
            try commitLocalChange()
            return id
        }
        attachBlob(&row, map: built.map.firestoreValue(form: .stored), mapField: FlightDocument.Field.igc)
        store.put(row)
        store.setBlob(built.gzipped, at: built.map.path)
        try commitLocalChange()
        return id
    }

    /// A re-import of a flight deleted here is the same IGC: the analysis and the track preview this
    /// device or the server already has for it never go down (merge-rules.tsv `summary`,
    /// `trackPreview`: the higher rank wins, a tie keeps the re-import's).
    private func keepRankedFields(of deleted: LocalRow, in record: inout [String: FirestoreValue]) {
        let server = deleted.base.flatMap { $0[CommonFields.Field.deleted] == .boolean(true) ? nil : $0 }
        for earlier in [deleted.fields, server].compactMap({ $0 }) {
            if DocumentMergeRun.analysisVersionOrder(
                DocumentMergeRun.value(at: "summary.analysisVersion", in: earlier),
                DocumentMergeRun.value(at: "summary.analysisVersion", in: record)) > 0
            {
                record[FlightDocument.Field.summary] = earlier[FlightDocument.Field.summary]
            }
            if DocumentMergeRun.trackPreviewOrder(
                earlier[FlightDocument.Field.trackPreviewVersion], record[FlightDocument.Field.trackPreviewVersion]) > 0
            {
                record[FlightDocument.Field.trackPreview] = earlier[FlightDocument.Field.trackPreview]
                record[FlightDocument.Field.trackPreviewVersion] = earlier[FlightDocument.Field.trackPreviewVersion]
            }
        }
    }

    /// Imports a map file's content (schema §2 mapFiles): the content hash and the gzipped object;
    /// `fields` give type, source, filename and the rest in cloud form.
    /// - Returns: the document id.
    /// - Throws: ``LocalChangeError``.
    @discardableResult
    public func importMapFile(content: Data, fields: [String: FirestoreValue]) throws(LocalChangeError) -> String {
        let built: (map: ContentBlob, contentHash: String, gzipped: Data)
        do { built = try ContentBlob.build(uid: uid, contentBytes: content, level: gzipLevel) } catch {
            throw .blob(error)
        }
        var record = fields
        record[MapFileDocument.Field.contentHash] = .string(built.contentHash)
        record[MapFileDocument.Field.content] = .null
        let expectedId: String
        do throws(DocumentIdError) {
            expectedId = try DocumentIds.documentId(collection: .mapFiles, fields: record).id
        } catch {
            throw .id(error)
        }
        // The same file imported again is the same document: nothing changes.
        if let row = store.row(.mapFiles, id: expectedId), !row.isTombstone { return expectedId }
        if record[MapFileDocument.Field.importedAt] == nil {
            record[MapFileDocument.Field.importedAt] = .timestamp(clock())
        }
        let id = try stageSave(.mapFiles, id: expectedId, changes: record)
        guard var row = store.row(.mapFiles, id: id) else {
            try commitLocalChange()
            return id
        }
        attachBlob(&row, map: built.map.firestoreValue(form: .stored), mapField: MapFileDocument.Field.content)
        store.put(row)
        store.setBlob(built.gzipped, at: built.map.path)
        try commitLocalChange()
        return id
    }

    /// A file on the device for a new or re-imported row: when the server still holds the record
    /// live with this object (a delete and a re-import before any push), its map is kept — the object
    /// is reserved and counted already; otherwise the map waits to be reserved by the next push.
    func attachBlob(_ row: inout LocalRow, map: FirestoreValue, mapField: String) {
        if let base = row.base, base[CommonFields.Field.deleted] != .boolean(true),
            case .map(let agreed)? = base[mapField],
            agreed[StorageObjectKind.MapField.path] == map.mapValue?[StorageObjectKind.MapField.path]
        {
            row.fields[mapField] = .map(agreed)
            row.pendingBlobMap = nil
        } else {
            row.pendingBlobMap = map
        }
    }

    /// Deletes a record: its row becomes a tombstone (the common fields, `deleted: true` and
    /// `deletedAt` now, schema §5.4), pushed by the next sync.
    /// - Throws: ``LocalChangeError/noSuchRecord(_:id:)``.
    public func delete(_ collection: SyncCollection, id: String) throws(LocalChangeError) {
        guard var row = store.row(collection, id: id), !row.isTombstone else {
            throw .noSuchRecord(collection, id: id)
        }
        var fields: [String: FirestoreValue] = [:]
        stamp(&fields, deleted: true)
        row.fields = fields
        row.pendingBlobMap = nil
        row.deferredTaskId = nil  // a tombstone names no task (schema §5.4)
        store.put(row)
        try commitLocalChange()
    }

    /// The zlib level files are gzipped at (Spec/pins.tsv `gzipWritten`).
    var gzipLevel: Int32 { configuration.mechanisms.gzipLevel }

    /// Whether the device holds the file of `row` (a flight's gzipped IGC, a map file's content),
    /// kept only after its check; nil for a collection without files.
    public func holdsFile(_ row: LocalRow) -> Bool? {
        guard Self.blobKind(row.collection) != nil else { return nil }
        return blobPath(row).flatMap { store.blob($0) } != nil
    }

    /// Opens a flight: `lastOpenedAt` now (schema §5.3 recents), and its IGC file, downloaded when
    /// not on the device and only when the record says `uploaded` (its SHA-256 checked, gunzip
    /// bounded by the import cap).
    /// - Returns: the IGC bytes, or nil when the file is neither here nor uploaded.
    /// - Throws: ``LocalChangeError``; a Cloud Storage failure as ``SyncError`` inside `.download`.
    @discardableResult
    public func openFlight(_ id: String) throws(LocalChangeError) -> Data? {
        guard let row = store.row(.flights, id: id), !row.isTombstone else { throw .noSuchRecord(.flights, id: id) }
        try save(.flights, id: id, changes: [FlightDocument.Field.lastOpenedAt: .timestamp(clock())])
        guard let path = blobPath(row) else { return nil }
        if let gz = store.blob(path) {
            do { return try IGCDownload.verify(gzipped: gz, flightId: id) } catch { throw .blob(error) }
        }
        guard case .map(let igc)? = row.fields[FlightDocument.Field.igc],
            igc[StorageObjectKind.MapField.uploaded] == .boolean(true)
                || !configuration.mechanisms.downloadsOnlyUploaded
        else { return nil }
        let object: StorageObject?
        do { object = try storage.download(path) } catch { throw .download("\(error)") }
        guard let object else { return nil }
        let raw: Data
        if !configuration.mechanisms.checksDownloads {
            raw = (try? Gzip.decompress(object.bytes)) ?? Data()
        } else {
            do { raw = try IGCDownload.verify(gzipped: object.bytes, flightId: id) } catch { throw .blob(error) }
        }
        store.setBlob(object.bytes, at: path)
        try commitLocalChange()
        return raw
    }
}
