import Foundation
import VultureSchemaCore

/// Emits `Sources/VultureSyncSchema/Generated/SchemaTables.swift`: `SyncSchema.vulture`, literal
/// descriptor instances of every table, split into one `static let` per owner or table.
struct SwiftTablesEmitter {
    let spec: SchemaSpec
    var types: SwiftTypes { SwiftTypes(spec: spec) }

    static let path = "Sources/VultureSyncSchema/Generated/SchemaTables.swift"
    static let sources = [
        "collections.tsv", "fields.tsv", "enums.tsv", "settings-keys.tsv", "units.tsv",
    ]

    func file() -> GeneratedFile {
        var out: [String] = []
        out += SwiftText.lineComment(SchemaGenerator.doNotEdit(Self.sources))
        out.append("")
        out.append("import VultureSchemaCore")
        out.append("")
        out.append("extension SyncSchema {")
        out += SwiftText.docComment(
            "The Vulture sync schema's collections, fields, enums, settings keys and unit tables as descriptors, "
                + "so that nothing reads `Spec/` at run time. Fields are in table order, common fields under "
                + "`CommonFields`. Constants, limits, Storage objects, id rules and merge rules are typed Swift in "
                + "`SchemaFacts.swift`; `DocumentValidation.swift` checks documents against these tables in straight "
                + "lines.",
            indent: "    ")
        out.append("    public static let vulture = SyncSchema(")
        out.append("        collections: vultureCollections,")
        out.append("        fields: vultureFields,")
        out.append("        enums: vultureEnums,")
        out.append("        settingsKeys: vultureSettingsKeys,")
        out.append("        unitTables: vultureUnitTables")
        out.append("    ).markedAsGeneratedFromSpec()")
        out += collections()
        out += fields()
        out += enums()
        out += settingsKeys()
        out += unitTables()
        out.append("}")
        return GeneratedFile(relativePath: Self.path, contents: out.joined(separator: "\n") + "\n")
    }

    private func arrayLet(_ name: String, _ type: String, _ elements: [[String]], doc: String) -> [String] {
        var out = [""]
        out += SwiftText.docComment(doc, indent: "    ")
        if elements.isEmpty {
            out.append("    static let \(name): [\(type)] = []")
            return out
        }
        out.append("    static let \(name): [\(type)] = [")
        for element in elements {
            out += element.map { "        " + $0 }
        }
        // swift format keeps no trailing comma after a lone multi-line element.
        if elements.count == 1, elements[0].count > 1, out[out.count - 1].hasSuffix(",") {
            out[out.count - 1].removeLast()
        }
        out.append("    ]")
        return out
    }

    /// `Type(` + one argument per line + `),`, laid out as `swift format` does at the element indent
    /// (eight spaces): a long string moves to its own line, a long list is packed after its opening bracket.
    private func call(_ type: String, _ args: [(String, String?)]) -> [String] {
        let present = args.compactMap { label, value in value.map { (label, $0) } }
        var lines = ["\(type)("]
        for (index, (label, value)) in present.enumerated() {
            let comma = index == present.count - 1 ? "" : ","
            lines += SwiftLayout.argument(label: label, value: value, comma: comma, indent: 12).map {
                String($0.dropFirst(8))
            }
        }
        lines.append("),")
        return lines
    }

    private func optionalString(_ text: String?) -> String? { text.map(SwiftText.string) }

    private func collections() -> [String] {
        let elements = spec.collections.map { c in
            call(
                "SchemaCollection",
                [
                    ("name", SwiftText.string(c.name)), ("pathTemplate", SwiftText.string(c.pathTemplate)),
                    ("documentType", SwiftText.string(c.documentType)), ("idRecord", SwiftText.string(c.idRecord)),
                    ("hasCommonFields", c.hasCommonFields ? "true" : "false"),
                    ("pushOrder", c.pushOrder.map { SwiftText.integer($0) } ?? "nil"),
                ])
        }
        return arrayLet(
            "vultureCollections", "SchemaCollection", elements, doc: "`Spec/collections.tsv`, in table order.")
    }

