import VultureSchemaCore

/// Emits `Sources/VultureSyncSchema/Generated/SchemaFacts.swift`: the facts the runtime computes
/// with, as typed Swift — constants and limits as `static let`s, the collections with their push
/// order, the Storage object kinds, the id rule variants and the merge rules with a rule kind per
/// distinct `rule` cell (so a new kind in `Spec/merge-rules.tsv` fails to compile until the merge
/// implements it). Nothing in the runtime repeats one of these values by hand (a test checks).
struct SwiftFactsEmitter {
    let spec: SchemaSpec

    static let path = "Sources/VultureSyncSchema/Generated/SchemaFacts.swift"
    static let sources = [
        "constants.tsv", "limits.tsv", "collections.tsv", "blobs.tsv", "fields.tsv", "ids.tsv", "merge-rules.tsv",
    ]

    func file() -> GeneratedFile {
        var out = SwiftText.lineComment(SchemaGenerator.doNotEdit(Self.sources))
        out += constants()
        out += limits()
        out += collections()
        out += storageObjects()
        out += idRules()
        out += mergeRules()
        return GeneratedFile(relativePath: Self.path, contents: out.joined(separator: "\n") + "\n")
    }

    /// `/// meaning` + `/// Unit: u. Source: s.` lines at four spaces.
    private func doc(_ meaning: String, unit: String?, source: String) -> [String] {
        var facts: [String] = []
        if let unit { facts.append("Unit: \(unit).") }
        facts.append("Source: \(source).")
        return SwiftText.docComment(meaning, indent: "    ") + ["    ///"]
            + SwiftText.docComment(facts.joined(separator: " "), indent: "    ")
    }

    private func swiftLiteral(_ value: FirestoreValue) -> (type: String, literal: String) {
        switch value {
        case .integer(let i): ("Int64", SwiftText.integer(i))
        case .double(let d): ("Double", SwiftText.double(d))
        case .boolean(let b): ("Bool", b ? "true" : "false")
        case .string(let s): ("String", SwiftText.string(s))
        default: ("FirestoreValue", SwiftText.firestoreValue(value))
        }
    }

    private func constants() -> [String] {
        var out = ["", "/// The named parameters of `Spec/constants.tsv`, typed."]
        out.append("public enum SchemaConstants {")
        for (index, c) in spec.constants.enumerated() {
            if index > 0 { out.append("") }
            out += doc(c.meaning, unit: c.unit, source: c.source)
            let (type, literal) = swiftLiteral(c.value)
            out.append("    public static let \(SwiftText.identifier(c.name)): \(type) = \(literal)")
        }
        out.append("}")
        return out
    }

    private func limits() -> [String] {
        var out = ["", "/// The caps of `Spec/limits.tsv`: integers in the unit each names."]
        out.append("public enum SchemaLimits {")
        for (index, l) in spec.limits.enumerated() {
            if index > 0 { out.append("") }
            out += doc(l.meaning, unit: l.unit, source: l.source)
            out.append("    public static let \(SwiftText.identifier(l.name)): Int64 = \(SwiftText.integer(l.value))")
        }
        out.append("}")
        return out
    }

    /// `case a = "a"` lines are written `case a` (the raw value is the name).
    private func caseLines(_ names: [String], docs: [String]) -> [String] {
        var out: [String] = []
        for (index, name) in names.enumerated() {
            if index > 0 { out.append("") }
            out += SwiftText.docComment(docs[index], indent: "    ")
            out.append("    case \(SwiftText.identifier(name))")
        }
        return out
    }

    /// A `public var NAME: TYPE { switch self { case .x: v … } }` property.
    private func property(_ name: String, _ type: String, doc: String, _ values: [(String, String)]) -> [String] {
        var out = [""]
        out += SwiftText.docComment(doc, indent: "    ")
        out.append("    public var \(name): \(type) {")
        out.append("        switch self {")
        for (caseName, value) in values {
            out.append("        case .\(SwiftText.identifier(caseName)): \(value)")
        }
        out.append("        }")
        out.append("    }")
        return out
    }

    private func optional(_ text: String?) -> String { text.map(SwiftText.string) ?? "nil" }

