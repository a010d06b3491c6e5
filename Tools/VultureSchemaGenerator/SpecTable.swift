/// The tables of `Spec/`: file names and the columns each header must name.
public enum SpecTable: String, CaseIterable, Hashable, Sendable {
    /// `collections.tsv`: collections and document paths.
    case collections
    /// `fields.tsv`: every field.
    case fields
    /// `enums.tsv`: enum cases.
    case enums
    /// `settings-keys.tsv`: the settings keys.
    case settingsKeys
    /// `units.tsv`: unit tables.
    case units
    /// `ids.tsv`: deterministic id rules.
    case ids
    /// `blobs.tsv`: Storage objects.
    case blobs
    /// `merge-rules.tsv`: merge rules.
    case mergeRules
    /// `sync-rules.tsv`: the engine's rules beyond the per-field merge (push, pull, trim, tombstones, duplicates).
    case syncRules
    /// `limits.tsv`: caps.
    case limits
    /// `constants.tsv`: named parameters.
    case constants
    /// `pins.tsv`: pinned choices.
    case pins
    /// `rules.tsv`: rule ids and error codes.
    case rules
    /// `operations.tsv`: the operations of the testee protocol.
    case operations

    /// File name inside `Spec/`, e.g. `settings-keys.tsv`.
    public var fileName: String {
        switch self {
        case .settingsKeys: "settings-keys.tsv"
        case .mergeRules: "merge-rules.tsv"
        case .syncRules: "sync-rules.tsv"
        default: "\(rawValue).tsv"
        }
    }

    /// The columns the header must hold, exactly (in any order).
    public var columns: [String] {
        switch self {
        case .collections:
            ["collection", "path", "document", "idRule", "commonFields", "pushOrder", "meaning", "source"]
        case .fields:
            [
                "owner", "field", "type", "presence", "nullable", "default", "unit", "limit", "writeAs", "android",
                "ios", "since", "meaning", "source",
            ]
        case .enums: ["enum", "case", "cloudValue", "iosValue", "meaning", "source"]
        case .settingsKeys:
            ["key", "type", "nullable", "default", "allowed", "unit", "iosKeys", "iosMapping", "meaning", "source"]
        case .units: ["table", "index", "unit", "symbol", "meaning", "source"]
        case .ids:
            ["record", "variant", "condition", "algorithm", "input", "normalization", "pinned", "meaning", "source"]
        case .blobs:
            [
                "blob", "path", "record", "mapField", "contentType", "contentEncoding", "customMetadata",
                "maxObjectBytes", "maxRawBytes", "meaning", "source",
            ]
        case .mergeRules: ["document", "field", "rule", "tie", "meaning", "source"]
        case .syncRules: ["area", "rule", "kind", "subject", "value", "meaning", "source"]
        case .limits: ["name", "value", "unit", "appliesTo", "meaning", "source"]
        case .constants: ["name", "value", "unit", "meaning", "source"]
        case .pins: ["pin", "subject", "choice", "reason", "source", "kind"]
        case .rules: ["id", "swift", "meaning", "section", "example", "source"]
        case .operations: ["op", "area", "section", "input", "output", "errors", "meaning", "source"]
        }
    }
}
