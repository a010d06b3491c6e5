import Foundation
import VultureSchemaCore

/// Who writes a document and when (schema §2 common fields).
public struct WriterContext: Sendable, Hashable {
    /// The signed-in user's uid: fills `{uid}` in document and object paths.
    public var uid: String
    /// The writing install's device id: `updatedBy`, and every settings entry's `d`.
    public var deviceId: String
    /// The writer's platform cloud value (`"android"`, `"ios"`), written as `platform`.
    public var platform: String
    /// The writing device's clock at the edit, written as `clientUpdatedAt` (schema §5.3).
    public var clientUpdatedAt: FirestoreTimestamp
    /// The server's commit time: `updatedAt` in the stored form (the write form has the sentinel).
    public var serverTime: FirestoreTimestamp
    /// A tombstone's time of the delete; `clientUpdatedAt` when nil (schema §5.4).
    public var deletedAt: FirestoreTimestamp?

    /// A context as given.
    public init(
        uid: String, deviceId: String, platform: String, clientUpdatedAt: FirestoreTimestamp,
        serverTime: FirestoreTimestamp, deletedAt: FirestoreTimestamp? = nil
    ) {
        self.uid = uid
        self.deviceId = deviceId
        self.platform = platform
        self.clientUpdatedAt = clientUpdatedAt
        self.serverTime = serverTime
        self.deletedAt = deletedAt
    }
}

/// The sizes and state of a Storage object as its blob map records them (schema §2 `igc`,
/// `content`): raw and gzipped sizes in bytes, and whether the object is uploaded.
public struct BlobState: Sendable, Hashable {
    /// Size before gzip, bytes.
    public var sizeBytes: Int64
    /// Size of the gzipped object, bytes (what `storageBytes` counts, schema §6).
    public var gzBytes: Int64
    /// Whether the object is in Storage (schema §5.1: reserve, upload, then mark uploaded).
    public var uploaded: Bool

    /// A state as given.
    public init(sizeBytes: Int64, gzBytes: Int64, uploaded: Bool) {
        self.sizeBytes = sizeBytes
        self.gzBytes = gzBytes
        self.uploaded = uploaded
    }
}

/// What a writer builds from other inputs rather than copying from the record (schema §2, §5.1).
public struct DocumentInputs: Sendable, Hashable {
    /// Ids the record does not hold (uid, competition id, a task's random id, IGC bytes).
    public var ids: DocumentIdInputs
    /// A flight's IGC object: its SHA-256 (the flight id) and state; builds `igc`.
    public var igc: (sha256: String, state: BlobState)? {
        get { igcSHA256.flatMap { sha in igcState.map { (sha, $0) } } }
        set {
            igcSHA256 = newValue?.sha256
            igcState = newValue?.state
        }
    }
    private var igcSHA256: String?
    private var igcState: BlobState?
    /// A map file's content object state; builds `content` when the record's `contentHash` is known.
    public var content: BlobState?
    /// Settings entries as `key → (v, t)` (t in epoch milliseconds, device clock); builds `values`
    /// with every entry's `d` the writer's device id.
    public var settingsValues: [String: SettingsValue]?
    /// The profile's `storageBytes` before the write and the change it makes (bytes).
    public var storageBytes: (before: Int64, delta: Int64)? {
        get { storageBytesBefore.flatMap { b in storageBytesDelta.map { (b, $0) } } }
        set {
            storageBytesBefore = newValue?.before
            storageBytesDelta = newValue?.delta
        }
    }
    private var storageBytesBefore: Int64?
    private var storageBytesDelta: Int64?

    /// A settings entry's value and time (schema §2 settings/synced: `{v, t, d}`).
    public struct SettingsValue: Sendable, Hashable {
        /// The value `v`.
        public var value: FirestoreValue
        /// The time `t`, epoch milliseconds of the device clock (0: never changed by the user).
        public var time: Int64

        /// An entry value as given.
        public init(value: FirestoreValue, time: Int64) {
            self.value = value
            self.time = time
        }
    }

