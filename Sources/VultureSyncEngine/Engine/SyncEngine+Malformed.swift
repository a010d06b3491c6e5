import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

extension SyncEngine {
    /// The validator pulled documents and local changes are checked with: the schema generated from
    /// `Spec/`.
    static let schemaValidator = SchemaValidator(schema: .vulture)

    /// The errors of a pulled document that breaks the schema (schema §2, stored form as `validate`
    /// checks it), as `/pointer: rule-id` strings; empty for a valid document. Warnings (an unknown
    /// field, which readers must accept) do not count.
    func schemaErrors(_ document: FirestoreDocument, collection: SyncCollection) -> [String] {
        Self.schemaValidator.validate(
            document.fields, documentType: collection.documentType, options: ValidationOptions(form: .stored)
        )
        .filter { $0.severity == .error }
        .map { "\($0.pointer.isEmpty ? "/" : $0.pointer): \($0.rule)" }
    }

    /// A pulled or re-read document that breaks the schema is not merged (Spec/pins.tsv
    /// `malformedDocumentHeld`): the row keeps its fields and its agreement, the record is held —
    /// its local changes wait for a valid version — and the problem is reported with its rule ids.
    /// A pull's cursor still moves past it, so it never stops the documents after it. Returns
    /// whether the document was held; a valid one releases a hold.
    func holdIfMalformed(_ document: FirestoreDocument, collection: SyncCollection, movesCursor: Bool) -> Bool {
        let errors =
            configuration.mechanisms.malformedDocuments == .merged ? [] : schemaErrors(document, collection: collection)
        guard !errors.isEmpty else {
            // No hold to release (the common case) costs no key.
            if !store.state.heldRecords.isEmpty {
                let key = Self.heldRecordKey(collection, document.id)
                if store.state.heldRecords[key] != nil { store.state.heldRecords[key] = nil }
            }
            return false
        }
        if configuration.mechanisms.malformedDocuments == .stopThePull { return true }
        pulledIds?[collection, default: []].insert(document.id)
        if store.row(collection, id: document.id) != nil {
            store.state.heldRecords[Self.heldRecordKey(collection, document.id)] = errors
        }
        note(.malformed(collection, id: document.id, errors: errors))
        if movesCursor, case .timestamp(let t)? = document.fields[CommonFields.Field.updatedAt],
            t > (store.state.cursors[collection] ?? .minimum)
        {
            store.state.cursors[collection] = t
        }
        return true
    }

    /// Whether a row waits for a valid version of its server document (``holdIfMalformed``).
    func isHeld(_ row: LocalRow) -> Bool {
        let held = store.state.heldRecords
        return !held.isEmpty && held[Self.heldRecordKey(row.collection, row.id)] != nil
    }

    /// A held record's key in ``EngineState/heldRecords``: `collection/id`.
    static func heldRecordKey(_ collection: SyncCollection, _ id: String) -> String { "\(collection.rawValue)/\(id)" }
}
