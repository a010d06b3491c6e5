import VultureConformance
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// The engine-rule operations of the testee protocol (schema §4 risk R4, §5.3–§5.5), answered by
/// VultureSyncEngine; inputs and outputs are canonical typed JSON (Goldens/protocol/README.md):
///
/// - `merge.document`: `{collection, base: document | null, local, remote, tasksOnDevice?: [id],
///   deferredTaskId?: id | null, localCreatedAt?: timestamp | null}` → `{document, deferredTaskId,
///   revived}`; documents in the stored form.
/// - `recents.trim`: `{rows: [{id, lastOpenedAt: timestamp | null, inLogbook, origin: "server" | "local"}]}`
///   → `{changes: [{id, action: "clearLastOpenedAt" | "tombstone", reason: "cap" | "stranded"}]}`.
/// - `tombstones.purge`: `{now, tombstones: [{name, deletedAt: timestamp | null}]}` → `{cutoff, batches: [{names: [name]}]}`
///   (a batch is a map: Firestore values hold no array directly inside an array).
/// - `tombstones.delete`: `{collection, document, otherLiveDocuments?: [document], context: {deviceId,
///   platform, clientUpdatedAt, deletedAt?}}` → `{tombstone, deleteObjects: [path], storageBytesDelta}`;
///   the tombstone in the write form.
/// - `duplicates.r4`: `{flights: [{id, document}], tasksOnDevice?: [id]}` → `{groups: [{keep,
///   tombstone: [id], document, deferredTaskId}]}`.
///
/// Errors: `input.shape` for a member missing or of the wrong kind (an unknown collection, origin,
/// a repeated row id); a document that is not in the stored form is rejected with the value rule
/// (`value.sentinel-in-stored-form`, …).
enum SyncRuleOperations {
    static func shape(_ message: String) -> OperationError { OperationError(code: "input.shape", message: message) }

    static func collection(_ i: OperationInput) throws(OperationError) -> SyncCollection {
        let name = try i.string("collection")
        guard let c = SyncCollection(rawValue: name) else { throw shape("unknown collection \(name)") }
        return c
    }

    /// A stored-form document: a map with no sentinel and within Firestore's value limits.
    static func document(_ value: FirestoreValue?, _ name: String) throws(OperationError) -> [String: FirestoreValue] {
        guard case .map(let m)? = value else { throw shape("input.\(name) must be a map (a stored document)") }
        do {
            try FirestoreValue.map(m).validate(form: .stored, pointer: "/" + name)
        } catch let e as SchemaInputError {
            throw OperationError(code: e.rule.rawValue, message: e.description)
        } catch {
            throw shape("\(error)")
        }
        return m
    }

    static func array(_ i: OperationInput, _ key: String, optional: Bool = false) throws(OperationError)
        -> [FirestoreValue]
    {
        switch i.fields[key] {
        case .array(let a)?: return a
        case nil where optional, .null? where optional: return []
        default: throw shape("input.\(key) must be an array")
        }
    }

    static func strings(_ i: OperationInput, _ key: String) throws(OperationError) -> Set<String> {
        var out = Set<String>()
        for v in try array(i, key, optional: true) {
            guard case .string(let s) = v else { throw shape("input.\(key) holds strings") }
            out.insert(s)
        }
        return out
    }

    static func optionalTimestamp(_ value: FirestoreValue?, _ name: String) throws(OperationError)
        -> FirestoreTimestamp?
    {
        switch value {
        case nil, .null?: return nil
        case .timestamp(let t)?: return t
        default: throw shape("\(name) must be a timestamp or null")
        }
    }

    static func map(_ value: FirestoreValue, _ name: String) throws(OperationError) -> OperationInput {
        guard case .map = value else { throw shape("\(name) must be a map") }
        return try OperationInput(value)
    }

    static func optionalString(_ s: String?) -> FirestoreValue { s.map { .string($0) } ?? .null }

