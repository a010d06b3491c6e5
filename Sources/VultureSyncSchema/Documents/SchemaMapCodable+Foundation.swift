import Foundation
import VultureSchemaCore

// Typed documents ↔ the Firebase SDK's dictionaries, one call each way (the Foundation form of
// FirestoreValue+Foundation.swift). A merge write of only the changed fields is
// `FirestoreValue.foundationFields(encoder.changedFields(from: agreed, to: local), sentinel: …)`.

extension SchemaMapCodable {
    /// The fields in Foundation form (`FirestoreValue.foundationObject(sentinel:)`), ready for the
    /// Firebase SDK: `try await ref.setData(flight.foundationFields(form: .write) { $0.fieldValue }, merge: true)`
    /// where the app's `fieldValue` maps a `FirestoreSentinel` to the SDK's `FieldValue`.
    /// - Parameters:
    ///   - form: `.write` for what an encoder sends (sentinels for `updatedAt`, `storageBytes`),
    ///     `.stored` for what a reader holds (Goldens/FORMAT.md).
    ///   - sentinel: maps a write sentinel to the SDK's value.
    public func foundationFields(form: DocumentForm, sentinel: (FirestoreSentinel) -> Any) -> [String: Any] {
        FirestoreValue.foundationFields(firestoreValue(form: form).mapValue ?? [:], sentinel: sentinel)
    }

    /// Reads the map from fields in Foundation form — the Firebase SDK's `snapshot.data()` — with
    /// the generated reader's rules.
    /// - Parameters:
    ///   - foundationFields: the fields (see `FirestoreValue.init(foundationObject:pointer:other:)`).
    ///   - form: `.stored` for what a read returns (the default), `.write` for a write, nil for either.
    ///   - other: the value of an object the Foundation reader does not know: the SDK's `Timestamp`
    ///     (`.timestamp(try FirestoreTimestamp(seconds: t.seconds, microseconds: t.nanoseconds / 1000))`),
    ///     `GeoPoint` and `DocumentReference`.
    /// - Throws: `SchemaInputError` naming the field's pointer: `foundation.type` and the
    ///   Foundation reader's rules, then the schema's (`schema.type`, `schema.missing-field`, …).
    public init(
        foundationFields: [String: Any], form: DocumentForm? = .stored,
        other: (Any) throws -> FirestoreValue? = { _ in nil }
    ) throws {
        let fields = try FirestoreValue.fields(foundationFields: foundationFields, other: other)
        try self.init(firestoreValue: .map(fields), pointer: "", form: form)
    }
}
