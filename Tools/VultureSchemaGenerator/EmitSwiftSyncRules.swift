import VultureSchemaCore

/// Emits `Sources/VultureSyncSchema/Generated/SyncRules.swift`: the rows of `Spec/sync-rules.tsv`
/// as a typed `SyncRule` enum (area, kind, subject and the typed value of each row, parameters as
/// references to `SchemaLimits` / `SchemaConstants`), and the merge dispatch of `Spec/merge-rules.tsv`:
/// `MergeRule.rule(for:fieldPath:)`, the row governing a field path of a collection's documents, and
/// `MergeRule.governsPaths(below:in:)`, where the merge descends into a map.
struct SwiftSyncRulesEmitter {
    let spec: SchemaSpec

    static let path = "Sources/VultureSyncSchema/Generated/SyncRules.swift"
    static let sources = ["sync-rules.tsv", "merge-rules.tsv", "collections.tsv", "limits.tsv", "constants.tsv"]

    func file() -> GeneratedFile {
        var out = SwiftText.lineComment(SchemaGenerator.doNotEdit(Self.sources))
        out += vocabularies()
        out += rules()
        out += mergeDispatch()
        return GeneratedFile(relativePath: Self.path, contents: out.joined(separator: "\n") + "\n")
    }

    private func enumeration(_ name: String, doc: String, cases: [(String, String)]) -> [String] {
        var out = [""] + SwiftText.docComment(doc, indent: "")
        out.append("public enum \(name): String, CaseIterable, Sendable {")
        for (index, (caseName, caseDoc)) in cases.enumerated() {
            if index > 0 { out.append("") }
            out += SwiftText.docComment(caseDoc, indent: "    ")
            out.append("    case \(SwiftText.identifier(caseName))")
        }
        out.append("}")
        return out
    }

    private func vocabularies() -> [String] {
        var out = enumeration(
            "SyncRuleArea", doc: "The part of the engine a row of `Spec/sync-rules.tsv` governs.",
            cases: [
                ("local", "The pilot's changes on the device: imports, saves, deletes, opens (schema §2, §5.4)."),
                ("merge", "What the per-field merge reads besides the three documents (schema §5.3, §5.5)."),
                ("trim", "The recents trim (schema §5.3, §5.5)."),
                ("tombstones", "Tombstones, their Storage objects and the purge (schema §5.4)."),
                ("duplicates", "The R4 duplicate pass (schema §4)."),
                ("push", "Push (schema §5.1)."),
                ("profile", "The profile document: its creation, platforms, lastSeenAt, storageBytes (schema §2, §6)."),
                ("pull", "Pull (schema §5.2)."),
                ("errors", "Failed requests: retries, the daily quota pause, Storage failures (schema §3, §5.1)."),
            ])
        out += enumeration(
            "SyncRuleKind", doc: "What a row of `Spec/sync-rules.tsv` states.",
            cases: [
                ("sequence", "Steps in order (``SyncRule/names``)."),
                ("criterion", "Two documents agree on the subject field (``SyncRule/match``)."),
                ("order", "One key of the area's sort, rows in table order (``SyncRule/direction``); null sorts last."),
                ("rankBy", "The integer field ranking the subject's merge rule (``SyncRule/rankFieldPath``)."),
                ("parameter", "An integer (``SyncRule/parameter``)."),
                ("keyedBy", "What the subject value is kept per (``SyncRule/names``)."),
                ("fact", "A rule the runtime follows as written; the vectors or the scenarios pin it."),
            ])
        out += enumeration(
            "SyncFieldMatch", doc: "How a criterion compares a field of two documents.",
            cases: [
                ("equal", "Equal by typed value; null (or absent) on both sides counts as equal."),
                ("equalNonNull", "Both set (not null, not absent) and equal by typed value."),
            ])
        out += enumeration(
            "SyncSortDirection", doc: "The direction of one sort key; null (or absent) sorts last either way.",
            cases: [
                ("ascending", "Smallest first (timestamps: earliest; ids: UTF-8 byte order)."),
                ("descending", "Largest first (timestamps: newest)."),
            ])
        out += [
            "",
            "/// The field a sync rule is about: a document type (or `CommonFields`) and a path inside it.",
            "public struct SyncRuleSubject: Sendable, Hashable {",
            "    /// The path naming the document id (Firestore's `__name__`), not a field.",
            "    public static let documentIdPath = \(SwiftText.string(SyncRuleSubject.documentId))",
            "",
            "    /// `FlightDocument`, `CommonFields`, …",
            "    public let documentType: String",
            "    /// A field path as in `Spec/fields.tsv` (`summary.takeoffAt`), or ``documentIdPath``.",
            "    public let fieldPath: String",
            "",
            "    /// Whether the subject is the document id rather than a field.",
            "    public var isDocumentId: Bool { fieldPath == Self.documentIdPath }",
            "",
            "    init(_ documentType: String, _ fieldPath: String) {",
            "        self.documentType = documentType",
            "        self.fieldPath = fieldPath",
            "    }",
            "}",
        ]
        return out
    }

