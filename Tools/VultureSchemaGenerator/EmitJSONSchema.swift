import Foundation
import VultureSchemaCore

/// Emits one JSON Schema (draft 2020-12) per collection and form:
/// `Goldens/jsonschema/<collection>.<write|stored>.schema.json`.
///
/// Shapes follow the canonical typed JSON (Goldens/FORMAT.md). A double accepts any JSON number: JSON
/// Schema counts `5.0` as an integer, so it cannot keep `5.0` apart from `5`; the canonical JSON
/// reader does. Unknown fields are allowed (a reader keeps a newer version's fields).
/// Required keys: in the write form (a full write) every `required` field; in the stored form the
/// fields a reader cannot do without (non-nullable, no default), as the generated decoders. A
/// record's own fields are required of a live document only: a tombstone (`deleted` true) keeps only
/// the common fields, with `deletedAt` set (schema §5.4).
struct JSONSchemaEmitter {
    let spec: SchemaSpec

    static let directory = "Goldens/jsonschema"
    static let sources = ["collections.tsv", "fields.tsv", "enums.tsv", "settings-keys.tsv", "units.tsv"]

    func files() -> [GeneratedFile] {
        var files: [GeneratedFile] = []
        for collection in spec.collections {
            for form in WriteFormKind.allCases {
                let schema = document(collection, form: form)
                files.append(
                    GeneratedFile(
                        relativePath: "\(Self.directory)/\(collection.name).\(form.rawValue).schema.json",
                        contents: CanonicalJSONWriter.string(schema)))
            }
        }
        return files
    }

