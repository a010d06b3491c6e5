import Foundation
import VultureConformance
import VultureSchemaCore
import VultureSyncSchema

/// The suite's neutral fixture form, read into the schema module's `DocumentEncoder` inputs: the
/// conformance module only parses fixtures and judges; the format rules live in VultureSyncSchema.
///
/// Fixture shape: `{"context": {uid, deviceId, platform, clientUpdatedAt, serverTime, deletedAt?},
/// "record": {field: value}, …inputs…}`. Record fields use the cloud names; enum fields name their
/// case (`"waypoints"`, `"symmetric"`). Inputs per collection:
/// - flights: `"igc": {sha256, sizeBytes, gzBytes, uploaded}` (the id is the sha256);
/// - tasks: the id from `record.externalUrl`, else `"taskId"`;
/// - mapFiles: `"content": {sizeBytes, gzBytes, uploaded}` when the content hash is known; `"fileId"`, the
///   id the writer already holds, in place of the pinned id rule;
/// - recentCompetitions: `"competitionId"`;
/// - settings: `"values": {keyId: {"v": value, "t": ms}}`;
/// - users (profile): `"storageBytesBefore"` and `"storageBytesDelta"`.
/// `"tombstone": true` encodes the tombstone (schema §5.4).
public struct DocumentFixture: Sendable {
    /// The fixture's collection.
    public let collection: SyncCollection
    /// Who writes and when (`context`).
    public let context: WriterContext
    /// The record in the neutral form (cloud field names, enum case names).
    public let record: [String: FirestoreValue]
    /// What the encoder builds from the other fixture members.
    public let inputs: DocumentInputs
    /// Whether the fixture asks for the tombstone.
    public let isTombstone: Bool

    /// A fixture problem: `fixture.invalid` with the pointer into the case input.
    static func fixtureError(_ pointer: String, _ message: String) -> OperationError {
        OperationError(.fixtureInvalid, message: "\(pointer): \(message)")
    }

    /// Reads a fixture of the collection `name`.
    /// - Throws: `OperationError`: `input.shape` for an unknown collection, `fixture.invalid` naming
    ///   the member, or an id rule's code.
    public init(collection name: String, fixture: [String: FirestoreValue]) throws(OperationError) {
        guard let collection = SyncCollection(rawValue: name) else {
            throw OperationError(.inputShape, message: "unknown collection \(name)")
        }
        self.collection = collection
        guard case .map(let m)? = fixture["context"] else {
            throw Self.fixtureError("/fixture/context", "a map {uid, deviceId, platform, clientUpdatedAt, serverTime}")
        }
        func string(_ k: String) throws(OperationError) -> String {
            guard case .string(let s)? = m[k] else { throw Self.fixtureError("/fixture/context/\(k)", "a string") }
            return s
        }
        func time(_ k: String) throws(OperationError) -> FirestoreTimestamp {
            guard case .timestamp(let t)? = m[k] else {
                throw Self.fixtureError("/fixture/context/\(k)", "a timestamp")
            }
            return t
        }
        context = WriterContext(
            uid: try string("uid"), deviceId: try string("deviceId"), platform: try string("platform"),
            clientUpdatedAt: try time("clientUpdatedAt"), serverTime: try time("serverTime"),
            deletedAt: m["deletedAt"] == nil ? nil : try time("deletedAt"))
        switch fixture["record"] {
        case .map(let r)?: record = r
        case nil: record = [:]
        default: throw Self.fixtureError("/fixture/record", "a map")
        }
        isTombstone = fixture["tombstone"] == .boolean(true)
        inputs = try Self.inputs(collection, fixture: fixture, tombstone: isTombstone)
    }

    static func inputs(_ c: SyncCollection, fixture: [String: FirestoreValue], tombstone: Bool)
        throws(OperationError) -> DocumentInputs
    {
        func string(_ k: String) throws(OperationError) -> String {
            guard case .string(let s)? = fixture[k] else { throw fixtureError("/fixture/\(k)", "a string") }
            return s
        }
        func blob(_ key: String) throws(OperationError) -> BlobState {
            guard case .map(let m)? = fixture[key] else { throw fixtureError("/fixture/\(key)", "a map") }
            guard case .integer(let size)? = m["sizeBytes"] else {
                throw fixtureError("/fixture/\(key)/sizeBytes", "an integer")
            }
            guard case .integer(let gz)? = m["gzBytes"] else {
                throw fixtureError("/fixture/\(key)/gzBytes", "an integer")
            }
            guard case .boolean(let uploaded)? = m["uploaded"] else {
                throw fixtureError("/fixture/\(key)/uploaded", "a boolean")
            }
            return BlobState(sizeBytes: size, gzBytes: gz, uploaded: uploaded)
        }
        var inputs = DocumentInputs()
        switch c {
        case .flights:
            guard case .map(let igc)? = fixture["igc"] else {
                throw fixtureError("/fixture/igc", "{sha256, sizeBytes, gzBytes, uploaded}")
            }
            guard case .string(let sha)? = igc["sha256"] else { throw fixtureError("/fixture/igc/sha256", "a string") }
            do throws(DocumentIdError) { try DocumentIds.validate(sha256Hex: sha) } catch {
                throw error.operationError
            }
            // A tombstone only needs the id; a live flight needs the object's sizes and state.
            inputs.igc = (sha, tombstone ? BlobState(sizeBytes: 0, gzBytes: 0, uploaded: false) : try blob("igc"))
        case .tasks:
            if case .string(let id)? = fixture["taskId"] { inputs.ids.randomTaskId = id }
        case .recentCompetitions:
            inputs.ids.competitionId = try string("competitionId")
        case .mapFiles:
            if fixture["content"] != nil, !tombstone { inputs.content = try blob("content") }
            if fixture["fileId"] != nil { inputs.ids.mapFileId = try string("fileId") }
        case .settings:
            guard !tombstone else { break }
            guard case .map(let values)? = fixture["values"] else { throw fixtureError("/fixture/values", "a map") }
            var entries: [String: DocumentInputs.SettingsValue] = [:]
            for (key, entry) in values {
                guard case .map(let e) = entry, let v = e["v"], case .integer(let t)? = e["t"] else {
                    throw fixtureError("/fixture/values/\(key)", "{\"v\": value, \"t\": epoch ms}")
                }
                entries[key] = DocumentInputs.SettingsValue(value: v, time: t)
            }
            inputs.settingsValues = entries
        case .users:
            guard case .integer(let before)? = fixture["storageBytesBefore"],
                case .integer(let delta)? = fixture["storageBytesDelta"]
            else { throw fixtureError("/fixture", "storageBytesBefore and storageBytesDelta are integers") }
            inputs.storageBytes = (before, delta)
        case .homebases:
            break
        }
        return inputs
    }