    /// A `public var NAME: TYPE { switch self { … default: DEFAULT } }` over the rows with a value.
    private func property(_ name: String, _ type: String, doc: String, _ values: [(String, String)], default d: String)
        -> [String]
    {
        var out = [""] + SwiftText.docComment(doc, indent: "    ")
        out.append("    public var \(name): \(type) {")
        if values.isEmpty {
            out.append("        \(d)")
            out.append("    }")
            return out
        }
        out.append("        switch self {")
        for (caseName, value) in values {
            out.append("        case .\(SwiftText.identifier(caseName)): \(value)")
        }
        if values.count < spec.syncRules.count { out.append("        default: \(d)") }
        out.append("        }")
        out.append("    }")
        return out
    }

    private func rules() -> [String] {
        let rows = spec.syncRules
        var out = [
            "",
            "/// The rows of `Spec/sync-rules.tsv`, one case per row in table order: push and pull order, what the merge",
            "/// reads besides the three documents, the recents trim, tombstones and their purge, the R4 duplicate pass",
            "/// (schema §4, §5). The engine reads the rows of an area and kind with ``rows(_:_:)``.",
            "public enum SyncRule: String, CaseIterable, Sendable {",
        ]
        for (index, r) in rows.enumerated() {
            if index > 0 { out.append("") }
            out += SwiftText.docComment(r.meaning, indent: "    ")
            out.append("    ///")
            out += SwiftText.docComment(
                "Area \(r.area.rawValue), \(r.kind.rawValue)\(r.subject.map { " of `\($0)`" } ?? ""). Source: \(r.source).",
                indent: "    ")
            out.append("    case \(SwiftText.identifier(r.name))")
        }
        out += property(
            "area", "SyncRuleArea", doc: "The part of the engine the row governs.",
            rows.map { ($0.name, "." + $0.area.rawValue) }, default: "nil")
        out += property(
            "kind", "SyncRuleKind", doc: "What the row states.", rows.map { ($0.name, "." + $0.kind.rawValue) },
            default: "nil")
        out += property(
            "subject", "SyncRuleSubject?", doc: "The field the rule is about; nil for none.",
            rows.compactMap { r in
                r.subject.map {
                    (r.name, "SyncRuleSubject(\(SwiftText.string($0.owner)), \(SwiftText.string($0.path)))")
                }
            }, default: "nil")
        out += property(
            "names", "[String]",
            doc: "The steps of a `sequence` row, or what a `keyedBy` row keeps its value per; empty otherwise.",
            rows.compactMap { r in
                guard case .array(let items)? = r.value else { return nil }
                let names = items.compactMap { if case .string(let s) = $0 { SwiftText.string(s) } else { nil } }
                return (r.name, "[" + names.joined(separator: ", ") + "]")
            }, default: "[]")
        out += property(
            "match", "SyncFieldMatch?", doc: "How a `criterion` row compares; nil for other kinds.",
            rows.filter { $0.kind == .criterion }.map { ($0.name, "." + ($0.word ?? "")) }, default: "nil")
        out += property(
            "direction", "SyncSortDirection?", doc: "The direction of an `order` row; nil for other kinds.",
            rows.filter { $0.kind == .order }.map { ($0.name, "." + ($0.word ?? "")) }, default: "nil")
        out += property(
            "rankFieldPath", "String?", doc: "The integer field (a path in the same document) a `rankBy` row names.",
            rows.filter { $0.kind == .rankBy }.map { ($0.name, SwiftText.string($0.word ?? "")) }, default: "nil")
        out += property(
            "parameter", "Int64?",
            doc: "The integer of a `parameter` row (a literal or the limit or constant it names).",
            rows.filter { $0.kind == .parameter }.compactMap { r in spec.syncRuleParameter(r).map { (r.name, $0.swift) }
            },
            default: "nil")
        out += [
            "",
            "    /// The rows of `area` and `kind`, in table order (an `order` area's sort keys, a pass's criteria, …).",
            "    public static func rows(_ area: SyncRuleArea, _ kind: SyncRuleKind) -> [SyncRule] {",
            "        allCases.filter { $0.area == area && $0.kind == kind }",
            "    }",
            "}",
        ]
        return out
    }