    static let timestampPattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{3}|\\.[0-9]{6})?Z$"
    static let base64Pattern = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
    static let datePattern = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"

    private static func wrapper(_ key: String, _ payload: JSONNode) -> JSONNode {
        .object([
            ("type", .string("object")), ("properties", .object([(key, payload)])),
            ("required", .array([.string(key)])), ("additionalProperties", .bool(false)),
        ])
    }

    /// The shared definitions of the typed wrappers.
    private var commonDefs: [(String, JSONNode)] {
        [
            (
                "double",
                .object([
                    (
                        "$comment",
                        .string(
                            "A double: any JSON number (JSON Schema cannot tell 5.0 from 5; the canonical reader can), "
                                + "or the $double wrapper for NaN, Infinity, -Infinity and -0.")
                    ),
                    (
                        "anyOf",
                        .array([
                            .object([("type", .string("number"))]),
                            Self.wrapper(
                                "$double",
                                .object([("enum", .array(["NaN", "Infinity", "-Infinity", "-0"].map { .string($0) }))])),
                        ])
                    ),
                ])
            ),
            (
                "timestamp",
                Self.wrapper(
                    "$timestamp", .object([("type", .string("string")), ("pattern", .string(Self.timestampPattern))]))
            ),
            (
                "bytes",
                Self.wrapper(
                    "$bytes", .object([("type", .string("string")), ("pattern", .string(Self.base64Pattern))]))
            ),
            ("serverTimestamp", Self.wrapper("$serverTimestamp", .object([("const", .bool(true))]))),
        ]
    }

    private func document(_ collection: CollectionSpec, form: WriteFormKind) -> JSONNode {
        var defs = commonDefs
        var seen: Set<String> = []
        var pending = [collection.documentType]
        var root: JSONNode = .null
        while let owner = pending.first {
            pending.removeFirst()
            guard seen.insert(owner).inserted else { continue }
            let object = objectSchema(owner, form: form)
            if owner == collection.documentType {
                root = object
            } else {
                defs.append((owner, object))
            }
            for field in spec.allFields(of: owner) {
                for reference in field.type.references {
                    if case .map(let nested) = reference { pending.append(nested) }
                }
            }
        }
        // The settings values typed per key.
        for key in spec.settingsKeys {
            for reference in key.type.references {
                if case .map(let nested) = reference, seen.insert(nested).inserted {
                    defs.append((nested, objectSchema(nested, form: form)))
                }
            }
        }
        let comment = SchemaGenerator.doNotEdit(Self.sources)
        var members: [(String, JSONNode)] = [
            ("$comment", .string(comment)),
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("$id", .string("\(collection.name).\(form.rawValue).schema.json")),
            (
                "title",
                .string(
                    "\(collection.documentType) (\(collection.pathTemplate)), \(form.rawValue) form")
            ),
            ("description", .string(collection.meaning)),
        ]
        members += root.schemaMembers
        members.append(("$defs", .object(defs)))
        return .object(members)
    }

    private func objectSchema(_ owner: String, form: WriteFormKind) -> JSONNode {
        var properties: [(String, JSONNode)] = []
        var required: [JSONNode] = []
        // A record's own required fields are required of a live document only: a tombstone has none.
        let tombstone = tombstoneShape(owner)
        var liveRequired: [JSONNode] = []
        for field in spec.allFields(of: owner) {
            properties.append((field.name, fieldSchema(field, form: form)))
            let isRequired: Bool
            switch form {
            case .write: isRequired = field.presence == .required
            case .stored:
                isRequired =
                    field.writeAs == .serverTimestamp
                    || (!field.isNullable && field.presence == .required && field.defaultValue == nil)
            }
            guard isRequired else { continue }
            if let tombstone, !tombstone.keeps.contains(field.name) {
                liveRequired.append(.string(field.name))
            } else {
                required.append(.string(field.name))
            }
        }
        if owner == "SettingsDocument" {
            properties = properties.map { name, schema in
                name == "values" ? (name, settingsValues()) : (name, schema)
            }
        }
        var members: [(String, JSONNode)] = [
            ("type", .string("object")), ("properties", .object(properties)), ("required", .array(required)),
            ("additionalProperties", .bool(true)),
        ]
        // nullUnless=FLAG: unless FLAG is true, the field is null or absent (only a tombstone has deletedAt).
        var conditions: [JSONNode] = []
        let nullOnly = JSONNode.object([("type", .string("null"))])
        for field in spec.allFields(of: owner) {
            for case .nullUnless(let flag) in field.limits {
                conditions.append(
                    .object([
                        (
                            "if",
                            .object([
                                ("properties", .object([(flag, .object([("const", .bool(true))]))])),
                                ("required", .array([.string(flag)])),
                            ])
                        ),
                        ("else", .object([("properties", .object([(field.name, nullOnly)]))])),
                    ]))
            }
        }
        if let tombstone {
            // Schema §5.4: a document with the flag true is a tombstone, which keeps only the common
            // fields and has its time (`deletedAt`); any other document has the record's fields.
            conditions.append(
                .object([
                    (
                        "if",
                        .object([
                            ("properties", .object([(tombstone.flag, .object([("const", .bool(true))]))])),
                            ("required", .array([.string(tombstone.flag)])),
                        ])
                    ),
                    (
                        "then",
                        .object([
                            ("propertyNames", .object([("enum", .array(tombstone.keeps.map { .string($0) }))])),
                            ("properties", .object([(tombstone.time, .object([("not", nullOnly)]))])),
                            ("required", .array([.string(tombstone.time)])),
                        ])
                    ),
                    ("else", .object([("required", .array(liveRequired))])),
                ]))
        }
        if !conditions.isEmpty { members.append(("allOf", .array(conditions))) }
        return .object(members)
    }

    /// For a record with the common fields: the flag that makes it a tombstone (`deleted`), the time
    /// field null unless that flag is true (`deletedAt`), and the fields a tombstone keeps (the common
    /// fields, schema §5.4). Nil for any other owner.
    private func tombstoneShape(_ owner: String) -> (flag: String, time: String, keeps: [String])? {
        guard spec.collections.contains(where: { $0.documentType == owner && $0.hasCommonFields }) else { return nil }
        let common = spec.fields(of: SchemaSpec.commonFieldsOwner)
        for field in common {
            if let flag = field.limits.lazy.compactMap(\.nullUnlessFlag).first {
                return (flag, field.name, common.map(\.name))
            }
        }
        return nil
    }

    /// `values`: each known key's entry has `v` of the key's type; other keys any entry.
    private func settingsValues() -> JSONNode {
        var properties: [(String, JSONNode)] = []
        for key in spec.settingsKeys {
            var v = typeSchema(key.type, limits: [])
            if case .range(let lower, let upper) = key.allowed {
                v = allOf([v, .object([("minimum", number(lower)), ("maximum", number(upper))])])
            }
            if key.isNullable { v = nullable(v) }
            properties.append(
                (
                    key.key,
                    allOf([
                        .object([("$ref", .string("#/$defs/SettingsEntry"))]),
                        .object([("properties", .object([("v", v)]))]),
                    ])
                ))
        }
        return .object([
            ("type", .string("object")), ("properties", .object(properties)),
            ("additionalProperties", .object([("$ref", .string("#/$defs/SettingsEntry"))])),
        ])
    }

    private func allOf(_ schemas: [JSONNode]) -> JSONNode { .object([("allOf", .array(schemas))]) }

    private func nullable(_ schema: JSONNode) -> JSONNode {
        .object([("anyOf", .array([schema, .object([("type", .string("null"))])]))])
    }

    private func number(_ value: Double) -> JSONNode { .number(value) }

    private func fieldSchema(_ field: FieldSpec, form: WriteFormKind) -> JSONNode {
        var schema = typeSchema(field.type, limits: field.limits)
        switch (field.writeAs, form) {
        case (.serverTimestamp, .write): schema = .object([("$ref", .string("#/$defs/serverTimestamp"))])
        case (.increment, .write):
            schema = .object([
                (
                    "anyOf",
                    .array([schema, Self.wrapper("$increment", .object([("type", .string("integer"))]))])
                )
            ])
        default: break
        }
        if field.isNullable || field.presence == .optional { schema = nullable(schema) }
        var members: [(String, JSONNode)] = [("description", .string(field.meaning))]
        members += schema.schemaMembers
        return .object(members)
    }

    private func typeSchema(_ type: SchemaFieldType, limits: [FieldLimit]) -> JSONNode {
        var members: [(String, JSONNode)] = []
        switch type {
        case .string, .dateString:
            members.append(("type", .string("string")))
            if type == .dateString { members.append(("pattern", .string(Self.datePattern))) }
            for limit in limits {
                switch limit {
                case .maxChars(let n): members.append(("maxLength", .integer(Int64(n))))
                case .hexLength(let n): members.append(("pattern", .string("^[0-9a-f]{\(n)}$")))
                case .storagePath(let name):
                    // The path's shape only: that its uid, id or hash are this document's is validate's
                    // (schema.storage-path), which a JSON Schema cannot compare.
                    if let blob = spec.blobs.first(where: { $0.name == name }) {
                        members.append(("pattern", .string(Self.storagePathPattern(blob.pathTemplate))))
                    }
                default: break
                }
            }
        case .unit(let table):
            let units = spec.unitTable(named: table)?.units.map { JSONNode.string($0.id) } ?? []
            members.append(("enum", .array(units)))
        case .boolean: members.append(("type", .string("boolean")))
        case .integer:
            members.append(("type", .string("integer")))
            members += numberLimits(limits)
        case .double:
            members.append(("$ref", .string("#/$defs/double")))
            members += numberLimits(limits)
        case .timestamp: members.append(("$ref", .string("#/$defs/timestamp")))
        case .bytes:
            guard let maxBytes = limits.compactMap({ if case .maxBytes(let n) = $0 { n } else { nil } }).first else {
                members.append(("$ref", .string("#/$defs/bytes")))
                break
            }
            members.append(("$ref", .string("#/$defs/bytes")))
            let maxLength = Int64((maxBytes + 2) / 3 * 4)
            members.append(
                ("properties", .object([("$bytes", .object([("maxLength", .integer(maxLength))]))])))
        case .settingValue: break
        case .enumeration(let name):
            let cases = spec.enumeration(named: name)?.cases ?? []
            members.append(("enum", .array(cases.map { CanonicalJSON.node($0.cloudValue) })))
        case .map(let owner): members.append(("$ref", .string("#/$defs/\(owner)")))
        case .array(let element):
            members.append(("type", .string("array")))
            members.append(("items", typeSchema(element, limits: [])))
            for limit in limits {
                if case .maxItems(let n) = limit { members.append(("maxItems", .integer(Int64(n)))) }
            }
        case .dictionary(let element):
            members.append(("type", .string("object")))
            members.append(("additionalProperties", typeSchema(element, limits: [])))
        }
        return .object(members)
    }

    /// The pattern of a Storage path template: `{uid}` one path segment, any other placeholder 64
    /// lowercase hex characters, the rest literal.
    static func storagePathPattern(_ template: String) -> String {
        var out = "^"
        var rest = Substring(template)
        func literal(_ text: Substring) -> String {
            text.map { ".^$*+?()[]{}|\\".contains($0) ? "\\\($0)" : String($0) }.joined()
        }
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += literal(rest[..<open])
            out += rest[rest.index(after: open)..<close] == "uid" ? "[^/]+" : "[0-9a-f]{64}"
            rest = rest[rest.index(after: close)...]
        }
        return out + literal(rest) + "$"
    }

    private func numberLimits(_ limits: [FieldLimit]) -> [(String, JSONNode)] {
        limits.compactMap { limit in
            switch limit {
            case .minimum(let v): ("minimum", number(v))
            case .maximum(let v): ("maximum", number(v))
            case .step(let v): ("multipleOf", number(v))
            default: nil
            }
        }
    }
}

