import VultureConformance
import VultureSchemaCore
import VultureSyncSchema

extension ReferenceImplementation {
    /// Operation tables beyond ids, blobs and validation: documents (encode, merge payloads,
    /// tombstones, decoding), settings, and the engine's rules (merge, trim, tombstones, duplicates).
    /// Each table lives in its own file.
    static func extraTables(schema: SyncSchema?) -> [[String: Operation]] {
        [DocumentOperations.table(schema: schema), SettingsOperations.table(schema: schema), SyncRuleOperations.table]
    }
}