    /// `MergeRule("FlightDocument", "igc", .blobMapNeverDropped, .server)`.
    private func ruleLiteral(_ r: MergeRuleSpec) -> String {
        let document = r.document.map(SwiftText.string) ?? "nil"
        let field = r.fieldPath.map(SwiftText.string) ?? "nil"
        return "MergeRule(\(document), \(field), .\(r.rule.rawValue), \(r.tie.map { "." + $0.rawValue } ?? "nil"))"
    }

    /// The lines returning `r` when the path matches it: `case "x": return …` for an exact path, an
    /// `if` over the segments for a path with `*` (the path is split only where such a row is: the
    /// merge asks for the rule of every field it visits).
    private func matchLines(_ rules: [MergeRuleSpec], indent: String) -> [String] {
        var out: [String] = []
        let exact = rules.filter { !($0.fieldPath ?? "").split(separator: ".").contains("*") }
        let patterns = rules.filter { ($0.fieldPath ?? "").split(separator: ".").contains("*") }
        if !exact.isEmpty {
            out.append(indent + "switch fieldPath {")
            for r in exact {
                out.append(indent + "case \(SwiftText.string(r.fieldPath ?? "")):")
                out.append(indent + "    return \(ruleLiteral(r))")
            }
            out.append(indent + "default: break")
            out.append(indent + "}")
        }
        if !patterns.isEmpty {
            out.append(indent + "let segments = fieldPath.split(separator: \".\", omittingEmptySubsequences: false)")
        }
        for r in patterns {
            let segments = (r.fieldPath ?? "").split(separator: ".", omittingEmptySubsequences: false)
            var conditions = ["segments.count == \(segments.count)"]
            for (i, s) in segments.enumerated() where s != "*" {
                conditions.append("segments[\(i)] == \(SwiftText.string(String(s)))")
            }
            out.append(indent + "if \(conditions.joined(separator: ", ")) {")
            out.append(indent + "    return \(ruleLiteral(r))")
            out.append(indent + "}")
        }
        return out
    }

    private func mergeDispatch() -> [String] {
        let fieldRules = spec.mergeRules.filter { $0.fieldPath != nil }
        let everyField = spec.mergeRules.first { $0.document == nil && $0.fieldPath == nil }
        var out = [
            "",
            "extension MergeRule {",
            "    /// The row of `Spec/merge-rules.tsv` governing `fieldPath` (`inLogbook`, `igc.uploaded`, `values.sport`) in a",
            "    /// document of `collection`: the document type's own row for the path (a `*` segment matches any one key),",
            "    /// else a row for every document with the path, else the row for every field.",
            "    public static func rule(for collection: SyncCollection, fieldPath: String) -> MergeRule {",
        ]
        var byCollection: [(String, [MergeRuleSpec])] = []
        for c in spec.collections {
            let rows = fieldRules.filter { $0.document == c.documentType }
            if !rows.isEmpty { byCollection.append((c.name, rows)) }
        }
        if !byCollection.isEmpty {
            out.append("        switch collection {")
            for (name, rows) in byCollection {
                out.append("        case .\(SwiftText.identifier(name)):")
                out += matchLines(rows, indent: "            ")
            }
            if byCollection.count < spec.collections.count { out.append("        default: break") }
            out.append("        }")
        }
        out += matchLines(fieldRules.filter { $0.document == nil }, indent: "        ")
        out.append(
            "        return \(everyField.map(ruleLiteral) ?? "MergeRule(nil, nil, .threeWayLatestClientUpdatedAt, .server)")"
        )
        out.append("    }")
        out += [
            "",
            "    /// Whether a row of `Spec/merge-rules.tsv` governs a path below `fieldPath` in a document of `collection`",
            "    /// (`igc` for `igc.uploaded`, `values` for `values.*`): where the merge descends into a map.",
            "    public static func governsPaths(below fieldPath: String, in collection: SyncCollection) -> Bool {",
        ]
        var parents: [(String, [String])] = []
        for c in spec.collections {
            var prefixes: [String] = []
            for r in fieldRules where r.document == nil || r.document == c.documentType {
                let segments = (r.fieldPath ?? "").split(separator: ".").map(String.init)
                for n in 1..<max(segments.count, 1) {
                    let prefix = segments.prefix(n).joined(separator: ".")
                    if !prefix.contains("*"), !prefixes.contains(prefix) { prefixes.append(prefix) }
                }
            }
            if !prefixes.isEmpty { parents.append((c.name, prefixes)) }
        }
        if parents.isEmpty {
            out.append("        false")
        } else {
            out.append("        switch collection {")
            for (name, prefixes) in parents {
                out.append(
                    "        case .\(SwiftText.identifier(name)): return ["
                        + prefixes.map(SwiftText.string).joined(separator: ", ") + "].contains(fieldPath)")
            }
            if parents.count < spec.collections.count { out.append("        default: return false") }
            out.append("        }")
        }
        out.append("    }")
        out.append("}")
        return out
    }
}