/// Emits the fixtures of the cross-check: a valid document per collection and form, and broken ones
/// that both the JSON Schemas and the generated Swift decoders must reject
/// (`Goldens/jsonschema/fixtures/{valid,invalid}/<collection>.<form>[.<case>].json`).
struct FixtureEmitter {
    let spec: SchemaSpec

    static let directory = "Goldens/jsonschema/fixtures"

    /// The broken cases and the rule the Swift decoder reports for each (`tombstone-with-fields`: the
    /// validator, since a typed decoder reads a live document).
    static let invalidCases: [(name: String, rule: String)] = [
        ("missing-field", "schema.missing-field"),
        ("misspelt-field", "schema.missing-field"),
        ("wrong-type", "schema.type"),
        ("null-not-nullable", "schema.type"),
        ("enum-outside", "schema.enum"),
        ("too-long", "schema.limit"),
        ("updatedAt-timestamp", "schema.type"),
        ("null-unless", "schema.null-unless"),
        ("tombstone-with-fields", "schema.tombstone"),
    ]

    func files() -> [GeneratedFile] {
        let samples = Samples(spec: spec)
        var files: [GeneratedFile] = [readme()]
        for collection in spec.collections {
            let sample = samples.document(collection.documentType)
            for form in WriteFormKind.allCases {
                let valid = samples.json(sample, form: form)
                files.append(
                    GeneratedFile(
                        relativePath: "\(Self.directory)/valid/\(collection.name).\(form.rawValue).json",
                        contents: CanonicalJSON.string(valid)))
                for (name, _) in Self.invalidCases {
                    guard let broken = mutate(valid, collection: collection, form: form, case: name) else { continue }
                    files.append(
                        GeneratedFile(
                            relativePath: "\(Self.directory)/invalid/\(collection.name).\(form.rawValue).\(name).json",
                            contents: CanonicalJSON.string(broken)))
                }
            }
        }
        return files
    }

