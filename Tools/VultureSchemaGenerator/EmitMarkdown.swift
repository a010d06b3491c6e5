import Foundation
import VultureSchemaCore

/// Emits `Goldens/SCHEMA.md`: the schema as a page, every table of `Spec/` regenerated, and the
/// pinned choices shown as pinned.
struct MarkdownEmitter {
    let spec: SchemaSpec

    static let path = "Goldens/SCHEMA.md"
    static let sources = [
        "collections.tsv", "fields.tsv", "enums.tsv", "settings-keys.tsv", "units.tsv", "ids.tsv", "blobs.tsv",
        "merge-rules.tsv", "sync-rules.tsv", "limits.tsv", "constants.tsv", "pins.tsv", "rules.tsv",
        "operations.tsv",
    ]

    private func cell(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return "–" }
        return text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }

    private func code(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return "–" }
        return "`" + text.replacingOccurrences(of: "|", with: "\\|") + "`"
    }

    private func table(_ header: [String], _ rows: [[String]]) -> [String] {
        var out = ["| " + header.joined(separator: " | ") + " |"]
        out.append("|" + header.map { _ in " --- |" }.joined())
        for row in rows { out.append("| " + row.joined(separator: " | ") + " |") }
        return out
    }

    /// Pin names whose subject mentions `text` (a table row such as `FlightDocument.waterBallast`).
    private func pins(mentioning owner: String, _ name: String) -> [String] {
        spec.pins.filter { pin in
            pin.subject.contains("\(owner).\(name)") || pin.subject.contains("\(owner), ")
                || pin.subject.hasSuffix(" \(owner)")
        }.map(\.name)
    }

    func file() -> GeneratedFile {
        var out = ["<!-- " + SchemaGenerator.doNotEdit(Self.sources) + " -->", ""]
        out.append("# The Vulture sync schema")
        out.append("")
        out.append(
            "Firestore documents under `users/{uid}/…` and gzipped objects in Cloud Storage. This page is generated "
                + "from the `Spec/` tables, as are the Swift types (`Sources/VultureSyncSchema/Generated/`), their "
                + "tests and the JSON Schemas (`Goldens/jsonschema/`); edit `Spec/` and run "
                + "`swift run vulture-schema-gen generate`. Rows marked **pinned** are choices this project made where "
                + "the sources are silent, cut off or disagree (see [Pinned choices](#pinned-choices)).")
        out.append("")
        out += collections()
        out += commonFields()
        out += documents()
        out += enums()
        out += settings()
        out += units()
        out += ids()
        out += blobs()
        out += merge()
        out += syncRules()
        out += limits()
        out += constants()
        out += jsonSchemas()
        out += securityRules()
        out += operations()
        out += rules()
        out += pinned()
        return GeneratedFile(relativePath: Self.path, contents: out.joined(separator: "\n") + "\n")
    }

    private func collections() -> [String] {
        var out = ["## Collections", ""]
        out += table(
            ["collection", "path", "document", "id rule", "common fields", "push order", "meaning", "source"],
            spec.collections.map { c in
                [
                    code(c.name), code(c.pathTemplate), "[\(c.documentType)](#\(c.documentType.lowercased()))",
                    code(c.idRecord), c.hasCommonFields ? "yes" : "no", c.pushOrder.map(String.init) ?? "–",
                    cell(c.meaning), cell(c.source),
                ]
            })
        out.append("")
        return out
    }

    private func fieldTable(_ owner: String) -> [String] {
        let header = [
            "field", "type", "presence", "nullable", "default", "unit", "limit", "write as", "Android column",
            "iOS attribute", "since", "meaning", "source",
        ]
        return table(
            header,
            spec.fields(of: owner).map { f in
                let pinNames = pins(mentioning: owner, f.name)
                let meaning =
                    cell(f.meaning)
                    + (pinNames.isEmpty ? "" : " **pinned:** " + pinNames.map { "`\($0)`" }.joined(separator: ", "))
                return [
                    code(f.name), code(f.type.description), f.presence.rawValue, f.isNullable ? "yes" : "no",
                    code(f.defaultValue?.description), cell(f.unit?.rawValue),
                    code(f.limits.isEmpty ? nil : f.limits.map(\.description).joined(separator: ", ")),
                    f.writeAs.rawValue, code(f.androidColumn), code(f.iosAttribute), cell(f.since), meaning,
                    cell(f.source),
                ]
            })
    }

    private func commonFields() -> [String] {
        var out = ["## Common fields", ""]
        let carriers = spec.collections.filter(\.hasCommonFields).map { "`\($0.name)`" }
        out.append("Every document of " + carriers.joined(separator: ", ") + " starts with these fields.")
        out.append("")
        out += fieldTable(SchemaSpec.commonFieldsOwner)
        out.append("")
        return out
    }

    private func documents() -> [String] {
        var out = ["## Documents and nested maps", ""]
        out.append(
            "Field paths: a nested map adds `.`, an array element `[]`, a dictionary entry `.*`. In the write form "
                + "(a full write) every `required` field is present, `null` when nullable and without a value; "
                + "`optional` fields may be left out; a reader treats absent and `null` alike and uses the default "
                + "for an absent non-nullable field (Goldens/FORMAT.md).")
        out.append("")
        for owner in spec.ownerNames where owner != SchemaSpec.commonFieldsOwner {
            out.append("### \(owner)")
            out.append("")
            if let c = spec.collection(documentType: owner) {
                out.append(
                    "Collection `\(c.name)`, path `\(c.pathTemplate)`"
                        + (c.hasCommonFields ? ", with the common fields." : "."))
                out.append("")
                let paths = spec.fieldPaths(of: owner).map(\.path).filter { $0.contains(".") || $0.contains("[]") }
                if !paths.isEmpty {
                    out.append("Nested paths: " + paths.map { "`\($0)`" }.joined(separator: ", ") + ".")
                    out.append("")
                }
            } else {
                let users = spec.fields.filter { $0.type.references.contains(.map(owner)) }
                    .map { "`\($0.owner).\($0.name)`" }
                let keys = spec.settingsKeys.filter { $0.type.references.contains(.map(owner)) }.map { "`\($0.key)`" }
                var uses = users
                if !keys.isEmpty { uses.append("settings keys " + keys.joined(separator: ", ")) }
                out.append("A nested map: the value of " + uses.joined(separator: ", ") + ".")
                out.append("")
            }
            out += fieldTable(owner)
            out.append("")
        }
        return out
    }

    private func enums() -> [String] {
        var out = ["## Enums", ""]
        for e in spec.enums {
            out.append("### enum \(e.name)")
            out.append("")
            out.append("Stored as \(e.encoding == .integer ? "integers" : "strings").")
            out.append("")
            out += table(
                ["case", "cloud value", "iOS value", "meaning", "source"],
                e.cases.map { c in
                    [
                        code(c.name), code(c.cloudValue.description), c.iosValue.map(String.init) ?? "–",
                        cell(c.meaning), cell(c.source),
                    ]
                })
            out.append("")
        }
        return out
    }

    private func settings() -> [String] {
        var out = ["## Settings keys", ""]
        out.append(
            "`users/{uid}/settings/synced` holds `values.<key> = {v, t, d}` (`SettingsEntry`); `v` is typed by the key. "
                + "A default counts as `t = 0`, so any cloud value wins.")
        out.append("")
        out += table(
            ["key", "type", "nullable", "default", "allowed", "unit", "iOS keys", "iOS mapping", "meaning", "source"],
            spec.settingsKeys.map { k in
                [
                    code(k.key), code(k.type.description), k.isNullable ? "yes" : "no",
                    code(k.defaultValue.description),
                    code(k.allowed.description(for: k.type)), cell(k.unit?.rawValue),
                    k.iosKeys.map { "`\($0)`" }.joined(separator: ", "), code(k.iosMapping.rawValue), cell(k.meaning),
                    cell(k.source),
                ]
            })
        out.append("")
        return out
    }

    private func units() -> [String] {
        var out = ["## Unit tables", ""]
        out.append("iOS stores an index, the cloud the unit id; an unknown index or id falls back to index 0.")
        out.append("")
        var rows: [[String]] = []
        for t in spec.unitTables {
            for u in t.units {
                rows.append([
                    code(t.name), String(u.index), code(u.id), cell(u.symbol), cell(u.meaning), cell(u.source),
                ])
            }
        }
        out += table(["table", "iOS index", "unit id", "symbol", "meaning", "source"], rows)
        out.append("")
        return out
    }

    private func ids() -> [String] {
        var out = [
            "## Document ids", "",
            "The deterministic document ids, and the key of a shared Storage object (`contentHash`, which the "
                + "`mapFile` `user` id hashes too).", "",
        ]
        out += table(
            ["record", "variant", "condition", "algorithm", "input", "normalization", "pinned", "meaning", "source"],
            spec.idRules.map { r in
                [
                    code(r.record), code(r.variant), cell(r.condition), code(r.algorithm.rawValue), code(r.input),
                    code(r.normalization.rawValue), pinnedCell(r), cell(r.meaning), cell(r.source),
                ]
            })
        out.append("")
        return out
    }

    /// `**pinned**`, or `**pinned, unverified**` when a pin naming the rule is an open question.
    private func pinnedCell(_ r: IdRuleSpec) -> String {
        guard r.isPinned else { return "no" }
        let open = spec.pins.contains { $0.kind == .open && $0.subject.contains("ids.tsv \(r.record) \(r.variant)") }
        return open ? "**pinned, unverified** (open question)" : "**pinned**"
    }

    private func blobs() -> [String] {
        var out = ["## Storage objects", ""]
        out += table(
            [
                "blob", "path", "record", "map field", "content type", "content encoding", "custom metadata",
                "max object bytes", "max raw bytes", "meaning", "source",
            ],
            spec.blobs.map { b in
                [
                    code(b.name), code(b.pathTemplate), code(b.record), code(b.mapField), code(b.contentType),
                    code(b.contentEncoding),
                    b.customMetadata.isEmpty ? "–" : b.customMetadata.map { "`\($0)`" }.joined(separator: ", "),
                    String(b.maxObjectBytes), b.maxRawBytes.map(String.init) ?? "–", cell(b.meaning), cell(b.source),
                ]
            })
        out.append("")
        return out
    }

    private func merge() -> [String] {
        var out = ["## Merge rules", ""]
        out += table(
            ["document", "field", "rule", "tie", "meaning", "source"],
            spec.mergeRules.map { r in
                [
                    code(r.document ?? "*"), code(r.fieldPath ?? "*"), code(r.rule.rawValue), r.tie?.rawValue ?? "–",
                    cell(r.meaning), cell(r.source),
                ]
            })
        out.append("")
        return out
    }

    private func syncRules() -> [String] {
        var out = ["## Sync rules", ""]
        out.append(
            "The engine's rules beyond the per-field merge (`Spec/sync-rules.tsv`): the pilot's changes on the device, "
                + "push and pull, the profile, what the merge reads besides the three documents, the recents trim, "
                + "tombstones and their purge, the R4 duplicate pass and failed requests; the engine contract "
                + "[ENGINE.md](ENGINE.md) presents them for a team writing an engine. An `order` row is one key of its "
                + "area's sort, in table order (null sorts last); a `parameter` names the limit or constant it takes; a "
                + "`fact` is pinned by the vectors of `Goldens/vectors/merge.json`, `trim.json`, `tombstones.json` and "
                + "`duplicates.json` or by the scenarios of `Goldens/scenarios/`.")
        out.append("")
        out += table(
            ["area", "rule", "kind", "subject", "value", "meaning", "source"],
            spec.syncRules.map { r in
                let pinNames = spec.pins.filter { $0.subject.contains("sync-rules.tsv") && $0.subject.contains(r.name) }
                    .map(\.name)
                let meaning =
                    cell(r.meaning)
                    + (pinNames.isEmpty ? "" : " **pinned:** " + pinNames.map { "`\($0)`" }.joined(separator: ", "))
                return [
                    cell(r.area.rawValue), code(r.name), cell(r.kind.rawValue), code(r.subject?.description),
                    code(r.value?.description), meaning, cell(r.source),
                ]
            })
        out.append("")
        return out
    }

    private func limits() -> [String] {
        var out = ["## Limits", ""]
        out += table(
            ["limit", "value", "unit", "applies to", "meaning", "source"],
            spec.limits.map { l in
                [
                    code(l.name), String(l.value), cell(l.unit),
                    l.appliesTo.isEmpty ? "–" : l.appliesTo.map { "`\($0)`" }.joined(separator: ", "), cell(l.meaning),
                    cell(l.source),
                ]
            })
        out.append("")
        return out
    }

    private func constants() -> [String] {
        var out = ["## Constants", ""]
        out += table(
            ["constant", "value", "unit", "meaning", "source"],
            spec.constants.map { c in
                [code(c.name), code(c.value.description), cell(c.unit), cell(c.meaning), cell(c.source)]
            })
        out.append("")
        return out
    }

    private func jsonSchemas() -> [String] {
        [
            "## JSON Schemas", "",
            "`Goldens/jsonschema/<collection>.<write|stored>.schema.json` (draft 2020-12) describe each document in "
                + "the canonical typed JSON (Goldens/FORMAT.md). Choices made there:",
            "",
            "- A double accepts any JSON number: JSON Schema counts `5.0` as an integer, so it cannot keep a double "
                + "apart from an integer. The canonical reader (`CanonicalJSON`) and the generated Swift decoders do: "
                + "an integer field rejects `1.5`, a double field rejects `5`.",
            "- Fields the schema does not name are allowed (`additionalProperties: true`): a reader keeps fields of a "
                + "newer version. A misspelt field therefore fails only because the real field is then missing.",
            "- Write form = a full write: every `required` field is present (`null` when nullable and without a value), "
                + "`updatedAt` is `{\"$serverTimestamp\": true}`, `storageBytes` an integer or `{\"$increment\": n}`.",
            "- Stored form: sentinels resolved; the required keys are those a reader cannot do without (non-nullable "
                + "fields without a default), as in the generated decoders.",
            "- `maxChars` is `maxLength` (code points, pins.tsv `charCount`); `maxBytes` of bytes is a `maxLength` on "
                + "the base64 text (4 × ⌈n / 3⌉ characters, so up to two bytes more pass the JSON Schema; the Swift "
                + "decoder counts bytes).",
            "- A settings entry's `v` is typed by its key; entries of unknown keys accept any `v`.",
            "- A record with `deleted` true is a tombstone (§5.4): it holds only the common fields, with `deletedAt` "
                + "a timestamp; the record's own required fields are required of a live document only, where "
                + "`deletedAt` is null.",
            "",
        ]
    }

    /// What `Goldens/firestore.rules` checks, and what the rules language cannot check, with where
    /// that is checked instead.
    private func securityRules() -> [String] {
        let blobs = spec.blobs.map { blob -> String in
            let collection = spec.collections.first { $0.documentType == blob.record }?.name ?? blob.record
            return "`\(collection).\(blob.mapField)`"
        }.joined(separator: ", ")
        return [
            "## Security rules", "",
            "`Goldens/firestore.rules` is generated from these tables. On every write of a record with the common "
                + "fields it checks `updatedAt == request.time`, the schema version, the tombstone shape (only the "
                + "common fields, with a `deletedAt`), no `deletedAt` on a live record (limit `nullUnless`), and each "
                + "field's `maxChars`, `maxBytes` and `maxItems`. On the blob maps (\(blobs)) it checks everything it "
                + "can see of reserve → upload → mark (schema §5.1) and of the cap (§6):",
            "",
            "- a change of a record's counted `gzBytes` (a reservation, a release, a tombstone) only in a batch "
                + "whose profile `storageBytes` moves by exactly that change and whose `storageRef` names the "
                + "record; the profile's `storageBytes` moves only so, and stays at most `storageCapBytes` unless "
                + "the token's Pro claim says otherwise;",
            "- shared content counted once: a map file's content object is keyed by its `contentHash`, so a "
                + "reservation or a tombstone of content another live map file holds moves no `storageBytes` and "
                + "names that map file in `storageRef` instead; the rule reads it and requires it live with the "
                + "same `contentHash`;",
            "- `uploaded` false when a blob map is written with new content, and true only in a later write that "
                + "changes nothing else of the map (reserve and mark in one batch is refused).",
            "",
            "What the rules language cannot check, and where it is checked instead:",
            "",
            "| check the seed asks for | why the rules cannot | checked by |",
            "| --- | --- | --- |",
            "| the object is in Cloud Storage, of `gzBytes` bytes, before `uploaded` turns true (§5.1, §2 Storage "
                + "objects) | Firestore rules cannot read Cloud Storage (that is the Storage rules' side, not "
                + "generated here) | the engine (upload before mark) and the scenarios `reserve-upload-mark`, "
                + "`upload-crashed-then-retry` |",
            "| a reservation does not count content another live record already counts (§2, §5.4) | knowing that "
                + "another record holds the content takes a query on `contentHash`; rules read only documents they "
                + "can name | the engine's query, the scenario `map-file-shared-content` (an over-count only "
                + "charges the user; it never lets a blob past the cap) |",
            "| one blob-size change per batch, a tombstone's in its own batch (§5.1, §5.4) | rules judge each write "
                + "and cannot list the other writes of its batch | `validate --form write --format rest` on a "
                + "`CommitRequest` or "
                + "`BatchWriteRequest` (`schema.blob-batch`) |",
            "",
            "`Tests/VultureFirestoreTests/BlobMapRulesTests.swift` and `SecurityRulesTests.swift` hold the rules to "
                + "a table of allowed and denied requests on the Firestore emulator.",
            "",
        ]
    }

    private func operations() -> [String] {
        var out = ["## Operations of the testee protocol", ""]
        out.append(
            "What a conformance case asks an implementation (`Spec/operations.tsv`; the protocol page "
                + "`Goldens/protocol/README.md` explains the messages, JSON Schemas in `Goldens/protocol/operations/`)."
        )
        out.append("")
        let tables = ProtocolTablesEmitter(spec: spec)
        out += tables.operations(linkPrefix: "protocol/operations/")
        out.append("")
        out += ["### Fixtures", ""]
        out += tables.fixtures(linkPrefix: "protocol/operations/").map {
            $0.replacingOccurrences(of: "](../SCHEMA.md#", with: "](#")
        }
        out.append("")
        return out
    }

    private func rules() -> [String] {
        var out = ["## Rule ids and error codes", ""]
        out += ProtocolTablesEmitter(spec: spec).rules()
        out.append("")
        return out
    }

    private func pinned() -> [String] {
        var out = ["## Pinned choices", ""]
        out.append(
            "Every decision this project made itself (`Spec/pins.tsv`), and the rows that carry one. A conforming "
                + "implementation follows these; they are not in the seed documents. Kind `schema`: the pin states the "
                + "schema precisely where the seeds leave it implicit, and cases resting on it are `required.*`; "
                + "`choice`: the seeds are silent and this project chose, and `open`: an open question (the sources "
                + "disagree or the value is unverified) — cases resting on either are `recommended.*` (a case names "
                + "its pins in its `pins` member).")
        out.append("")
        out += table(
            ["pin", "kind", "subject", "choice", "reason", "source"],
            spec.pins.map { p in
                ["**\(p.name)**", p.kind.rawValue, cell(p.subject), cell(p.choice), cell(p.reason), cell(p.source)]
            })
        out.append("")
        let open = spec.pins.filter { $0.kind == .open }
        if !open.isEmpty {
            out += ["### Open questions", ""]
            for p in open { out.append("- **\(p.name)** (\(p.subject)): \(p.choice) Why: \(p.reason)") }
            out.append("")
        }
        let pinnedIds = spec.idRules.filter(\.isPinned)
        if !pinnedIds.isEmpty {
            out.append(
                "Id rules marked pinned in `Spec/ids.tsv`: "
                    + pinnedIds.map { "`\($0.record).\($0.variant)`" }.joined(separator: ", ") + ".")
            out.append("")
        }
        return out
    }
}
