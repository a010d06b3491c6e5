import VultureSchemaCore

/// Emits the JSON Schemas (draft 2020-12) of the testee protocol's operations and of the fixture form:
/// `Goldens/protocol/operations/<op>.input.schema.json`, `<op>.output.schema.json`,
/// `<collection>.fixture.schema.json` and `<collection>.merge-fixture.schema.json`.
///
/// Every schema's `$id` is its bare file name, as the document schemas of `Goldens/jsonschema/`: load
/// both folders into one registry and a `$ref` such as `flights.write.schema.json` resolves. Shapes come
/// from `Spec/operations.tsv` (the page notation, ``OperationShape``); a fixture's record takes the
/// document's own fields from `Spec/fields.tsv` with enum fields as case names, and the inputs the
/// encoder builds from (blob states, ids the document does not hold, increments, settings values) follow
/// from `Spec/blobs.tsv`, `Spec/ids.tsv` and the fields' `writeAs`.
struct OperationSchemaEmitter {
    let spec: SchemaSpec

    static let directory = "Goldens/protocol/operations"
    static let sources = [
        "operations.tsv", "collections.tsv", "fields.tsv", "enums.tsv", "settings-keys.tsv", "units.tsv", "ids.tsv",
        "blobs.tsv",
    ]
    static let base64Pattern = JSONSchemaEmitter.base64Pattern
    static let timestampPattern = JSONSchemaEmitter.timestampPattern

    /// The shapes whose schema depends on the input's collection (and form).
    static let collectionDependent: Set<String> = ["fixture", "mergeFixture", "document", "storedDocument"]

    func files() -> [GeneratedFile] {
        var files: [GeneratedFile] = []
        for op in spec.operations {
            for (part, shape) in [("input", op.input), ("output", op.output)] {
                let name = "\(op.op).\(part).schema.json"
                var shapeMembers = schema(shape, isInput: part == "input").schemaMembers
                // One description: the operation's meaning, then what the shape's own schema says.
                var description = op.meaning
                if let k = shapeMembers.firstIndex(where: { $0.0 == "description" }) {
                    if case .string(let shapeDescription) = shapeMembers[k].1.kind {
                        description += " " + shapeDescription
                    }
                    shapeMembers.remove(at: k)
                }
                var members = header(name, title: "\(op.op) \(part)", description: description)
                members += shapeMembers
                files.append(file(name, .object(members)))
            }
        }
        for collection in spec.collections {
            for merge in [false, true] {
                let name = "\(collection.name).\(merge ? "merge-fixture" : "fixture").schema.json"
                files.append(file(name, fixture(collection, merge: merge, id: name)))
            }
        }
        return files
    }

    /// The file name of a collection's fixture schema.
    static func fixtureFile(_ collection: String, merge: Bool) -> String {
        "\(collection).\(merge ? "merge-fixture" : "fixture").schema.json"
    }

    private func file(_ name: String, _ node: JSONNode) -> GeneratedFile {
        GeneratedFile(relativePath: "\(Self.directory)/\(name)", contents: CanonicalJSONWriter.string(node))
    }

    private func header(_ id: String, title: String, description: String) -> [(String, JSONNode)] {
        [
            ("$comment", .string(SchemaGenerator.doNotEdit(Self.sources))),
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("$id", .string(id)),
            ("title", .string(title)),
            ("description", .string(description)),
        ]
    }

    // MARK: Shapes

    private static func wrapper(_ key: String, _ payload: JSONNode) -> JSONNode {
        .object([
            ("type", .string("object")), ("properties", .object([(key, payload)])),
            ("required", .array([.string(key)])), ("additionalProperties", .bool(false)),
        ])
    }

    static let bytes = wrapper("$bytes", .object([("type", .string("string")), ("pattern", .string(base64Pattern))]))
    static let timestamp = wrapper(
        "$timestamp", .object([("type", .string("string")), ("pattern", .string(timestampPattern))]))
    static let double: JSONNode = .object([
        (
            "anyOf",
            .array([
                .object([("type", .string("number"))]),
                wrapper(
                    "$double", .object([("enum", .array(["NaN", "Infinity", "-Infinity", "-0"].map { .string($0) }))])
                ),
            ])
        )
    ])