    /// The folder's do-not-edit note: a document fixture cannot carry a comment (a `$` key would need
    /// `$map` in canonical JSON, and any other key would be a field).
    private func readme() -> GeneratedFile {
        var lines = [
            "<!-- " + SchemaGenerator.doNotEdit(["collections.tsv", "fields.tsv", "enums.tsv", "settings-keys.tsv"])
                + " -->",
            "",
            "# JSON Schema cross-check fixtures",
            "",
            "Generated with the JSON Schemas next to this folder; the `.json` files here are documents in canonical "
                + "typed JSON and cannot carry a comment, so this note stands for them. Do not edit.",
            "",
            "- `valid/<collection>.<form>.json`: a live sample document with every field set (`deletedAt` null, "
                + "`deleted` false); the generated Swift types "
                + "encode exactly these bytes, and the JSON Schema of the collection and form accepts them.",
            "- `invalid/<collection>.<form>.<case>.json`: the valid sample broken one way; the JSON Schema and the "
                + "generated Swift decoders both reject it (`tombstone-with-fields`: the JSON Schema and the "
                + "validator, `vulture-conformance validate`, since a typed decoder reads a live document). "
                + "Cases and the rule reported:",
            "",
        ]
        for (name, rule) in Self.invalidCases { lines.append("  - `\(name)`: `\(rule)`") }
        return GeneratedFile(
            relativePath: "\(Self.directory)/README.md", contents: lines.joined(separator: "\n") + "\n")
    }