    private func fields() -> [String] {
        var out: [String] = []
        let owners = types.structOwners
        for owner in owners {
            let elements = spec.fields(of: owner).map { f in
                call(
                    "SchemaField",
                    [
                        ("owner", SwiftText.string(f.owner)), ("name", SwiftText.string(f.name)),
                        ("type", types.typeExpression(f.type)),
                        ("isRequired", f.presence == .required ? "true" : "false"),
                        ("isNullable", f.isNullable ? "true" : "false"),
                        ("defaultValue", f.defaultValue.map(SwiftText.firestoreValue)),
                        ("unit", optionalString(f.unit?.rawValue)),
                        ("limits", types.limitsExpression(f.limits)),
                        ("writeAs", f.writeAs == .value ? nil : "." + f.writeAs.rawValue),
                        ("androidColumn", optionalString(f.androidColumn)),
                        ("iosAttribute", optionalString(f.iosAttribute)),
                        ("since", optionalString(f.since)),
                        ("meaning", SwiftText.string(f.meaning)), ("source", SwiftText.string(f.source)),
                    ])
            }
            out += arrayLet("fieldsOf\(owner)", "SchemaField", elements, doc: "`Spec/fields.tsv` rows of `\(owner)`.")
        }
        out.append("")
        out += SwiftText.docComment("`Spec/fields.tsv`, in table order.", indent: "    ")
        out.append("    static let vultureFields: [SchemaField] = [")
        for owner in owners { out.append("        fieldsOf\(owner),") }
        out.append("    ].flatMap { $0 }")
        return out
    }

    private func enums() -> [String] {
        let elements: [[String]] = spec.enums.map { e in
            var lines = ["SchemaEnum(", "    name: \(SwiftText.string(e.name)),", "    cases: ["]
            for c in e.cases {
                var args = "name: \(SwiftText.string(c.name)), cloudValue: \(SwiftText.firestoreValue(c.cloudValue))"
                if let ios = c.iosValue { args += ", iosValue: \(SwiftText.integer(ios))" }
                lines.append("        SchemaEnumCase(\(args)),")
            }
            lines += ["    ]", "),"]
            return lines
        }
        return arrayLet("vultureEnums", "SchemaEnum", elements, doc: "`Spec/enums.tsv`, one entry per enum.")
    }

    private func settingsKeys() -> [String] {
        let elements = spec.settingsKeys.map { k in
            var range: String?
            if case .range(let lower, let upper) = k.allowed {
                range = "\(SwiftText.double(lower))...\(SwiftText.double(upper))"
            }
            return call(
                "SchemaSettingsKey",
                [
                    ("key", SwiftText.string(k.key)), ("type", types.typeExpression(k.type)),
                    ("isNullable", k.isNullable ? "true" : "false"),
                    ("defaultValue", SwiftText.firestoreValue(k.defaultValue)), ("range", range),
                    ("unit", optionalString(k.unit?.rawValue)),
                    ("iosKeys", "[" + k.iosKeys.map(SwiftText.string).joined(separator: ", ") + "]"),
                    ("iosMapping", "." + k.iosMapping.rawValue),
                ])
        }
        return arrayLet(
            "vultureSettingsKeys", "SchemaSettingsKey", elements, doc: "`Spec/settings-keys.tsv`, in table order.")
    }

    private func unitTables() -> [String] {
        let elements = spec.unitTables.map { t in
            [
                "SchemaUnitTable(name: \(SwiftText.string(t.name)), units: ["
                    + t.units.map { SwiftText.string($0.id) }.joined(separator: ", ") + "]),"
            ]
        }
        return arrayLet(
            "vultureUnitTables", "SchemaUnitTable", elements, doc: "`Spec/units.tsv`, unit ids in iOS index order.")
    }
}
