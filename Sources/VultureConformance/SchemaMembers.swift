import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// What the schema says about a member an answer has and the golden lacks, so that a hint names a
/// real field as real (`summary.thermalAltitudeGained`, `content`, the iOS key `VultureHomebaseLatitude`)
/// and only a member the schema lacks as unknown.
public enum MemberOrigin: Sendable, Hashable {
    /// A field, settings key or iOS key of the schema: what it is, for the hint.
    case schema(String)
    /// The schema has no such member at this place.
    case notInSchema
}

/// Finds the schema member a JSON pointer of an operation's output names (Spec/fields.tsv,
/// Spec/settings-keys.tsv).
enum SchemaMembers {
    /// The origin of the member at `pointer` in the output of case `c`; nil when the output has no schema
    /// (ids, blobs, warnings).
    static func origin(of pointer: String, in c: ConformanceCase, schema: SyncSchema = .vulture) -> MemberOrigin? {
        var tokens = FirestoreLimits.slashSegments(pointer).dropFirst().map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }[...]
        switch c.op {
        case "encode", "merge.payload", "decode":
            if c.op != "decode" {
                guard tokens.first == "document" else { return nil }
                tokens = tokens.dropFirst()
            }
            guard case .string(let name)? = c.input.mapValue?["collection"],
                let collection = schema.collection(named: name)
            else { return nil }
            return walk(tokens, fields: schema.documentFields(of: collection.documentType), schema: schema)
        case "settings.fromIOS", "settings.merge":
            guard tokens.first == "values", tokens.count >= 2 else { return nil }
            guard let key = schema.settingsKey(tokens[tokens.startIndex + 1]) else { return .notInSchema }
            return .schema("settings key \(key.key) is in the schema, but not in the golden's answer here")
        case "settings.toIOS":
            guard tokens.first == "kvs", tokens.count == 2 else { return nil }
            let iosKey = tokens[tokens.startIndex + 1]
            guard let key = schema.settingsKeys.first(where: { $0.iosKeys.contains(iosKey) }) else {
                return .notInSchema
            }
            return .schema(
                "\(iosKey) is an iOS key of the settings key \(key.key), but the golden does not write it here")
        default:
            return nil
        }
    }

    /// Walks map keys, array indexes and dictionary keys down the fields of a document or map type.
    static func walk(_ tokens: ArraySlice<String>, fields: [SchemaField], schema: SyncSchema) -> MemberOrigin {
        var tokens = tokens
        var current = fields
        while let token = tokens.popFirst() {
            guard let field = current.first(where: { $0.name == token }) else { return .notInSchema }
            var type = field.type
            while let next = tokens.first {
                switch type {
                case .array(let element):
                    tokens = tokens.dropFirst()
                    type = element
                    continue
                case .dictionary(let element):
                    // The settings values are keyed by the settings keys of the schema.
                    if element == .map("SettingsEntry"), schema.settingsKey(next) == nil { return .notInSchema }
                    tokens = tokens.dropFirst()
                    type = element
                    if tokens.isEmpty, element == .map("SettingsEntry") {
                        return .schema("settings key \(next) is in the schema, but not in the golden's document here")
                    }
                    continue
                default: break
                }
                break
            }
            if tokens.isEmpty {
                let kind = [field.isRequired ? "required" : "optional", field.isNullable ? "nullable" : nil]
                    .compactMap { $0 }.joined(separator: ", ")
                return .schema(
                    "\(field.owner).\(field.name) is a field of the schema (\(kind)), but the golden does not have it here"
                )
            }
            switch type {
            case .map(let owner): current = schema.fields(of: owner)
            case .settingValue: return .schema("\(field.owner).\(field.name) holds a settings value of the schema")
            default: return .notInSchema
            }
        }
        return .notInSchema
    }
}
