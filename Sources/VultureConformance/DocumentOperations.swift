import Foundation
import VultureSyncSchema

/// The reference encoder: a record in the suite's neutral fixture form → the document an encoder
/// writes (schema §2, §4, §5.1, §5.4; DESIGN.md §3).
///
/// Fixture shape: `{"context": {uid, deviceId, platform, clientUpdatedAt, serverTime, deletedAt?},
/// "record": {field: value}, …id inputs…}`. Record fields use the cloud names; enum fields name
/// their case (`"waypoints"`, `"symmetric"`), which the encoder turns into the cloud value
/// (`"WAYPOINTS"`, `1`). A field the record leaves out is written as null when nullable, as its
/// table default otherwise, and left out when optional (DESIGN.md §3). Per collection:
/// - flights: `"igc": {sha256, sizeBytes, gzBytes, uploaded}` — the id is the sha256 and the
///   `igc` map is built from it (path `users/{uid}/igc/{id}.igc.gz`);
/// - tasks: the id from `record.externalUrl`, else `"taskId"`;
/// - mapFiles: the id from source/type/filename (downloaded) or `contentHash` (USER);
///   `"content": {sizeBytes, gzBytes, uploaded}` builds the content map when the hash is known;
///   an empty contentHash is written as null (schema §5.5);
/// - homebases: the id from `record.name`; recentCompetitions: `"competitionId"`;
/// - settings: `"values": {keyId: {"v": value, "t": ms}}`, every entry's `d` the deviceId;
/// - users (profile): `"storageBytesBefore"` and `"storageBytesDelta"`: the write form moves
///   storageBytes by `{"$increment": delta}`, the stored form holds before + delta.
/// The write form has `updatedAt` as the server-timestamp sentinel; the stored form has
/// `context.serverTime` there. A fixture with `"tombstone": true` encodes the tombstone: a full
/// replace holding only the common fields, `deleted: true` and `deletedAt` (schema §5.4).
public struct DocumentEncoder: Sendable {
    /// The tables the encoder follows (fields, defaults, enums, id rules).
    public let schema: SyncSchema

    /// An encoder for the documents of `schema`.
    public init(schema: SyncSchema) {
        self.schema = schema
    }

    /// A fixture problem: `fixture.*` codes.
    static func fixtureError(_ pointer: String, _ message: String) -> OperationError {
        OperationError(code: "fixture.invalid", message: "\(pointer): \(message)")
    }

    /// The fixture's context (who writes, when).
    public struct Context: Sendable {
        /// The signed-in user's uid: fills `{uid}` in the document path.
        public var uid: String
        /// The writing install's device id: written as `updatedBy` and as every settings entry's `d`.
        public var deviceId: String
        /// The writer's platform cloud value (`"android"`, `"ios"`), written as `platform`.
        public var platform: String
        /// The writing device's clock at the edit, written as `clientUpdatedAt` (schema §5.3).
        public var clientUpdatedAt: FirestoreTimestamp
        /// The server commit time: `updatedAt` in the stored form (the write form has the sentinel).
        public var serverTime: FirestoreTimestamp
        /// A tombstone's time of the delete; `clientUpdatedAt` is used when nil (schema §5.4).
        public var deletedAt: FirestoreTimestamp?

        init(_ m: [String: FirestoreValue]) throws(OperationError) {
            func string(_ k: String) throws(OperationError) -> String {
                guard case .string(let s)? = m[k] else { throw fixtureError("/fixture/context/\(k)", "a string") }
                return s
            }
            func time(_ k: String) throws(OperationError) -> FirestoreTimestamp {
                guard case .timestamp(let t)? = m[k] else { throw fixtureError("/fixture/context/\(k)", "a timestamp") }
                return t
            }
            uid = try string("uid")
            deviceId = try string("deviceId")
            platform = try string("platform")
            clientUpdatedAt = try time("clientUpdatedAt")
            serverTime = try time("serverTime")
            deletedAt = m["deletedAt"] == nil ? nil : try time("deletedAt")
        }
    }