    /// `{path, document}` in the given form, by the schema module's encoder.
    /// - Throws: `OperationError` (`fixture.invalid`, an id or blob rule's code).
    public func encode(_ encoder: DocumentEncoder = DocumentEncoder(), form: DocumentForm) throws(OperationError) -> (
        path: String, document: [String: FirestoreValue]
    ) {
        do throws(DocumentEncodingError) {
            if isTombstone {
                return try encoder.tombstone(
                    collection: collection, record: record, context: context, form: form, inputs: inputs)
            }
            return try encoder.encode(
                collection: collection, record: record, context: context, form: form, inputs: inputs)
        } catch {
            switch error {
            case .invalid(let pointer, let message): throw Self.fixtureError("/fixture" + pointer, message)
            case .id(let e): throw e.operationError
            case .blob(let e): throw e.operationError
            }
        }
    }

    /// The merge write of an edit: the fixture with `"agreed"` and `"local"` records in place of
    /// `"record"`, both encoded in write form; the changed fields with a mask of their paths
    /// (schema §5.1, ``DocumentEncoder/mergeWrite(from:to:path:documentType:)``).
    static func mergePayload(_ encoder: DocumentEncoder, collection: String, fixture: [String: FirestoreValue])
        throws(OperationError) -> (path: String, write: FirestoreWrite)
    {
        guard case .map? = fixture["agreed"], case .map? = fixture["local"] else {
            throw fixtureError("/fixture", "a merge fixture has \"agreed\" and \"local\" records")
        }
        var agreedFixture = fixture
        agreedFixture["record"] = fixture["agreed"]
        var localFixture = fixture
        localFixture["record"] = fixture["local"]
        for k in ["agreed", "local"] {
            agreedFixture.removeValue(forKey: k)
            localFixture.removeValue(forKey: k)
        }
        let agreed = try DocumentFixture(collection: collection, fixture: agreedFixture).encode(encoder, form: .write)
        let local = try DocumentFixture(collection: collection, fixture: localFixture).encode(encoder, form: .write)
        guard agreed.path == local.path else {
            throw fixtureError(
                "/fixture", "the edit changes the document id (\(agreed.path) → \(local.path)): not a merge")
        }
        do {
            let write = try encoder.mergeWrite(
                from: agreed.document, to: local.document, path: local.path,
                documentType: SyncCollection(rawValue: collection)?.documentType ?? "")
            return (local.path, write)
        } catch {
            throw fixtureError("/fixture/local", "\(error)")
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
                throw OperationError(.inputShape, message: "form is write or stored")
            }
            return f
        }
        return [
            "encode": { input throws(OperationError) in
                let i = try OperationInput(input)
                let fixture = try DocumentFixture(collection: try i.string("collection"), fixture: try i.map("fixture"))
                let r = try fixture.encode(encoder, form: try form(i))
                return .map(["path": .string(r.path), "document": .map(r.document)])
            },
            "merge.payload": { input throws(OperationError) in
                let i = try OperationInput(input)
                let r = try DocumentFixture.mergePayload(
                    encoder, collection: try i.string("collection"), fixture: try i.map("fixture"))
                return .map(["path": .string(r.path), "write": WriteEffect.value(of: r.write)])
            },
            "decode": { input throws(OperationError) in
                let i = try OperationInput(input)
                let name = try i.string("collection")
                guard let collection = SyncCollection(rawValue: name) else {
                    throw OperationError(.inputShape, message: "unknown collection \(name)")
                }
                do {
                    return .map(try collection.decodeStored(try i.map("document")))
                } catch let e as SchemaInputError {
                    throw OperationError(code: e.rule.rawValue, message: e.description)
                } catch {
                    throw OperationError(.inputShape, message: "\(error)")
                }
            },
        ]
    }
}
