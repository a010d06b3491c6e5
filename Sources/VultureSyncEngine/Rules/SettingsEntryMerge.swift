import VultureSchemaCore
import VultureSyncSchema

/// The settings rule (schema §5.3 settings key, §5.5): per key of `settings/synced.values`, the entry
/// with the larger `t` wins; the same `t` goes to the row's tie (the server), so every device
/// converges. A local value the user never changed carries `t = 0` (`SchemaConstants.untouchedSettingTime`)
/// and so loses to any cloud entry.
public enum SettingsEntryMerge {
    /// The entry time key of a `{v, t, d}` entry (schema §2 settings/synced).
    static let timeKey = SettingsEntry.Field.t

    /// Merges one entry: a side without one takes the other's; else the larger `t`, equal `t` → `tie`
    /// (nil or `.server`: the remote entry). An entry that is not a map, or whose `t` is not an
    /// integer, counts as `t = 0`. Returns one of the two entries unchanged.
    public static func merge(local: FirestoreValue?, remote: FirestoreValue?, tie: MergeTie?) -> FirestoreValue? {
        guard let local else { return remote }
        guard let remote else { return local }
        let l = entryTime(local)
        let r = entryTime(remote)
        if l != r { return l > r ? local : remote }
        return tie == .local ? local : remote
    }

    /// Merges two `values` maps key by key through the document merge of `settings/synced` (the
    /// `values.*` row of `Spec/merge-rules.tsv`); a key on one side only is kept as it is.
    public static func mergeValues(
        local: [String: FirestoreValue], remote: [String: FirestoreValue]
    ) -> [String: FirestoreValue] {
        let field = valuesField
        let merged = DocumentMerge.merge(
            base: nil, local: [field: .map(local)], remote: [field: .map(remote)], collection: .settings)
        return merged.document[field]?.mapValue ?? [:]
    }

    /// The settings document's dictionary field: the first segment of its `largerEntryTime` row.
    static let valuesField: String = {
        let row = MergeRule.all.first { $0.kind == .largerEntryTime }
        return row?.fieldPath?.split(separator: ".").first.map(String.init) ?? ""
    }()

    /// An entry's `t`, or `SchemaConstants.untouchedSettingTime` when it has none that is an integer.
    static func entryTime(_ entry: FirestoreValue) -> Int64 {
        if case .integer(let t)? = entry.mapValue?[timeKey] { return t }
        return SchemaConstants.untouchedSettingTime
    }
}