    /// `{path, document}` for a fixture in the given form.
    /// - Throws: `OperationError` (`fixture.invalid`, or an id rule's code) for a fixture that
    ///   cannot be encoded.
    public func encode(collection name: String, form: DocumentForm, fixture: [String: FirestoreValue])
        throws(OperationError)
        -> (path: String, document: [String: FirestoreValue])
    {
        guard let collection = schema.collection(named: name) else {
            throw OperationError(code: "input.shape", message: "unknown collection \(name)")
        }
        guard case .map(let contextMap)? = fixture["context"] else {
            throw Self.fixtureError("/fixture/context", "a map {uid, deviceId, platform, clientUpdatedAt, serverTime}")
        }
        let context = try Context(contextMap)
        let record: [String: FirestoreValue]
        switch fixture["record"] {
        case .map(let r)?: record = r
        case nil: record = [:]
        default: throw Self.fixtureError("/fixture/record", "a map")
        }
        let id = try documentId(collection, fixture: fixture, record: record)
        let path = collection.pathTemplate.replacingOccurrences(of: "{uid}", with: context.uid)
            .replacingOccurrences(of: "{\(Self.idPlaceholder(collection.pathTemplate) ?? "")}", with: id)
        var document: [String: FirestoreValue] = [:]
        if collection.hasCommonFields {
            document = commonFields(context, form: form, deleted: fixture["tombstone"] == .boolean(true))
        }
        if fixture["tombstone"] == .boolean(true) {
            return (path, document)
        }
        var own = try encodeMap(
            record, owner: collection.documentType, pointer: "/fixture/record", skip: Set(document.keys))
        try applySpecialFields(collection, form: form, fixture: fixture, context: context, id: id, into: &own)
        document.merge(own) { common, _ in common }
        return (path, document)
    }

    static func idPlaceholder(_ template: String) -> String? {
        guard let last = template.split(separator: "/").last, last.hasPrefix("{"), last.hasSuffix("}") else {
            return nil
        }
        return String(last.dropFirst().dropLast())
    }

    func commonFields(_ c: Context, form: DocumentForm, deleted: Bool) -> [String: FirestoreValue] {
        [
            "schema": .integer(VultureSyncSchema.documentSchemaVersion),
            "updatedAt": form == .write ? .serverTimestamp : .timestamp(c.serverTime),
            "clientUpdatedAt": .timestamp(c.clientUpdatedAt),
            "updatedBy": .string(c.deviceId),
            "platform": .string(c.platform),
            "deleted": .boolean(deleted),
            "deletedAt": deleted ? .timestamp(c.deletedAt ?? c.clientUpdatedAt) : .null,
        ]
    }

