// VultureSyncSchema — the wire format of the Vulture sync schema: the generated document codecs and
// schema tables, deterministic ids, Storage objects (paths, gzip, SHA-256), the settings codec and
// writes; no I/O beyond files. Values and their JSON forms come from VultureSchemaCore, re-exported.
@_exported import VultureSchemaCore

/// The Vulture sync schema: Firestore value model, canonical and REST JSON,
/// generated document codecs, deterministic ids, blobs and settings.
///
/// Source: the sync schema (Spec/ tables; seed "Sync schema: Firestore and Cloud Storage").
public enum VultureSyncSchema {
    /// The document format version every synced record carries in `schema` (schema §2, common fields).
    public static let documentSchemaVersion: Int64 = 1
}
