import VultureConformance
import VultureSyncSchema

/// The reference encoder, for vector definitions that start from a golden's document.
enum DocumentEncoderAccess {
    static func encode(_ golden: DocumentGoldenDefinition, form: DocumentForm) throws -> [String: FirestoreValue] {
        try DocumentEncoder(schema: .vulture).encode(collection: golden.collection, form: form, fixture: golden.fixture)
            .document
    }
}