    func documentId(_ c: SchemaCollection, fixture: [String: FirestoreValue], record: [String: FirestoreValue])
        throws(OperationError)
        -> String
    {
        func string(_ m: [String: FirestoreValue], _ k: String, _ p: String) throws(OperationError) -> String {
            guard case .string(let s)? = m[k] else { throw Self.fixtureError(p, "a string") }
            return s
        }
        switch c.name {
        case "users", "settings":
            return "synced"
        case "flights":
            guard case .map(let igc)? = fixture["igc"] else {
                throw Self.fixtureError("/fixture/igc", "{sha256, sizeBytes, gzBytes, uploaded}")
            }
            let sha = try string(igc, "sha256", "/fixture/igc/sha256")
            do throws(DocumentIdError) {
                try DocumentIds.validate(sha256Hex: sha)
            } catch {
                throw error.operationError
            }
            return sha
        case "tasks":
            if case .string(let url)? = record["externalUrl"], !url.isEmpty {
                return DocumentIds.taskId(externalUrl: url)
            }
            return try string(fixture, "taskId", "/fixture/taskId")
        case "homebases":
            return DocumentIds.homebaseId(name: try string(record, "name", "/fixture/record/name"))
        case "recentCompetitions":
            let id = try string(fixture, "competitionId", "/fixture/competitionId")
            do throws(DocumentIdError) {
                return try DocumentIds.recentCompetitionId(competitionId: id)
            } catch {
                throw error.operationError
            }
        case "mapFiles":
            let sourceCase = try string(record, "source", "/fixture/record/source")
            let typeCase = try string(record, "type", "/fixture/record/type")
            guard
                let source = cloudString("MapFileSource", sourceCase).flatMap(
                    DocumentIds.MapFileSource.init(rawValue:)),
                let type = cloudString("MapFileType", typeCase).flatMap(DocumentIds.MapFileType.init(rawValue:))
            else { throw Self.fixtureError("/fixture/record", "unknown map-file source or type") }
            do throws(DocumentIdError) {
                if source == .user {
                    guard case .string(let hash)? = record["contentHash"] else {
                        throw .notLowercaseHexSHA256(value: "")
                    }
                    return try DocumentIds.mapFileId(userImportedType: type, contentHash: hash)
                }
                guard case .string(let filename)? = record["filename"] else { throw .empty }
                return try DocumentIds.mapFileId(source: source, type: type, filename: filename)
            } catch {
                throw error.operationError
            }
        default:
            throw OperationError(code: "input.shape", message: "no id rule for \(c.name)")
        }
    }

    /// The cloud string of an enum case named `caseName`, or nil.
    func cloudString(_ enumName: String, _ caseName: String) -> String? {
        guard
            case .string(let s)? = schema.enumeration(named: enumName)?.cases.first(where: { $0.name == caseName })?
                .cloudValue
        else { return nil }
        return s
    }

    /// Fields the encoder builds rather than copies: blob maps, the content hash rule, storageBytes,
    /// settings entries.
    func applySpecialFields(
        _ c: SchemaCollection, form: DocumentForm, fixture: [String: FirestoreValue], context: Context, id: String,
        into doc: inout [String: FirestoreValue]
    ) throws(OperationError) {
        func blob(_ key: String) throws(OperationError) -> [String: FirestoreValue] {
            guard case .map(let m)? = fixture[key] else { throw Self.fixtureError("/fixture/\(key)", "a map") }
            for k in ["sizeBytes", "gzBytes"] {
                guard case .integer? = m[k] else { throw Self.fixtureError("/fixture/\(key)/\(k)", "an integer") }
            }
            guard case .boolean? = m["uploaded"] else {
                throw Self.fixtureError("/fixture/\(key)/uploaded", "a boolean")
            }
            return m
        }
        switch c.name {
        case "flights":
            let b = try blob("igc")
            doc["igc"] = .map([
                "path": .string("users/\(context.uid)/igc/\(id).igc.gz"), "sizeBytes": b["sizeBytes"]!,
                "gzBytes": b["gzBytes"]!, "sha256": .string(id), "uploaded": b["uploaded"]!,
            ])
        case "mapFiles":
            if case .string(let hash)? = doc["contentHash"], !hash.isEmpty {
                let b = try blob("content")
                doc["content"] = .map([
                    "path": .string("users/\(context.uid)/files/\(hash).gz"), "sizeBytes": b["sizeBytes"]!,
                    "gzBytes": b["gzBytes"]!, "uploaded": b["uploaded"]!,
                ])
            } else {
                // An unknown content is written as null, never "" (schema §5.5).
                doc["contentHash"] = .null
            }
        case "settings":
            guard case .map(let values)? = fixture["values"] else {
                throw Self.fixtureError("/fixture/values", "a map")
            }
            var entries: [String: FirestoreValue] = [:]
            for (key, entry) in values {
                guard case .map(let e) = entry, let v = e["v"], case .integer(let t)? = e["t"] else {
                    throw Self.fixtureError("/fixture/values/\(key)", "{\"v\": value, \"t\": epoch ms}")
                }
                entries[key] = .map(["v": v, "t": .integer(t), "d": .string(context.deviceId)])
            }
            doc["values"] = .map(entries)
        case "users":
            guard case .integer(let before)? = fixture["storageBytesBefore"],
                case .integer(let delta)? = fixture["storageBytesDelta"]
            else { throw Self.fixtureError("/fixture", "storageBytesBefore and storageBytesDelta are integers") }
            doc["storageBytes"] = form == .write ? .increment(.integer(delta)) : .integer(before + delta)
        default:
            break
        }
    }