    /// No inputs beyond `ids`.
    public init(ids: DocumentIdInputs = DocumentIdInputs()) {
        self.ids = ids
    }
}

/// Why a record cannot be encoded: its JSON pointer (into the record or the inputs) and the problem,
/// or the id rule's error.
public enum DocumentEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The record or an input has the wrong shape at `pointer` (a field the owner lacks, an unknown
    /// enum case name, a required field without a value or default, a missing input).
    case invalid(pointer: String, message: String)
    /// The collection's id rule refused its inputs.
    case id(DocumentIdError)
    /// A Storage object path could not be built.
    case blob(BlobError)

    /// `pointer: message`, or the id or blob error.
    public var description: String {
        switch self {
        case .invalid(let pointer, let message): "\(pointer): \(message)"
        case .id(let e): e.description
        case .blob(let e): e.description
        }
    }
}

/// The reference encoder: a record → the document a writer sends or a reader pulls (schema §2, §4,
/// §5.1, §5.4; the write and stored forms of Goldens/FORMAT.md).
///
/// A record uses the cloud field names; an enum field names its case (`"waypoints"`, `"symmetric"`),
/// which the encoder turns into the cloud value (`"WAYPOINTS"`, `1`). A field the record leaves out
/// is written as null when nullable, as its table default otherwise, and left out when optional (a
/// full write lists every field). Built rather than copied: blob maps (`igc`, `content`, from
/// ``DocumentInputs``), settings entries (`values`), the profile's `storageBytes` (an increment in
/// the write form, before + delta in the stored form). An empty `contentHash` is written as null
/// (schema §5.5). The write form has `updatedAt` as the server-timestamp sentinel.
public struct DocumentEncoder: Sendable {
    /// The tables the encoder follows (fields, defaults, enums).
    public let schema: SyncSchema

    /// An encoder for the documents of `schema`.
    public init(schema: SyncSchema = .vulture) {
        self.schema = schema
    }

    /// The document's path and fields in the given form.
    /// - Throws: ``DocumentEncodingError``.
    public func encode(
        collection: SyncCollection, record: [String: FirestoreValue], context: WriterContext, form: DocumentForm,
        inputs: DocumentInputs = DocumentInputs()
    ) throws(DocumentEncodingError) -> (path: String, document: [String: FirestoreValue]) {
        let common = collection.hasCommonFields ? commonFields(context, form: form, deleted: false) : [:]
        var document = try encodeMap(
            record, owner: collection.documentType, pointer: "/record", skip: Set(common.keys).union(builtFields))
        let path = try documentPath(collection, context: context, fields: document, inputs: inputs)
        try build(collection, context: context, form: form, inputs: inputs, into: &document)
        document.merge(common) { _, common in common }
        return (path, document)
    }

    /// The tombstone of a record of `collection` (schema §5.4): a full replace holding only the common
    /// fields with `deleted: true` and `deletedAt` (the context's, or its `clientUpdatedAt`).
    /// `record` and `inputs` only determine the document id.
    /// - Throws: ``DocumentEncodingError``.
    public func tombstone(
        collection: SyncCollection, record: [String: FirestoreValue], context: WriterContext, form: DocumentForm,
        inputs: DocumentInputs = DocumentInputs()
    ) throws(DocumentEncodingError) -> (path: String, document: [String: FirestoreValue]) {
        // Only the fields the record gives, converted to their cloud values: they name the document.
        let declared = schema.fields(of: collection.documentType)
        var fields: [String: FirestoreValue] = [:]
        for (name, value) in record {
            let p = JSONPointer.appending("/record", name)
            guard let f = declared.first(where: { $0.name == name }) else {
                throw .invalid(pointer: p, message: "\(collection.documentType) has no field \(name)")
            }
            fields[name] = try convert(value, type: f.type, pointer: p)
        }
        let path = try documentPath(collection, context: context, fields: fields, inputs: inputs)
        return (path, commonFields(context, form: form, deleted: true))
    }

