extension SyncCollection {
    /// A stored document read with its generated type and written back in stored form: unknown
    /// fields, top-level and nested, come back unchanged (schema §2 common fields: "a reader ignores
    /// fields it does not know and never deletes them"). A tombstone is read as its common fields.
    /// - Throws: ``SchemaInputError`` with the reader's rule (`schema.type`, `schema.missing-field`, …).
    public func decodeStored(_ document: [String: FirestoreValue]) throws -> [String: FirestoreValue] {
        let value: FirestoreValue
        if document["deleted"] == .boolean(true), hasCommonFields {
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
}