    /// A record map → its cloud map for `owner`: enum case names → cloud values, absent fields →
    /// null / default / left out. Fields in `skip` (common fields, built fields) are not filled.
    func encodeMap(_ record: [String: FirestoreValue], owner: String, pointer: String, skip: Set<String> = [])
        throws(OperationError) -> [String: FirestoreValue]
    {
        let fields = schema.fields(of: owner)
        let known = Set(fields.map(\.name))
        if let extra = record.keys.sorted().first(where: { !known.contains($0) }) {
            throw Self.fixtureError(JSONPointer.appending(pointer, extra), "\(owner) has no field \(extra)")
        }
        var out: [String: FirestoreValue] = [:]
        for f in fields where !skip.contains(f.name) {
            let p = JSONPointer.appending(pointer, f.name)
            if let v = record[f.name] {
                out[f.name] = try convert(v, type: f.type, pointer: p)
            } else if Self.builtFields.contains("\(owner).\(f.name)") {
                continue
            } else if !f.isRequired {
                continue
            } else if f.isNullable {
                out[f.name] = .null
            } else if let d = f.defaultValue {
                out[f.name] = d
            } else if case .map(let nested) = f.type {
                out[f.name] = .map(try encodeMap([:], owner: nested, pointer: p))
            } else {
                throw Self.fixtureError(p, "\(owner).\(f.name) is required and has no default")
            }
        }
        return out
    }

    /// Fields the encoder builds from other fixture members, never from the record.
    static let builtFields: Set<String> = [
        "FlightDocument.igc", "MapFileDocument.content", "SettingsDocument.values", "ProfileDocument.storageBytes",
    ]

    func convert(_ v: FirestoreValue, type: SchemaFieldType, pointer: String) throws(OperationError) -> FirestoreValue {
        if v == .null { return .null }
        switch type {
        case .enumeration(let name):
            guard case .string(let caseName) = v,
                let c = schema.enumeration(named: name)?.cases.first(where: { $0.name == caseName })
            else {
                throw Self.fixtureError(pointer, "\(CanonicalJSON.compactString(v)) is no case of \(name)")
            }
            return c.cloudValue
        case .map(let owner):
            guard case .map(let m) = v else { throw Self.fixtureError(pointer, "a map") }
            return .map(try encodeMap(m, owner: owner, pointer: pointer))
        case .array(let element):
            guard case .array(let a) = v else { throw Self.fixtureError(pointer, "an array") }
            var out: [FirestoreValue] = []
            for (i, e) in a.enumerated() {
                out.append(try convert(e, type: element, pointer: JSONPointer.appending(pointer, i)))
            }
            return .array(out)
        case .dictionary(let element):
            guard case .map(let m) = v else { throw Self.fixtureError(pointer, "a map") }
            var out: [String: FirestoreValue] = [:]
            for (k, e) in m { out[k] = try convert(e, type: element, pointer: JSONPointer.appending(pointer, k)) }
            return .map(out)
        default:
            return v
        }
    }
}