    private func collections() -> [String] {
        let names = spec.collections.map(\.name)
        var out = ["", "/// The collections of `Spec/collections.tsv` (schema §2), in table order."]
        out.append("public enum SyncCollection: String, CaseIterable, Sendable {")
        out += caseLines(names, docs: spec.collections.map(\.meaning))
        out += property(
            "pathTemplate", "String", doc: "The document path template (`users/{uid}/flights/{flightId}`).",
            spec.collections.map { ($0.name, SwiftText.string($0.pathTemplate)) })
        out += property(
            "documentType", "String", doc: "The document type's name in `Spec/fields.tsv` (`FlightDocument`).",
            spec.collections.map { ($0.name, SwiftText.string($0.documentType)) })
        out += property(
            "hasCommonFields", "Bool", doc: "Whether the documents carry the common fields.",
            spec.collections.map { ($0.name, $0.hasCommonFields ? "true" : "false") })
        out += property(
            "pushOrder", "Int?", doc: "Position in a push (1 first); nil when not pushed on its own (schema §5.1).",
            spec.collections.map { ($0.name, $0.pushOrder.map { SwiftText.integer($0) } ?? "nil") })
        out += paths()
        let order = spec.collections.filter { $0.pushOrder != nil }.sorted { $0.pushOrder! < $1.pushOrder! }
        out.append("")
        out += SwiftText.docComment(
            "The collections a push walks, in order (schema §5.1: flights after the tasks they name).",
            indent: "    ")
        out.append("    public static let pushOrder: [SyncCollection] = [")
        out.append("        " + order.map { "." + SwiftText.identifier($0.name) }.joined(separator: ", ") + ",")
        out.append("    ]")
        out.append("}")
        return out
    }

    /// `template` as the body of a Swift string literal, each `{name}` an interpolation of `fill[name]`
    /// (the templates' literal text is path characters, validated by the spec reader).
    private func interpolated(_ segments: [Substring], fill: [String: String]) -> String {
        segments.map { segment in
            if segment.hasPrefix("{"), segment.hasSuffix("}"), let name = fill[String(segment.dropFirst().dropLast())] {
                return "\\(\(name))"
            }
            return String(SwiftText.string(String(segment)).dropFirst().dropLast())
        }.joined(separator: "/")
    }

    /// `enum MapField`: the field names every kind's blob map type has (the `Spec/fields.tsv` rows of
    /// each `record.mapField` map type, in the first type's order), for code that handles any kind.
    private func blobMapFields() -> [String] {
        let mapTypes: [String] = spec.blobs.compactMap { blob in
            if case .map(let owner)? = spec.field(at: blob.mapField, in: blob.record)?.type { return owner }
            return nil
        }
        guard let first = mapTypes.first else { return [] }
        let shared = spec.allFields(of: first).filter { f in
            mapTypes.allSatisfy { owner in spec.allFields(of: owner).contains { $0.name == f.name } }
        }
        return SwiftText.fieldNameEnum(
            "MapField", shared,
            doc: "The field names every blob map has (" + mapTypes.map { "`\($0)`" }.joined(separator: ", ")
                + ", `Spec/fields.tsv`), for code that handles the map of any kind under `mapField`.")
    }

    /// The path builders: `documentPath(uid:id:)`, `parentPath(uid:)`, `profilePath(uid:)`, filled
    /// from the templates (`users/{uid}` or `users/{uid}/COLLECTION/{ID}`, checked by the spec reader).
    private func paths() -> [String] {
        var document: [(String, String)] = []
        var parent: [(String, String)] = []
        for c in spec.collections {
            let segments = c.pathTemplate.split(separator: "/")
            if segments.count == 2 {
                document.append((c.name, "\"" + interpolated(segments, fill: ["uid": "uid"]) + "\""))
                parent.append((c.name, "\"\""))
            } else {
                let prefix = interpolated(Array(segments.prefix(3)), fill: ["uid": "uid"])
                document.append((c.name, "\"" + prefix + "/\\(id)\""))
                parent.append((c.name, "\"" + interpolated(Array(segments.prefix(2)), fill: ["uid": "uid"]) + "\""))
            }
        }
        var out: [String] = []
        out.append("")
        out += SwiftText.docComment(
            "The path of document `id` of this collection for `uid`: ``pathTemplate`` with `{uid}` and its last "
                + "segment filled (`users/u1/flights/\\(id)`; settings' id is `SchemaConstants.settingsDocumentId`). "
                + "The profile's path is `users/{uid}`, whatever `id`. Neither value is checked: see `DocumentIds`.",
            indent: "    ")
        out.append("    public func documentPath(uid: String, id: String) -> String {")
        out.append("        switch self {")
        for (name, value) in document { out.append("        case .\(SwiftText.identifier(name)): \(value)") }
        out.append("        }")
        out.append("    }")
        out.append("")
        out += SwiftText.docComment(
            "The parent a query of this collection names (`users/{uid}`, the `parent` of a `runQuery` whose "
                + "collection id is `rawValue`); the empty string, the database root, for `users` itself.",
            indent: "    ")
        out.append("    public func parentPath(uid: String) -> String {")
        out.append("        switch self {")
        for (name, value) in parent { out.append("        case .\(SwiftText.identifier(name)): \(value)") }
        out.append("        }")
        out.append("    }")
        if let profile = spec.collections.first(where: { $0.pathTemplate.split(separator: "/").count == 2 }) {
            out.append("")
            out += SwiftText.docComment(
                "The profile document's path, `\(profile.pathTemplate)` (the parent of every other collection).",
                indent: "    ")
            out.append("    public static func profilePath(uid: String) -> String {")
            out.append(
                "        \"" + interpolated(profile.pathTemplate.split(separator: "/"), fill: ["uid": "uid"]) + "\"")
            out.append("    }")
        }
        return out
    }

