import Foundation
import VultureSchemaCore

extension JSONNode {
    /// The text of a string node; nil for other kinds.
    var stringText: String? { if case .string(let s) = kind { s } else { nil } }
}

/// The tables of the testee protocol drawn from `Spec/operations.tsv`, `Spec/rules.tsv` and the fixture
/// form: written into the generated regions of the hand-written protocol page
/// (`Goldens/protocol/README.md`) and into `Goldens/SCHEMA.md`.
struct ProtocolTablesEmitter {
    let spec: SchemaSpec

    static let pagePath = "Goldens/protocol/README.md"

    /// The generated regions of the protocol page, by name.
    func regions() -> [GeneratedFile] {
        [
            GeneratedFile(
                relativePath: Self.pagePath,
                contents: operations(linkPrefix: "operations/").joined(separator: "\n") + "\n", region: "operations"),
            GeneratedFile(
                relativePath: Self.pagePath,
                contents: fixtures(linkPrefix: "operations/").joined(separator: "\n") + "\n", region: "fixtures"),
            GeneratedFile(
                relativePath: Self.pagePath, contents: rules().joined(separator: "\n") + "\n", region: "rules"),
            GeneratedFile(
                relativePath: Self.pagePath, contents: pins().joined(separator: "\n") + "\n", region: "pins"),
        ]
    }

    // MARK: Markdown helpers

    static func cell(_ text: String) -> String {
        text.isEmpty ? "–" : text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }

    static func code(_ text: String) -> String {
        "`" + text.replacingOccurrences(of: "|", with: "\\|") + "`"
    }

    static func table(_ header: [String], _ rows: [[String]]) -> [String] {
        var out = ["| " + header.joined(separator: " | ") + " |"]
        out.append("|" + header.map { _ in " --- |" }.joined())
        for row in rows { out.append("| " + row.joined(separator: " | ") + " |") }
        return out
    }

    // MARK: Tables

    /// The operations table: op, area, input, output, rejections, section, meaning, schema files.
    func operations(linkPrefix: String) -> [String] {
        var out = [
            "Inputs and outputs in the notation of this page: `{name: T, name?: T}` a map (`?`: may be left out; no "
                + "other members), `*: T` the other members, `*settingsKey: T` / `*iosKey: T` members named by "
                + "settings key ids / iOS keys (Goldens/SCHEMA.md, Settings keys), `[T]` an array, `A|B` either, "
                + "`\"text\"` a literal. Named shapes: `bytes` = `{\"$bytes\": base64}`, `timestamp` = "
                + "`{\"$timestamp\": \"…Z\"}`, `sha256` = 64 lowercase hex characters, `collection` = "
                + spec.collections.map { "`\($0.name)`" }.joined(separator: ", ")
                + "; `form` = `write` or `stored`; `fixture`, `mergeFixture` = the fixture form of the input's "
                + "collection (Fixtures below); `document`, `storedDocument` = a document of the input's collection "
                + "in canonical typed JSON (Goldens/SCHEMA.md, `Goldens/jsonschema/`); `storedMap`, `writeMap` = a "
                + "document's fields in the stored or the write form, not checked against a collection's schema (the "
                + "engine rules take partial documents; `storedMap` holds no sentinel); `settingsEntry` = "
                + "`{v: any, t: integer, d: string}`; `write` = a Firestore write in canonical typed JSON, "
                + "`{fields, mask?, precondition?}` (Goldens/FORMAT.md, Writes); `object` any map; `any` any value. Rejections name rule ids "
                + "(Rule ids and error codes below); `prefix.*` is every id of that group.",
            "",
        ]
        out += Self.table(
            ["op", "area", "input", "output", "rejections", "section", "meaning", "JSON Schemas"],
            spec.operations.map { op in
                [
                    Self.code(op.op), Self.code(op.area), Self.code(op.input.description),
                    Self.code(op.output.description),
                    op.errors.map { Self.code($0) }.joined(separator: ", "), Self.cell(op.section),
                    Self.cell(op.meaning),
                    "[in](\(linkPrefix)\(op.op).input.schema.json), [out](\(linkPrefix)\(op.op).output.schema.json)",
                ]
            })
        out += [
            "",
            "The Storage objects of `blob.path`, `blob.metadata`, `blob.uploadCheck` and `blob.verify` (`Spec/blobs.tsv`; "
                + "`kind` is the blob map field that records the object):",
            "",
        ]
        out += Self.table(
            [
                "kind", "object", "path", "content type", "Content-Encoding", "custom metadata",
                "largest object (bytes)",
            ],
            spec.blobs.map { b in
                [
                    Self.code(b.mapField), Self.code(b.name), Self.code(b.pathTemplate), Self.code(b.contentType),
                    b.contentEncoding.map { Self.code($0) } ?? "not set (`null`)",
                    b.customMetadata.isEmpty
                        ? "none (`{}`)" : b.customMetadata.map { Self.code($0) }.joined(separator: ", "),
                    String(b.maxObjectBytes),
                ]
            })
        return out
    }