    /// The common fields a writer sends (schema §2): the schema version, `updatedAt` (the server
    /// timestamp sentinel in the write form, the commit time in the stored form), the writer's
    /// clock, device and platform, and the tombstone state.
    public func commonFields(_ c: WriterContext, form: DocumentForm, deleted: Bool) -> [String: FirestoreValue] {
        [
            CommonFields.Field.schema: .integer(SchemaConstants.schemaVersion),
            CommonFields.Field.updatedAt: form == .write ? .serverTimestamp : .timestamp(c.serverTime),
            CommonFields.Field.clientUpdatedAt: .timestamp(c.clientUpdatedAt),
            CommonFields.Field.updatedBy: .string(c.deviceId),
            CommonFields.Field.platform: .string(c.platform),
            CommonFields.Field.deleted: .boolean(deleted),
            CommonFields.Field.deletedAt: deleted ? .timestamp(c.deletedAt ?? c.clientUpdatedAt) : .null,
        ]
    }

    /// `users/{uid}/…/{id}` with the id of ``DocumentIds/documentId(collection:fields:inputs:)``.
    func documentPath(
        _ collection: SyncCollection, context: WriterContext, fields: [String: FirestoreValue],
        inputs: DocumentInputs
    ) throws(DocumentEncodingError) -> String {
        var ids = inputs.ids
        ids.uid = ids.uid ?? context.uid
        if let igc = inputs.igc, collection == .flights {
            do throws(DocumentIdError) { try DocumentIds.validate(sha256Hex: igc.sha256) } catch { throw .id(error) }
        }
        var idFields = fields
        if let igc = inputs.igc {
            idFields[FlightDocument.Field.igc] = .map([IGCBlob.Field.sha256: .string(igc.sha256)])
        }
        let id: String
        do throws(DocumentIdError) {
            id = try DocumentIds.documentId(collection: collection, fields: idFields, inputs: ids).id
        } catch {
            throw .id(error)
        }
        var segments = collection.pathTemplate.split(separator: "/").map(String.init)
        segments[1] = context.uid
        if segments.count == 4 { segments[3] = id }
        return segments.joined(separator: "/")
    }

    /// The fields the encoder builds from ``DocumentInputs`` rather than copying from the record:
    /// the blob maps of `Spec/blobs.tsv`, the fields written by increment, and the settings values.
    var builtFields: Set<String> {
        var names = Set(StorageObjectKind.allCases.map(\.mapField))
        for f in schema.fields where f.writeAs == .increment { names.insert(f.name) }
        for f in schema.fields(of: "SettingsDocument") where f.type == .dictionary(.map("SettingsEntry")) {
            names.insert(f.name)
        }
        return names
    }

    func build(
        _ collection: SyncCollection, context: WriterContext, form: DocumentForm, inputs: DocumentInputs,
        into doc: inout [String: FirestoreValue]
    ) throws(DocumentEncodingError) {
        switch collection {
        case .flights:
            guard let igc = inputs.igc else {
                throw .invalid(pointer: "/igc", message: "a flight needs its IGC object")
            }
            let path: String
            do throws(BlobError) { path = try BlobPaths.igcObjectPath(uid: context.uid, flightId: igc.sha256) } catch {
                throw .blob(error)
            }
            doc[FlightDocument.Field.igc] =
                IGCBlob(
                    path: path, sizeBytes: igc.state.sizeBytes, gzBytes: igc.state.gzBytes, sha256: igc.sha256,
                    uploaded: igc.state.uploaded
                ).firestoreValue(form: form)
        case .mapFiles:
            if case .string(let hash)? = doc[MapFileDocument.Field.contentHash], !hash.isEmpty {
                guard let content = inputs.content else {
                    throw .invalid(pointer: "/content", message: "a map file with a content hash needs its object")
                }
                let path: String
                do throws(BlobError) {
                    path = try BlobPaths.contentObjectPath(uid: context.uid, contentHash: hash)
                } catch {
                    throw .blob(error)
                }
                doc[MapFileDocument.Field.content] =
                    ContentBlob(
                        path: path, sizeBytes: content.sizeBytes, gzBytes: content.gzBytes, uploaded: content.uploaded
                    ).firestoreValue(form: form)
            } else {
                // An unknown content is written as null, never "" (schema §5.5); `content`, a required
                // nullable field, is null too (a full write carries every required field).
                doc[MapFileDocument.Field.contentHash] = .null
                doc[MapFileDocument.Field.content] = .null
            }
        case .settings:
            guard let values = inputs.settingsValues else {
                throw .invalid(pointer: "/values", message: "settings need their values")
            }
            doc[SettingsDocument.Field.values] = .map(
                values.mapValues {
                    .map([
                        SettingsEntry.Field.v: $0.value, SettingsEntry.Field.t: .integer($0.time),
                        SettingsEntry.Field.d: .string(context.deviceId),
                    ])
                })
        case .users:
            guard let bytes = inputs.storageBytes else {
                throw .invalid(pointer: "/storageBytes", message: "a profile needs storageBytes before and delta")
            }
            doc[ProfileDocument.Field.storageBytes] =
                form == .write ? .increment(.integer(bytes.delta)) : .integer(bytes.before + bytes.delta)
        case .tasks, .homebases, .recentCompetitions:
            break
        }
    }