    private func mutate(_ doc: FirestoreValue, collection: CollectionSpec, form: WriteFormKind, case name: String)
        -> FirestoreValue?
    {
        let fields = spec.allFields(of: collection.documentType)
        let essential = fields.first {
            !$0.isNullable && $0.presence == .required && $0.defaultValue == nil && $0.writeAs == .value
        }
        switch name {
        case "missing-field":
            guard let f = essential else { return nil }
            return doc.setting(f.name, nil)
        case "misspelt-field":
            guard let f = essential, let value = doc.mapValue?[f.name], f.name.count > 1 else { return nil }
            return doc.setting(f.name, nil).setting(String(f.name.dropLast()), value)
        case "wrong-type":
            if let f = fields.first(where: { $0.type == .integer && $0.writeAs == .value }) {
                return doc.setting(f.name, .double(1.5))
            }
            guard let f = fields.first(where: { $0.type == .string }) else { return nil }
            return doc.setting(f.name, .integer(7))
        case "null-not-nullable":
            guard let f = fields.first(where: { !$0.isNullable && $0.writeAs == .value }) else { return nil }
            return doc.setting(f.name, .null)
        case "enum-outside":
            for f in fields {
                guard case .enumeration(let e) = f.type, let en = spec.enumeration(named: e) else { continue }
                return doc.setting(f.name, en.encoding == .integer ? .integer(99) : .string("notA\(e)"))
            }
            return nil
        case "too-long":
            for f in fields {
                for limit in f.limits {
                    if case .maxChars(let n) = limit {
                        return doc.setting(f.name, .string(String(repeating: "x", count: n + 1)))
                    }
                }
            }
            return nil
        case "null-unless":
            for f in fields where f.type == .timestamp {
                for case .nullUnless(let flag) in f.limits {
                    return doc.setting(flag, .boolean(false)).setting(f.name, .timestamp(Samples.updatedAtSample))
                }
            }
            return nil
        case "tombstone-with-fields":
            // The record's fields on a tombstone (schema §5.4: it keeps only the common fields).
            for f in fields where f.type == .timestamp {
                for case .nullUnless(let flag) in f.limits {
                    return doc.setting(flag, .boolean(true)).setting(f.name, .timestamp(Samples.updatedAtSample))
                }
            }
            return nil
        case "updatedAt-timestamp":
            guard form == .write, let f = fields.first(where: { $0.writeAs == .serverTimestamp }) else { return nil }
            return doc.setting(f.name, .timestamp(Samples.updatedAtSample))
        default: return nil
        }
    }
}

/// Building the JSON Schemas as plain JSON nodes, written by the canonical writer.
extension JSONNode {
    static let null = JSONNode(.null)

    static func object(_ members: [(String, JSONNode)]) -> JSONNode {
        JSONNode(.object(members.map { JSONMember(key: $0.0, value: $0.1) }))
    }

    static func array(_ elements: [JSONNode]) -> JSONNode { JSONNode(.array(elements)) }

    static func string(_ text: String) -> JSONNode { JSONNode(.string(text)) }

    static func bool(_ value: Bool) -> JSONNode { JSONNode(.bool(value)) }

    static func integer(_ value: Int64) -> JSONNode { JSONNode(.integer(value)) }

    /// A JSON Schema bound: written as an integer when whole (JSON Schema does not tell 5 from 5.0).
    static func number(_ value: Double) -> JSONNode {
        value.rounded() == value && abs(value) < 1e15 ? JSONNode(.integer(Int64(value))) : JSONNode(.double(value))
    }

    /// The members of an object node (none for other kinds).
    var schemaMembers: [(String, JSONNode)] {
        guard case .object(let members) = kind else { return [] }
        return members.map { ($0.key, $0.value) }
    }
}

extension FirestoreValue {
    /// A copy of a map with `key` set or, for nil, removed (other kinds unchanged).
    func setting(_ key: String, _ value: FirestoreValue?) -> FirestoreValue {
        guard case .map(var members) = self else { return self }
        members[key] = value
        return .map(members)
    }
}
