// Temporary until the generated tables land (removed in the merge that adds Generated/SchemaTables.swift).
extension SyncSchema {
    public static let vulture = SyncSchema(
        collections: [], fields: [], enums: [], settingsKeys: [], unitTables: [], mergeRules: [], constants: [])
}