    /// A record map → its cloud map for `owner`: enum case names → cloud values, absent fields →
    /// null / default / left out. Fields in `skip` are not filled.
    func encodeMap(_ record: [String: FirestoreValue], owner: String, pointer: String, skip: Set<String> = [])
        throws(DocumentEncodingError) -> [String: FirestoreValue]
    {
        let fields = schema.fields(of: owner)
        let known = Set(fields.map(\.name))
        if let extra = record.keys.sorted().first(where: { !known.contains($0) }) {
            throw .invalid(pointer: JSONPointer.appending(pointer, extra), message: "\(owner) has no field \(extra)")
        }
        var out: [String: FirestoreValue] = [:]
        for f in fields {
            let p = JSONPointer.appending(pointer, f.name)
            if let v = record[f.name] {
                out[f.name] = try convert(v, type: f.type, pointer: p)
            } else if skip.contains(f.name) || !f.isRequired {
                continue
            } else if f.isNullable {
                out[f.name] = .null
            } else if let d = f.defaultValue {
                out[f.name] = d
            } else if case .map(let nested) = f.type {
                out[f.name] = .map(try encodeMap([:], owner: nested, pointer: p))
            } else {
                throw .invalid(pointer: p, message: "\(owner).\(f.name) is required and has no default")
            }
        }
        return out
    }

    func convert(_ v: FirestoreValue, type: SchemaFieldType, pointer: String) throws(DocumentEncodingError)
        -> FirestoreValue
    {
        if v == .null { return .null }
        switch type {
        case .enumeration(let name):
            guard case .string(let caseName) = v,
                let c = schema.enumeration(named: name)?.cases.first(where: { $0.name == caseName })
            else {
                throw .invalid(pointer: pointer, message: "\(CanonicalJSON.compactString(v)) is no case of \(name)")
            }
            return c.cloudValue
        case .map(let owner):
            guard case .map(let m) = v else { throw .invalid(pointer: pointer, message: "a map") }
            return .map(try encodeMap(m, owner: owner, pointer: pointer))
        case .array(let element):
            guard case .array(let a) = v else { throw .invalid(pointer: pointer, message: "an array") }
            var out: [FirestoreValue] = []
            for (i, e) in a.enumerated() {
                out.append(try convert(e, type: element, pointer: JSONPointer.appending(pointer, i)))
            }
            return .array(out)
        case .dictionary(let element):
            guard case .map(let m) = v else { throw .invalid(pointer: pointer, message: "a map") }
            var out: [String: FirestoreValue] = [:]
            for (k, e) in m { out[k] = try convert(e, type: element, pointer: JSONPointer.appending(pointer, k)) }
            return .map(out)
        default:
            return v
        }
    }
}
