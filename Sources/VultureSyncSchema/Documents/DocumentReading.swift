import VultureSchemaCore

extension SyncCollection {
    /// A stored document read with its generated type and written back in stored form: unknown
    /// fields, top-level and nested, come back unchanged (schema §2 common fields: "a reader ignores
    /// fields it does not know and never deletes them"). A tombstone is read as its common fields.
    /// - Throws: `SchemaInputError` with the reader's rule (`value.sentinel-in-stored-form` and the
    ///   other value rules first, then `schema.type`, `schema.missing-field`, `schema.null-unless`, …).
    public func decodeStored(_ document: [String: FirestoreValue]) throws -> [String: FirestoreValue] {
        try FirestoreValue.map(document).validate(form: .stored)
        let value: FirestoreValue
        if document[CommonFields.Field.deleted] == .boolean(true), hasCommonFields {
            value = try CommonFields(firestoreValue: .map(document), pointer: "", form: .stored).firestoreValue(
                form: .stored)
        } else if let type = SyncSchema.documentType(collection: rawValue) {
            value = try type.init(firestoreValue: .map(document), pointer: "", form: .stored).firestoreValue(
                form: .stored)
        } else {
            value = .map(document)
        }
        return value.mapValue ?? [:]
    }
}

extension DocumentEncoder {
    /// The merge write of an edit (schema §5.1 "only changed fields"): the common fields of `local`
    /// plus every other top-level field whose value differs between `agreed` (what the server has,
    /// the sync base) and `local`, both in write form; a field the edit removed is sent as null. A
    /// changed nested map (summary, igc, content) is sent whole.
    public func changedFields(from agreed: [String: FirestoreValue], to local: [String: FirestoreValue]) -> [String:
        FirestoreValue]
    {
        let common = Set(schema.fields(of: SyncSchema.commonFieldsOwner).map(\.name))
        var payload = local.filter { common.contains($0.key) }
        for key in Set(agreed.keys).union(local.keys) where !common.contains(key) {
            let after = local[key]
            if after != agreed[key] { payload[key] = after ?? .null }
        }
        return payload
    }

    /// The merge write of an edit as Firestore's `Write` (schema §5.1; README, "Writes"): the
    /// fields of ``changedFields(from:to:)`` with a mask of their top-level paths, so a changed
    /// nested map (`summary`, `igc`, `content`) is replaced whole — `update()` /
    /// `set(…, mergeFields:)` semantics, never a leaf merge that would leave a removed key behind
    /// (pin mergeNestedMapWhole). A map keyed by ids (`dictionary:` fields: the settings `values`)
    /// is masked per changed key (`values.sport`), so keys this writer does not know survive and an
    /// unchanged dictionary is never sent as an empty map. A field moved by increment
    /// (`storageBytes`) is always sent as its `$increment` (unless the operand is 0), and such a
    /// write requires the document to exist (precondition `exists: true`), so it never creates a
    /// document holding only the counter.
    ///
    /// - Parameters:
    ///   - agreed: the record as last agreed with the server, write form.
    ///   - local: the record as edited, write form.
    ///   - path: the document path (`users/{uid}/flights/{id}`).
    ///   - documentType: the document type (`FlightDocument`) whose field table says which fields
    ///     are dictionaries and which move by increment.
    /// - Returns: the write; its fields never hold `$delete` (a removed dictionary key is a mask
    ///   path without a value).
    /// - Throws: `SchemaInputError` (`write.mask`) when `local` holds a `$delete` beneath a field.
    public func mergeWrite(
        from agreed: [String: FirestoreValue], to local: [String: FirestoreValue], path: String, documentType: String
    ) throws -> FirestoreWrite {
        let declared = schema.documentFields(of: documentType)
        var payload = changedFields(from: agreed, to: local)
        var mask: [FieldPath] = []
        var moved = false
        for f in declared where f.writeAs == .increment {
            guard case .increment(let operand)? = local[f.name] else { continue }
            switch operand {
            case .integer(0), .double(0): payload.removeValue(forKey: f.name)
            default:
                payload[f.name] = local[f.name]
                moved = true
            }
        }
        for f in declared {
            guard case .dictionary = f.type, let after = payload[f.name] else { continue }
            payload.removeValue(forKey: f.name)
            let before = agreed[f.name]?.mapValue ?? [:]
            let now = after.mapValue ?? [:]
            var changed: [String: FirestoreValue] = [:]
            for key in Set(before.keys).union(now.keys) where before[key] != now[key] {
                mask.append(FieldPath(unchecked: [f.name, key]))
                if let v = now[key] { changed[key] = v }
            }
            if !changed.isEmpty { payload[f.name] = .map(changed) }
        }
        mask += payload.keys.map { FieldPath(unchecked: [$0]) }
        return try FirestoreWrite(path: path, fields: payload, mask: mask, precondition: moved ? .exists(true) : nil)
    }
}