    private func storageObjects() -> [String] {
        var out = ["", "/// The kinds of Cloud Storage object of `Spec/blobs.tsv` (schema §2 Storage objects)."]
        out.append("public enum StorageObjectKind: String, CaseIterable, Sendable {")
        out += caseLines(spec.blobs.map(\.name), docs: spec.blobs.map(\.meaning))
        out += property(
            "pathTemplate", "String", doc: "The object path template (`users/{uid}/igc/{flightId}.igc.gz`).",
            spec.blobs.map { ($0.name, SwiftText.string($0.pathTemplate)) })
        out += property(
            "recordType", "String", doc: "The document type whose field holds the blob map.",
            spec.blobs.map { ($0.name, SwiftText.string($0.record)) })
        out += property(
            "mapField", "String", doc: "The field of ``recordType`` holding the blob map.",
            spec.blobs.map { ($0.name, SwiftText.string($0.mapField)) })
        out += property(
            "contentType", "String", doc: "The object's content type.",
            spec.blobs.map { ($0.name, SwiftText.string($0.contentType)) })
        out += property(
            "contentEncoding", "String?", doc: "The Content-Encoding header; nil: not set (the app gunzips itself).",
            spec.blobs.map { ($0.name, optional($0.contentEncoding)) })
        out += property(
            "customMetadataKeys", "[String]", doc: "The custom metadata keys the object carries.",
            spec.blobs.map { ($0.name, "[" + $0.customMetadata.map(SwiftText.string).joined(separator: ", ") + "]") })
        out += property(
            "maximumObjectBytes", "Int64", doc: "The rule cap on the stored (gzipped) object, in bytes.",
            spec.blobs.map { ($0.name, SwiftText.integer($0.maxObjectBytes)) })
        out += property(
            "maximumRawBytes", "Int64?", doc: "The cap on the bytes before gzip, in bytes; nil for none.",
            spec.blobs.map { ($0.name, $0.maxRawBytes.map { SwiftText.integer($0) } ?? "nil") })
        out += blobMapFields()
        out.append("}")
        return out
    }

    /// `flight` + `igcBytes` → `flightIgcBytes`.
    static func idRuleCaseName(_ rule: IdRuleSpec) -> String {
        rule.record + rule.variant.prefix(1).uppercased() + rule.variant.dropFirst()
    }

