import VultureConformance
import VultureReference
import VultureSchemaCore
import VultureSyncSchema

/// The reference encoder, for vector definitions that start from a golden's document.
enum DocumentEncoderAccess {
    static func encode(_ golden: DocumentGoldenDefinition, form: DocumentForm) throws -> [String: FirestoreValue] {
        try DocumentFixture(collection: golden.collection, fixture: golden.fixture).encode(form: form).document
    }
}