    /// The fixture form per collection: record fields and inputs.
    func fixtures(linkPrefix: String) -> [String] {
        let schemas = OperationSchemaEmitter(spec: spec)
        let platforms =
            spec.enumeration(named: "Platform")?.cases.map { CanonicalJSON.compactString($0.cloudValue) }
            .joined(separator: "|") ?? "string"
        var out = [
            "Every fixture is `{context: {uid: string, deviceId: string, platform: \(platforms), clientUpdatedAt: "
                + "timestamp, serverTime: timestamp, deletedAt?: timestamp}, record?: {…}, tombstone?: boolean, "
                + "source?: string, …inputs}`. `context` says who writes and when: `platform` and `deviceId` become "
                + "`platform` and `updatedBy`, `clientUpdatedAt` is the writer's clock, `serverTime` the commit time "
                + "(`updatedAt` of the stored form), `deletedAt` a tombstone's time of the delete (else "
                + "`clientUpdatedAt`). `record` holds the document's own fields under their cloud names — enum fields "
                + "by case name (`\"airspace\"`, `\"symmetric\"`), everything else as the document holds it; a field "
                + "left out is written as null (nullable), its default (not nullable) or not at all (optional). The "
                + "common fields are never in `record`: the encoder writes them from `context`. `source` is a note. "
                + "A `mergeFixture` has `agreed` and `local` records instead of `record` (no `tombstone`).",
            "",
        ]
        var rows: [[String]] = []
        for c in spec.collections {
            let built = schemas.builtFields(of: c.documentType).sorted()
            let inputs = schemas.fixtureInputs(c).map { input -> String in
                let need: String
                switch input.need {
                case .always: need = ""
                case .live: need = " (not for a tombstone)"
                case .optional: need = "?"
                }
                let shape = input.notation
                return need == "?" ? Self.code("\(input.name)?: \(shape)") : Self.code("\(input.name): \(shape)") + need
            }
            rows.append([
                Self.code(c.name), "[\(c.documentType)](../SCHEMA.md#\(c.documentType.lowercased()))",
                built.isEmpty ? "–" : built.map { Self.code($0) }.joined(separator: ", "),
                inputs.isEmpty ? "–" : inputs.joined(separator: "; "),
                "[fixture](\(linkPrefix)\(c.name).fixture.schema.json), [merge](\(linkPrefix)\(c.name).merge-fixture.schema.json)",
            ])
        }
        out += Self.table(
            ["collection", "record: fields of", "built, never in record", "inputs", "JSON Schemas"], rows)
        return out
    }

    /// A fixture input's JSON Schema written back in the page notation (maps, strings, integers, booleans).
    static func shape(_ node: JSONNode) -> String {
        guard case .object(let members) = node.kind else { return "any" }
        func member(_ k: String) -> JSONNode? { members.first { $0.key == k }?.value }
        if case .string(let type)? = member("type")?.kind {
            switch type {
            case "object":
                var parts: [String] = []
                var required: Set<String> = []
                if case .array(let r)? = member("required")?.kind {
                    for e in r { if case .string(let s) = e.kind { required.insert(s) } }
                }
                if case .object(let props)? = member("properties")?.kind {
                    for p in props { parts.append("\(p.key)\(required.contains(p.key) ? "" : "?"): \(shape(p.value))") }
                }
                if let extra = member("additionalProperties"), case .object = extra.kind {
                    let keys = member("propertyNames") != nil ? "settingsKey" : ""
                    parts.append("*\(keys): \(shape(extra))")
                }
                return "{" + parts.joined(separator: ", ") + "}"
            case "string":
                if case .string(let p)? = member("pattern")?.kind, p == "^[0-9a-f]{64}$" { return "sha256" }
                if case .string(let p)? = member("pattern")?.kind, p == JSONSchemaEmitter.datePattern { return "date" }
                return "string"
            default: return type
            }
        }
        if case .string(let ref)? = member("$ref")?.kind { return ref == "#/$defs/double" ? "double" : "object" }
        if let enumeration = member("enum"), case .array(let values) = enumeration.kind {
            return values.compactMap(\.stringText).map { "\"\($0)\"" }.joined(separator: "|")
        }
        if case .object(let props)? = member("properties")?.kind, props.count == 1 {
            switch props[0].key {
            case "$bytes": return "bytes"
            case "$timestamp": return "timestamp"
            default: break
            }
        }
        return "any"
    }

    /// The pins, as the cases quote them: name, kind, choice (the schema page has subject, reason and source).
    func pins() -> [String] {
        var out = [
            "The choices the expected answers rest on where the seed documents are silent, cut off or disagree "
                + "(`Spec/pins.tsv`; [Goldens/SCHEMA.md](../SCHEMA.md#pinned-choices) has each one's subject, reason "
                + "and source). A case resting on a `choice` or `open` pin is `recommended.*`.",
            "",
        ]
        out += Self.table(
            ["pin", "kind", "choice"],
            spec.pins.map { p in ["`\(p.name)`", p.kind.rawValue, Self.cell(p.choice)] })
        return out
    }

    /// The registry: id, meaning, section, example.
    func rules() -> [String] {
        var out = [
            "Every rule id and error code an implementation, `validate` or the runner can name (`Spec/rules.tsv`; the "
                + "Swift enums `InputRule`, `SchemaRule` and `ErrorCode` are generated from it). A case whose golden "
                + "is a rejection passes when the answer's `code` is exactly the id; the message is free text.",
            "",
        ]
        out += Self.table(
            ["id", "meaning", "section", "example"],
            spec.rules.map { r in [Self.code(r.id), Self.cell(r.meaning), Self.cell(r.section), Self.cell(r.example)] })
        return out
    }
}