    private func idRules() -> [String] {
        let names = spec.idRules.map(Self.idRuleCaseName)
        var out = ["", "/// How a deterministic id is computed (`Spec/ids.tsv` algorithm)."]
        out.append("public enum DocumentIdAlgorithm: String, CaseIterable, Sendable {")
        out += caseLines(
            IdAlgorithm.allCases.map(\.rawValue),
            docs: [
                "64 lowercase hex characters of SHA-256 (a string is hashed as its UTF-8 bytes).",
                "A new random UUID, lowercase 8-4-4-4-12.", "The input as is.", "The literal input.",
            ])
        out.append("}")
        out += ["", "/// How the `{…}` values of an id input are prepared (`Spec/ids.tsv` normalization)."]
        out.append("public enum DocumentIdNormalization: String, CaseIterable, Sendable {")
        out += caseLines(
            IdNormalization.allCases.map(\.rawValue),
            docs: [
                "Used as stored.",
                "Whitespace trimmed at both ends, then lower-cased with root-locale rules (Kotlin on the JVM).",
                "The value is standard padded Base64 text; its decoded bytes are hashed.",
            ])
        out.append("}")
        out += [
            "", "/// The deterministic id rules of `Spec/ids.tsv` (schema §4), one case per record and variant.",
        ]
        out.append("public enum DocumentIdRule: String, CaseIterable, Sendable {")
        out += caseLines(
            names,
            docs: spec.idRules.map { r in
                r.meaning + " When: \(r.condition)." + (r.isPinned ? " Pinned (Spec/pins.tsv)." : "")
            })
        let pairs = Array(zip(names, spec.idRules))
        out += property(
            "record", "String",
            doc: "The record name (collections.tsv idRule), or the field that keys a Storage object (contentHash).",
            pairs.map { ($0.0, SwiftText.string($0.1.record)) })
        out += property(
            "algorithm", "DocumentIdAlgorithm", doc: "How the id is computed.",
            pairs.map { ($0.0, "." + $0.1.algorithm.rawValue) })
        out += property(
            "inputTemplate", "String?",
            doc: "The input: `{name}` is a field of the record (an enum as its cloud value); nil for none.",
            pairs.map { ($0.0, optional($0.1.input)) })
        out += property(
            "normalization", "DocumentIdNormalization", doc: "How the `{…}` values are prepared.",
            pairs.map { ($0.0, "." + $0.1.normalization.rawValue) })
        out += property(
            "isPinned", "Bool", doc: "Whether this project pins the rule where the seed is silent.",
            pairs.map { ($0.0, $0.1.isPinned ? "true" : "false") })
        out.append("}")
        return out
    }

    private func mergeRules() -> [String] {
        var kinds: [MergeRuleKind] = []
        for rule in spec.mergeRules where !kinds.contains(rule.rule) { kinds.append(rule.rule) }
        var out = [
            "",
            "/// The merge rule kinds `Spec/merge-rules.tsv` uses, one case per distinct `rule` cell in table order:",
            "/// a new kind in the table is a new case, which the merge's exhaustive switch must handle.",
        ]
        out.append("public enum MergeRuleKind: String, CaseIterable, Sendable {")
        out += caseLines(
            kinds.map(\.rawValue),
            docs: kinds.map { kind in spec.mergeRules.first { $0.rule == kind }?.meaning ?? kind.rawValue })
        out.append("}")
        out += ["", "/// Who wins equal rank in a merge rule (`Spec/merge-rules.tsv` tie)."]
        out.append("public enum MergeTie: String, CaseIterable, Sendable {")
        out += caseLines(["server", "local"], docs: ["The document's (cloud) value.", "The local value."])
        out.append("}")
        out += ["", "/// One row of `Spec/merge-rules.tsv` (schema §5.3–§5.5)."]
        out.append("public struct MergeRule: Sendable, Hashable {")
        out += [
            "    /// The document type, or nil for every document (`*`).",
            "    public let documentType: String?",
            "    /// The field path inside the document (`igc.uploaded`, `values.*`), or nil for every field (`*`).",
            "    public let fieldPath: String?",
            "    /// The rule.",
            "    public let kind: MergeRuleKind",
            "    /// Who wins equal rank; nil when the rule has no tie.",
            "    public let tie: MergeTie?",
            "",
            "    /// A row: document type and field path (nil for `*`), the rule and its tie.",
            "    init(_ documentType: String?, _ fieldPath: String?, _ kind: MergeRuleKind, _ tie: MergeTie?) {",
            "        self.documentType = documentType",
            "        self.fieldPath = fieldPath",
            "        self.kind = kind",
            "        self.tie = tie",
            "    }",
            "",
            "    /// Every row of `Spec/merge-rules.tsv`, in table order.",
            "    public static let all: [MergeRule] = [",
        ]
        for r in spec.mergeRules {
            let document = r.document.map(SwiftText.string) ?? "nil"
            let field = r.fieldPath.map(SwiftText.string) ?? "nil"
            let tie = r.tie.map { "." + $0.rawValue } ?? "nil"
            out.append("        MergeRule(\(document), \(field), .\(r.rule.rawValue), \(tie)),")
        }
        out.append("    ]")
        out.append("}")
        return out
    }
}