    private var iosKeys: [String] {
        spec.settingsKeys.flatMap(\.iosKeys).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// The schema of a shape; collection-dependent members of a map are constrained per collection there.
    func schema(_ shape: OperationShape, isInput: Bool) -> JSONNode {
        switch shape {
        case .named(let name): return named(name)
        case .literal(let value): return .object([("const", CanonicalJSON.node(value))])
        case .array(let element):
            return .object([("type", .string("array")), ("items", schema(element, isInput: isInput))])
        case .either(let shapes):
            let literals = shapes.compactMap { if case .literal(let v) = $0 { v } else { nil } }
            if literals.count == shapes.count {
                return .object([("enum", .array(literals.map { CanonicalJSON.node($0) }))])
            }
            return .object([("anyOf", .array(shapes.map { schema($0, isInput: isInput) }))])
        case .map(let members, let others, let otherKeys):
            var properties: [(String, JSONNode)] = []
            var required: [JSONNode] = []
            var conditions: [JSONNode] = []
            for m in members {
                properties.append((m.name, schema(m.shape, isInput: isInput)))
                if !m.isOptional { required.append(.string(m.name)) }
                if isInput, case .named(let n) = m.shape, Self.collectionDependent.contains(n) {
                    conditions += perCollection(member: m.name, shape: n)
                }
            }
            var out: [(String, JSONNode)] = [("type", .string("object"))]
            if !properties.isEmpty { out.append(("properties", .object(properties))) }
            if !required.isEmpty { out.append(("required", .array(required))) }
            switch otherKeys {
            case "settingsKey":
                out.append(("propertyNames", .object([("enum", .array(spec.settingsKeys.map { .string($0.key) }))])))
            case "iosKey": out.append(("propertyNames", .object([("enum", .array(iosKeys.map { .string($0) }))])))
            default: break
            }
            out.append(("additionalProperties", others.map { schema($0, isInput: isInput) } ?? .bool(false)))
            if !conditions.isEmpty { out.append(("allOf", .array(conditions))) }
            return .object(out)
        }
    }

    private func named(_ name: String) -> JSONNode {
        switch name {
        case "string": return .object([("type", .string("string"))])
        case "integer": return .object([("type", .string("integer"))])
        case "boolean": return .object([("type", .string("boolean"))])
        case "null": return .object([("type", .string("null"))])
        case "any": return .object([])
        case "object": return .object([("type", .string("object"))])
        case "bytes": return Self.bytes
        case "timestamp": return Self.timestamp
        case "sha256": return .object([("type", .string("string")), ("pattern", .string("^[0-9a-f]{64}$"))])
        case "collection": return .object([("enum", .array(spec.collections.map { .string($0.name) }))])
        case "form": return .object([("enum", .array([.string("write"), .string("stored")]))])
        case "storedMap", "writeMap":
            let form = name == "storedMap" ? "stored" : "write"
            return .object([
                ("type", .string("object")),
                (
                    "description",
                    .string(
                        "A document's fields in the \(form) form of canonical typed JSON (Goldens/FORMAT.md)\(form == "stored" ? ", no sentinel (value.sentinel-in-stored-form)" : ""), not checked against a collection's schema: the engine rules take partial documents."
                    )
                ),
            ])
        case "write":
            let path: JSONNode = .object([("type", .string("string"))])
            return .object([
                ("type", .string("object")),
                (
                    "description",
                    .string(
                        "A Firestore write in canonical typed JSON (Goldens/FORMAT.md, Writes): fields with the sentinels inline, the mask (absent: the write replaces the whole document), an optional precondition."
                    )
                ),
                (
                    "properties",
                    .object([
                        ("fields", .object([("type", .string("object"))])),
                        ("mask", .object([("type", .string("array")), ("items", path)])),
                        (
                            "precondition",
                            .object([
                                ("type", .string("object")),
                                (
                                    "properties",
                                    .object([
                                        ("exists", .object([("type", .string("boolean"))])),
                                        ("updateTime", Self.timestamp),
                                    ])
                                ),
                                ("minProperties", .integer(1)), ("maxProperties", .integer(1)),
                                ("additionalProperties", .bool(false)),
                            ])
                        ),
                    ])
                ),
                ("required", .array([.string("fields")])),
                ("additionalProperties", .bool(false)),
            ])
        case "settingsEntry":
            return .object([
                ("type", .string("object")),
                (
                    "properties",
                    .object([
                        ("v", .object([])), ("t", .object([("type", .string("integer"))])),
                        ("d", .object([("type", .string("string"))])),
                    ])
                ),
                ("required", .array([.string("v"), .string("t"), .string("d")])),
                ("additionalProperties", .bool(false)),
            ])
        case "fixture", "mergeFixture":
            return .object([
                ("type", .string("object")),
                (
                    "description",
                    .string(
                        "The fixture form of the input's collection: COLLECTION.\(name == "fixture" ? "fixture" : "merge-fixture").schema.json."
                    )
                ),
            ])
        case "document":
            return .object([
                ("type", .string("object")),
                (
                    "description",
                    .string(
                        "A document of the input's collection in the input's form (Goldens/jsonschema/COLLECTION.FORM.schema.json; a tombstone or a merge write holds fewer fields)."
                    )
                ),
            ])
        default:  // storedDocument
            return .object([
                ("type", .string("object")),
                (
                    "description",
                    .string(
                        "A stored document of the input's collection (Goldens/jsonschema/COLLECTION.stored.schema.json)."
                    )
                ),
            ])
        }
    }

    /// `if collection == c (and form == f) then member: $ref …` for every collection (and form).
    private func perCollection(member: String, shape: String) -> [JSONNode] {
        var out: [JSONNode] = []
        for c in spec.collections {
            let forms: [String?] = shape == "document" ? ["write", "stored"] : [nil]
            for form in forms {
                var condition: [(String, JSONNode)] = [("collection", .object([("const", .string(c.name))]))]
                if let form { condition.append(("form", .object([("const", .string(form))]))) }
                let target: String
                switch shape {
                case "fixture": target = Self.fixtureFile(c.name, merge: false)
                case "mergeFixture": target = Self.fixtureFile(c.name, merge: true)
                case "storedDocument": target = "\(c.name).stored.schema.json"
                default: target = "\(c.name).\(form ?? "stored").schema.json"
                }
                out.append(
                    .object([
                        (
                            "if",
                            .object([
                                ("properties", .object(condition)),
                                ("required", .array(condition.map { .string($0.0) })),
                            ])
                        ),
                        ("then", .object([("properties", .object([(member, .object([("$ref", .string(target))]))]))])),
                    ]))
            }
        }
        return out
    }

    // MARK: Fixtures

    /// The fields an encoder builds from the fixture's inputs instead of copying them from the record:
    /// blob maps, fields moved by increment, and the settings values dictionary.
    func builtFields(of owner: String) -> Set<String> {
        var names = Set(spec.blobs.filter { $0.record == owner }.map(\.mapField))
        for f in spec.fields(of: owner) {
            if f.writeAs == .increment { names.insert(f.name) }
            if case .dictionary(.map) = f.type { names.insert(f.name) }
        }
        return names
    }

    /// One input member of a fixture: its schema, and whether it is required always, only on a live
    /// document (not for a tombstone), or never.
    struct FixtureInput {
        enum Need { case always, live, optional }
        var name: String
        var schema: JSONNode
        var need: Need
        var description: String
        /// The member's shape in the page notation, with what a tombstone may leave out said in words.
        var notation: String
    }

    /// The members a collection's fixture carries besides context, record and tombstone.
    func fixtureInputs(_ c: CollectionSpec) -> [FixtureInput] {
        var inputs: [FixtureInput] = []
        let documentFields = Set(spec.allFields(of: c.documentType).map(\.name))
        let pathPlaceholders = Set(placeholders(c.pathTemplate))
        for blob in spec.blobs where blob.record == c.documentType {
            guard let field = spec.fields(of: c.documentType).first(where: { $0.name == blob.mapField }),
                case .map(let owner) = field.type
            else { continue }
            var properties: [(String, JSONNode)] = []
            var all: [JSONNode] = []
            var keys: [JSONNode] = []
            for f in spec.fields(of: owner) where f.name != "path" {
                properties.append((f.name, recordType(f.type, limits: f.limits)))
                all.append(.string(f.name))
                if f.limits.contains(where: { if case .hexLength = $0 { true } else { false } }) {
                    keys.append(.string(f.name))
                }
            }
            // A blob whose path shares the document's id placeholder names the document: it is always
            // needed, and a tombstone needs only its hash.
            let sharesId = !Set(placeholders(blob.pathTemplate)).subtracting(["uid"]).isDisjoint(with: pathPlaceholders)
            inputs.append(
                FixtureInput(
                    name: blob.mapField,
                    schema: .object([
                        ("type", .string("object")), ("properties", .object(properties)),
                        ("required", .array(sharesId ? keys : all)),
                        ("additionalProperties", .bool(false)),
                    ]),
                    need: sharesId ? .always : .optional,
                    description: sharesId
                        ? "The Storage object's state; its SHA-256 is the document id (a tombstone needs only that)."
                        : "The Storage object's state, when the record's content hash is known.",
                    notation: "{"
                        + properties.map { "\($0.0): \(ProtocolTablesEmitter.shape($0.1))" }.joined(separator: ", ")
                        + "}"
                        + (sharesId
                            ? " (a tombstone needs only " + keys.compactMap(\.stringText).joined(separator: ", ") + ")"
                            : "")))
        }
        // A collection with a pinned id rule (a random id, the map-file strings) takes the id the writer
        // already holds, named as the path's id placeholder (`taskId`, `fileId`).
        if spec.idRules(of: c.idRecord).contains(where: \.isPinned), let id = placeholders(c.pathTemplate).last {
            inputs.append(
                FixtureInput(
                    name: id, schema: .object([("type", .string("string"))]), need: .optional,
                    description:
                        "The document id the writer already holds (a random id it chose, or a pulled document's id), used as is where the id rule is pinned.",
                    notation: "string"))
        }
        for rule in spec.idRules(of: c.idRecord) {
            switch rule.algorithm {
            case .verbatim:
                for p in placeholders(rule.input ?? "") where !documentFields.contains(p) && p != "uid" {
                    inputs.append(
                        FixtureInput(
                            name: p, schema: .object([("type", .string("string"))]), need: .always,
                            description: "The id the document does not hold.", notation: "string"))
                }
            default: break
            }
        }
        for f in spec.fields(of: c.documentType) where f.writeAs == .increment {
            for (suffix, text) in [("Before", "before the write"), ("Delta", "the write adds")] {
                inputs.append(
                    FixtureInput(
                        name: f.name + suffix, schema: .object([("type", .string("integer"))]), need: .always,
                        description: "\(f.name) \(text) (moved by $increment in the write form).", notation: "integer"))
            }
        }
        for f in spec.fields(of: c.documentType) {
            guard case .dictionary(.map(let entry)) = f.type else { continue }
            var properties: [(String, JSONNode)] = []
            for e in spec.fields(of: entry) where e.name != "d" {
                properties.append((e.name, e.type == .settingValue ? .object([]) : recordType(e.type, limits: [])))
            }
            inputs.append(
                FixtureInput(
                    name: f.name,
                    schema: .object([
                        ("type", .string("object")),
                        ("propertyNames", .object([("enum", .array(spec.settingsKeys.map { .string($0.key) }))])),
                        (
                            "additionalProperties",
                            .object([
                                ("type", .string("object")), ("properties", .object(properties)),
                                ("required", .array(properties.map { .string($0.0) })),
                                ("additionalProperties", .bool(false)),
                            ])
                        ),
                    ]),
                    need: .live, description: "The entries without d (the writer's device id fills it).",
                    notation: "{*settingsKey: {"
                        + properties.map { "\($0.0): \(ProtocolTablesEmitter.shape($0.1))" }
                        .joined(separator: ", ") + "}}"))
        }
        return inputs
    }

    func placeholders(_ template: String) -> [String] {
        var out: [String] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return out
    }

    private func fixture(_ c: CollectionSpec, merge: Bool, id: String) -> JSONNode {
        let platform =
            spec.fields(of: SchemaSpec.commonFieldsOwner).first { $0.name == "platform" }.flatMap { f -> [JSONNode]? in
                guard case .enumeration(let e) = f.type else { return nil }
                return spec.enumeration(named: e)?.cases.map { CanonicalJSON.node($0.cloudValue) }
            } ?? []
        let context: JSONNode = .object([
            ("type", .string("object")),
            (
                "properties",
                .object([
                    ("uid", .object([("type", .string("string"))])),
                    ("deviceId", .object([("type", .string("string"))])),
                    ("platform", .object([("enum", .array(platform))])),
                    ("clientUpdatedAt", Self.timestamp),
                    ("serverTime", Self.timestamp),
                    ("deletedAt", Self.timestamp),
                ])
            ),
            (
                "required",
                .array(["uid", "deviceId", "platform", "clientUpdatedAt", "serverTime"].map { .string($0) })
            ),
            ("additionalProperties", .bool(false)),
        ])
        var defs: [(String, JSONNode)] = [("double", Self.double)]
        var pending = [c.documentType]
        var seen: Set<String> = []
        while let owner = pending.first {
            pending.removeFirst()
            guard seen.insert(owner).inserted else { continue }
            let skip = owner == c.documentType ? builtFields(of: owner) : []
            var properties: [(String, JSONNode)] = []
            for f in spec.fields(of: owner) where !skip.contains(f.name) {
                var s = recordType(f.type, limits: f.limits)
                // A field the writer sends as null when empty (merge rule emptyAsNull) may be "" in a record.
                if spec.mergeRules.contains(where: {
                    $0.document == owner && $0.fieldPath == f.name && $0.rule == .emptyAsNull
                }) {
                    s = .object([("anyOf", .array([s, .object([("const", .string(""))])]))])
                }
                if f.isNullable || f.presence == .optional {
                    s = .object([("anyOf", .array([s, .object([("type", .string("null"))])]))])
                }
                properties.append((f.name, .object([("description", .string(f.meaning))] + s.schemaMembers)))
                for reference in f.type.references {
                    if case .map(let nested) = reference { pending.append(nested) }
                }
            }
            defs.append(
                (
                    owner == c.documentType ? "record" : owner,
                    .object([
                        ("type", .string("object")), ("properties", .object(properties)),
                        ("additionalProperties", .bool(false)),
                    ])
                ))
        }
        let inputs = fixtureInputs(c)
        var properties: [(String, JSONNode)] = [
            ("context", .object([("description", .string("Who writes and when."))] + context.schemaMembers))
        ]
        var required: [JSONNode] = [.string("context")]
        if merge {
            for name in ["agreed", "local"] {
                properties.append(
                    (
                        name,
                        .object([
                            (
                                "description",
                                .string(
                                    name == "agreed"
                                        ? "The record as last agreed with the server (the sync base)."
                                        : "The record after the local edit.")
                            ), ("$ref", .string("#/$defs/record")),
                        ])
                    ))
                required.append(.string(name))
            }
        } else {
            properties.append(
                (
                    "record",
                    .object([
                        (
                            "description",
                            .string(
                                "The document's own fields by their cloud names, enum fields by case name; a field left out is written as null, its default, or (optional) not at all."
                            )
                        ), ("$ref", .string("#/$defs/record")),
                    ])
                ))
            properties.append(
                (
                    "tombstone",
                    .object([
                        (
                            "description",
                            .string(
                                "true: encode the tombstone (schema §5.4); record and inputs only name the document.")
                        ),
                        ("type", .string("boolean")),
                    ])
                ))
        }
        properties.append(
            (
                "source",
                .object([
                    ("description", .string("Where the record comes from (a note).")), ("type", .string("string")),
                ])
            ))
        var conditions: [JSONNode] = []
        for input in inputs {
            properties.append(
                (input.name, .object([("description", .string(input.description))] + input.schema.schemaMembers)))
            switch input.need {
            case .always: required.append(.string(input.name))
            case .live where merge: required.append(.string(input.name))
            case .live:
                conditions.append(
                    .object([
                        (
                            "if",
                            .object([
                                ("properties", .object([("tombstone", .object([("const", .bool(true))]))])),
                                ("required", .array([.string("tombstone")])),
                            ])
                        ),
                        ("else", .object([("required", .array([.string(input.name)]))])),
                    ]))
            case .optional: break
            }
            // A keyed blob (the flight's igc) needs every member on a live document.
            if input.need == .always, case .object(let members) = input.schema.kind,
                let props = members.first(where: { $0.key == "properties" })?.value, case .object(let p) = props.kind,
                p.count > 1
            {
                let all = JSONNode.array(p.map { .string($0.key) })
                let liveRule: JSONNode = .object([("properties", .object([(input.name, .object([("required", all)]))]))]
                )
                conditions.append(
                    merge
                        ? liveRule
                        : .object([
                            (
                                "if",
                                .object([
                                    ("properties", .object([("tombstone", .object([("const", .bool(true))]))])),
                                    ("required", .array([.string("tombstone")])),
                                ])
                            ),
                            ("else", liveRule),
                        ]))
            }
        }
        var members = header(
            id, title: "\(c.name) \(merge ? "merge fixture" : "fixture")",
            description: merge
                ? "The merge.payload fixture of \(c.name): the fixture form with agreed and local records in place of record."
                : "The encode fixture of \(c.name) (\(c.documentType)): who writes, the record in the neutral form, and the inputs the encoder builds from."
        )
        members += [
            ("type", .string("object")), ("properties", .object(properties)), ("required", .array(required)),
            ("additionalProperties", .bool(false)),
        ]
        if !conditions.isEmpty { members.append(("allOf", .array(conditions))) }
        members.append(("$defs", .object(defs)))
        return .object(members)
    }

    /// A field's type in the fixture form: enums by case name, maps as the record types of `$defs`.
    func recordType(_ type: SchemaFieldType, limits: [FieldLimit]) -> JSONNode {
        switch type {
        case .string:
            for case .hexLength(let n) in limits {
                return .object([("type", .string("string")), ("pattern", .string("^[0-9a-f]{\(n)}$"))])
            }
            return .object([("type", .string("string"))])
        case .dateString:
            return .object([("type", .string("string")), ("pattern", .string(JSONSchemaEmitter.datePattern))])
        case .boolean: return .object([("type", .string("boolean"))])
        case .integer: return .object([("type", .string("integer"))])
        case .double: return .object([("$ref", .string("#/$defs/double"))])
        case .timestamp: return Self.timestamp
        case .bytes: return Self.bytes
        case .settingValue: return .object([])
        case .enumeration(let name):
            return .object([("enum", .array((spec.enumeration(named: name)?.cases ?? []).map { .string($0.name) }))])
        case .unit(let table):
            return .object([("enum", .array((spec.unitTable(named: table)?.units ?? []).map { .string($0.id) }))])
        case .map(let owner): return .object([("$ref", .string("#/$defs/\(owner)"))])
        case .array(let element):
            return .object([("type", .string("array")), ("items", recordType(element, limits: []))])
        case .dictionary(let element):
            return .object([("type", .string("object")), ("additionalProperties", recordType(element, limits: []))])
        }
    }
}