    static let table: [String: ReferenceImplementation.Operation] = [
        "merge.document": { input throws(OperationError) in
            let i = try OperationInput(input)
            let c = try collection(i)
            let base: [String: FirestoreValue]? =
                i.fields["base"] == nil || i.fields["base"] == .null
                ? nil : try document(i.fields["base"], "base")
            let context = MergeContext(
                tasksOnDevice: try strings(i, "tasksOnDevice"), deferredTaskId: try i.optionalString("deferredTaskId"),
                localCreatedAt: try optionalTimestamp(i.fields["localCreatedAt"], "input.localCreatedAt"))
            let r = DocumentMerge.merge(
                base: base, local: try document(i.fields["local"], "local"),
                remote: try document(i.fields["remote"], "remote"), collection: c, context: context)
            return .map([
                "document": .map(r.document), "deferredTaskId": optionalString(r.deferredTaskId),
                "revived": .boolean(r.revived),
            ])
        },
        "recents.trim": { input throws(OperationError) in
            var rows: [RecentsRow] = []
            var ids = Set<String>()
            for (n, value) in try array(try OperationInput(input), "rows").enumerated() {
                let row = try map(value, "input.rows[\(n)]")
                let id = try row.string("id")
                guard ids.insert(id).inserted else { throw shape("input.rows: id \(id) appears twice") }
                guard case .boolean(let inLogbook)? = row.fields["inLogbook"] else {
                    throw shape("input.rows[\(n)].inLogbook must be a boolean")
                }
                guard let origin = RowOrigin(rawValue: try row.string("origin")) else {
                    throw shape("input.rows[\(n)].origin is server or local")
                }
                rows.append(
                    RecentsRow(
                        id: id,
                        lastOpenedAt: try optionalTimestamp(
                            row.fields["lastOpenedAt"], "input.rows[\(n)].lastOpenedAt"),
                        inLogbook: inLogbook, origin: origin))
            }
            return .map([
                "changes": .array(
                    RecentsTrim.changes(rows).map {
                        .map([
                            "id": .string($0.id), "action": .string($0.action.rawValue),
                            "reason": .string($0.reason.rawValue),
                        ])
                    })
            ])
        },
        "tombstones.purge": { input throws(OperationError) in
            let i = try OperationInput(input)
            guard case .timestamp(let now)? = i.fields["now"] else { throw shape("input.now must be a timestamp") }
            var candidates: [PurgeCandidate] = []
            for (n, value) in try array(i, "tombstones").enumerated() {
                let t = try map(value, "input.tombstones[\(n)]")
                candidates.append(
                    PurgeCandidate(
                        name: try t.string("name"),
                        deletedAt: try optionalTimestamp(t.fields["deletedAt"], "input.tombstones[\(n)].deletedAt")))
            }
            return .map([
                "cutoff": TombstoneRules.purgeCutoff(now: now).map { .timestamp($0) } ?? .null,
                "batches": .array(
                    TombstoneRules.purgeBatches(candidates, now: now).map {
                        .map(["names": .array($0.map { .string($0) })])
                    }),
            ])
        },
        "tombstones.delete": { input throws(OperationError) in
            let i = try OperationInput(input)
            let c = try collection(i)
            let doc = try document(i.fields["document"], "document")
            var others: [[String: FirestoreValue]] = []
            for (n, value) in try array(i, "otherLiveDocuments", optional: true).enumerated() {
                others.append(try document(value, "otherLiveDocuments/\(n)"))
            }
            guard let contextValue = i.fields["context"] else { throw shape("input.context must be a map") }
            let ctx = try map(contextValue, "input.context")
            guard case .timestamp(let clock)? = ctx.fields["clientUpdatedAt"] else {
                throw shape("input.context.clientUpdatedAt must be a timestamp")
            }
            let writer = WriterContext(
                uid: "", deviceId: try ctx.string("deviceId"), platform: try ctx.string("platform"),
                clientUpdatedAt: clock, serverTime: clock,
                deletedAt: try optionalTimestamp(ctx.fields["deletedAt"], "input.context.deletedAt"))
            let released = TombstoneRules.releasedObjects(collection: c, document: doc, otherLiveDocuments: others)
            return .map([
                "tombstone": .map(TombstoneRules.tombstone(context: writer, form: .write)),
                "deleteObjects": .array(released.objectPaths.map { .string($0) }),
                "storageBytesDelta": .integer(released.storageBytesDelta),
            ])
        },
        "duplicates.r4": { input throws(OperationError) in
            let i = try OperationInput(input)
            var flights: [StoredDocument] = []
            for (n, value) in try array(i, "flights").enumerated() {
                let f = try map(value, "input.flights[\(n)]")
                flights.append(
                    StoredDocument(
                        id: try f.string("id"), fields: try document(f.fields["document"], "flights/\(n)/document")))
            }
            let groups = DuplicateFlights.groups(
                flights, context: MergeContext(tasksOnDevice: try strings(i, "tasksOnDevice")))
            return .map([
                "groups": .array(
                    groups.map { g in
                        .map([
                            "keep": .string(g.keep), "tombstone": .array(g.tombstone.map { .string($0) }),
                            "document": .map(g.document), "deferredTaskId": optionalString(g.deferredTaskId),
                        ])
                    })
            ])
        },
    ]
}