extension DocumentEncoder {
    /// The merge write of an edit (schema §5.1 "only changed fields"): the common fields plus every
    /// top-level field whose encoded value differs between `agreed` (what the server has, the
    /// syncBase) and `local`; a field the edit cleared is sent as null (DESIGN.md §3). A changed
    /// nested map (summary, igc, content) is sent whole — pinned: Firestore would merge a partial
    /// map too, but a whole map keeps its fields consistent.
    ///
    /// Fixture: the `encode` fixture with `"agreed"` and `"local"` records in place of `"record"`.
    public func mergePayload(collection: String, fixture: [String: FirestoreValue]) throws(OperationError)
        -> (path: String, document: [String: FirestoreValue])
    {
        guard case .map? = fixture["agreed"], case .map? = fixture["local"] else {
            throw Self.fixtureError("/fixture", "a merge fixture has \"agreed\" and \"local\" records")
        }
        var agreedFixture = fixture
        agreedFixture["record"] = fixture["agreed"]
        var localFixture = fixture
        localFixture["record"] = fixture["local"]
        for k in ["agreed", "local"] {
            agreedFixture.removeValue(forKey: k)
            localFixture.removeValue(forKey: k)
        }
        let agreed = try encode(collection: collection, form: .write, fixture: agreedFixture)
        let local = try encode(collection: collection, form: .write, fixture: localFixture)
        guard agreed.path == local.path else {
            throw Self.fixtureError(
                "/fixture", "the edit changes the document id (\(agreed.path) → \(local.path)): not a merge")
        }
        let common = Set(schema.fields(of: SyncSchema.commonFieldsOwner).map(\.name))
        var payload = local.document.filter { common.contains($0.key) }
        for key in Set(agreed.document.keys).union(local.document.keys) where !common.contains(key) {
            let after = local.document[key]
            if after != agreed.document[key] { payload[key] = after ?? .null }
        }
        return (local.path, payload)
    }

    /// A stored document read with its generated type and written back in stored form: unknown
    /// fields, top-level and nested, come back unchanged (schema §2 common fields: "a reader
    /// ignores fields it does not know and never deletes them"). A tombstone is read as its
    /// common fields.
    /// - Throws: `OperationError` with the reader's rule (`schema.type`, `schema.missing-field`, …).
    public func decodeStored(collection: String, document: [String: FirestoreValue]) throws(OperationError) -> [String:
        FirestoreValue]
    {
        guard let type = SyncSchema.documentType(collection: collection) else {
            throw OperationError(code: "input.shape", message: "unknown collection \(collection)")
        }
        do {
            let value: FirestoreValue
            if document["deleted"] == .boolean(true), schema.collection(named: collection)?.hasCommonFields == true {
                value = try CommonFields(firestoreValue: .map(document), pointer: "", form: .stored).firestoreValue(
                    form: .stored)
            } else {
                value = try type.init(firestoreValue: .map(document), pointer: "", form: .stored).firestoreValue(
                    form: .stored)
            }
            return value.mapValue ?? [:]
        } catch let e as SchemaInputError {
            throw OperationError(code: e.rule.rawValue, message: e.description)
        } catch {
            throw OperationError(code: "input.shape", message: "\(error)")
        }
    }
}

/// The document operations of the testee protocol: `encode`, `merge.payload`, `decode`.
enum DocumentOperations {
    static func table(schema: SyncSchema?) -> [String: ReferenceImplementation.Operation] {
        guard let schema else { return [:] }
        let encoder = DocumentEncoder(schema: schema)
        @Sendable func form(_ i: OperationInput) throws(OperationError) -> DocumentForm {
            guard let f = DocumentForm(rawValue: try i.string("form")) else {
                throw OperationError(code: "input.shape", message: "form is write or stored")
            }
            return f
        }
        return [
            "encode": { input throws(OperationError) in
                let i = try OperationInput(input)
                let r = try encoder.encode(
                    collection: try i.string("collection"), form: try form(i), fixture: try i.map("fixture"))
                return .map(["path": .string(r.path), "document": .map(r.document)])
            },
            "merge.payload": { input throws(OperationError) in
                let i = try OperationInput(input)
                let r = try encoder.mergePayload(collection: try i.string("collection"), fixture: try i.map("fixture"))
                return .map(["path": .string(r.path), "document": .map(r.document)])
            },
            "decode": { input throws(OperationError) in
                let i = try OperationInput(input)
                return .map(
                    try encoder.decodeStored(collection: try i.string("collection"), document: try i.map("document")))
            },
        ]
    }
}
