import VultureSchemaCore

/// Emits the Swift side of the registries: the rule-id enums of `Spec/rules.tsv` (`InputRule` in
/// VultureSchemaCore, `SchemaRule` in VultureSyncSchema, `ErrorCode` in VultureConformance), the
/// registry itself (`RuleRegistry`) and the operations of `Spec/operations.tsv` (`TesteeOperation`) in
/// VultureConformance, and the pins of `Spec/pins.tsv` (`SchemaPin`) in VultureSyncSchema. A code an
/// implementation emits is an enum case, so it is in the registry by construction.
struct SwiftRegistryEmitter {
    let spec: SchemaSpec

    static let protocolPath = "Sources/VultureConformance/Generated/ProtocolTables.swift"
    static let pinsPath = "Sources/VultureSyncSchema/Generated/SchemaPins.swift"

    /// The doc comment of each generated rule enum.
    static let enumDocs: [String: String] = [
        "InputRule":
            "The rule a piece of input broke, as a stable id (`json.duplicate-key`, `value.array-in-array`, …): the "
            + "ids of `Spec/rules.tsv` the readers of this module name (canonical JSON, REST JSON, value validation, "
            + "the generated decoders). The ids are part of the suite's contract: the runner prints them, "
            + "invalid-document goldens name them, failure reports quote them (Goldens/protocol/README.md, Rule ids).",
        "SchemaRule":
            "A rule of the schema a document breaks, as a stable id (`schema.type`, `schema.enum`, …): the ids of "
            + "`Spec/rules.tsv` that ``SchemaValidator`` reports. Printed by `vulture-conformance validate`, named by "
            + "invalid-document goldens (schema §2 fields, §5.4 tombstones, Goldens/FORMAT.md forms).",
        "ErrorCode":
            "The other codes of the testee protocol, from `Spec/rules.tsv`: rejections of the id, Storage and gzip "
            + "operations, malformed inputs and fixtures, and the protocol's own errors (Goldens/protocol/README.md).",
    ]

    func files() -> [GeneratedFile] {
        var files: [GeneratedFile] = []
        for (name, directory) in RuleSpec.enums where name != "ErrorCode" {
            var out = SwiftText.lineComment(SchemaGenerator.doNotEdit(["rules.tsv"]))
            out.append("")
            out += ruleEnum(name)
            files.append(
                GeneratedFile(relativePath: "\(directory)/\(name).swift", contents: out.joined(separator: "\n") + "\n"))
        }
        files.append(protocolTables())
        files.append(pins())
        return files
    }

    private func ruleEnum(_ name: String) -> [String] {
        var out = SwiftText.docComment(Self.enumDocs[name] ?? name, indent: "")
        out.append("public enum \(name): String, Sendable, CaseIterable, Codable {")
        var first = true
        for rule in spec.rules {
            guard let c = rule.swiftCases.first(where: { $0.enumName == name }) else { continue }
            if !first { out.append("") }
            first = false
            out += SwiftText.docComment(rule.meaning + " Example: " + rule.example + ".", indent: "    ")
            out.append("    case \(SwiftText.identifier(c.caseName)) = \(SwiftText.string(rule.id))")
        }
        out.append("}")
        return out
    }

    /// `id.flight` → `idFlight`, `settings.fromIOS` → `settingsFromIOS`.
    static func operationCaseName(_ op: String) -> String {
        var out = ""
        for (index, part) in op.split(separator: ".").enumerated() {
            out += index == 0 ? String(part) : part.prefix(1).uppercased() + part.dropFirst()
        }
        return out
    }

    private func protocolTables() -> GeneratedFile {
        var out = SwiftText.lineComment(SchemaGenerator.doNotEdit(["rules.tsv", "operations.tsv"]))
        out.append("")
        out += ruleEnum("ErrorCode")
        out += [
            "",
            "/// One row of `Spec/rules.tsv`: a rule id or error code, what breaks it, where it is explained, an example.",
            "public struct RuleEntry: Sendable, Hashable {",
            "    /// The stable id (`json.syntax`, `id.too-long`).",
            "    public let id: String",
            "    /// What breaks the rule.",
            "    public let meaning: String",
            "    /// Where the schema or format page explains it (`schema §4`, `Goldens/FORMAT.md`).",
            "    public let section: String",
            "    /// An input that breaks it.",
            "    public let example: String",
            "}",
            "",
            "/// Every rule id and error code an implementation, the validator or the runner can name (`Spec/rules.tsv`),",
            "/// shown on the protocol page and in Goldens/SCHEMA.md.",
            "public enum RuleRegistry {",
            "    /// Every row, in table order.",
            "    public static let entries: [RuleEntry] = [",
        ]
        for r in spec.rules {
            out.append("        RuleEntry(")
            let arguments = [("id", r.id), ("meaning", r.meaning), ("section", r.section), ("example", r.example)]
            for (index, (label, value)) in arguments.enumerated() {
                out += SwiftLayout.argument(
                    label: label, value: SwiftText.string(value), comma: index < 3 ? "," : "", indent: 12)
            }
            out.append("        ),")
        }
        out += [
            "    ]",
            "",
            "    /// The row of `id`, or nil when no row has it.",
            "    public static func entry(_ id: String) -> RuleEntry? { byId[id] }",
            "",
            "    private static let byId: [String: RuleEntry] = Dictionary(",
            "        entries.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })",
            "}",
            "",
            "/// The operations of the testee protocol (`Spec/operations.tsv`; Goldens/protocol/README.md, Operations).",
            "public enum TesteeOperation: String, CaseIterable, Sendable {",
        ]
        let names = spec.operations.map { Self.operationCaseName($0.op) }
        for (index, op) in spec.operations.enumerated() {
            if index > 0 { out.append("") }
            out += SwiftText.docComment(op.meaning, indent: "    ")
            out.append("    case \(SwiftText.identifier(names[index])) = \(SwiftText.string(op.op))")
        }
        func property(_ name: String, _ type: String, _ doc: String, _ value: (OperationSpec) -> String) {
            out.append("")
            out += SwiftText.docComment(doc, indent: "    ")
            out.append("    public var \(name): \(type) {")
            out.append("        switch self {")
            for (index, op) in spec.operations.enumerated() {
                let line = "        case .\(SwiftText.identifier(names[index])): \(value(op))"
                let text = value(op)
                if line.count <= SwiftLayout.width {
                    out.append(line)
                } else if text.hasPrefix("["), text.hasSuffix("]") {
                    out.append("        case .\(SwiftText.identifier(names[index])):")
                    out.append("            [")
                    out += SwiftLayout.packed(
                        SwiftLayout.splitTopLevel(String(text.dropFirst().dropLast())), indent: 16)
                    out.append("            ]")
                } else {
                    out.append("        case .\(SwiftText.identifier(names[index])):")
                    out.append("            " + text)
                }
            }
            out.append("        }")
            out.append("    }")
        }
        property(
            "areaTemplate", "String",
            "What `--only` selects: dotted, `{collection}` standing for the input's collection (`schema.{collection}`)."
        ) { SwiftText.string($0.area) }
        property("section", "String", "The schema section the operation tests.") { SwiftText.string($0.section) }
        property("input", "String", "The input's shape in the protocol page's notation.") {
            SwiftText.string($0.input.description)
        }
        property("output", "String", "The output's shape in the protocol page's notation.") {
            SwiftText.string($0.output.description)
        }
        property(
            "errors", "[String]", "The rejections the operation may answer: rule ids, or `prefix.*` for a group."
        ) { "[" + $0.errors.map(SwiftText.string).joined(separator: ", ") + "]" }
        out.append("}")
        return GeneratedFile(relativePath: Self.protocolPath, contents: out.joined(separator: "\n") + "\n")
    }

    private func pins() -> GeneratedFile {
        var out = SwiftText.lineComment(SchemaGenerator.doNotEdit(["pins.tsv"]))
        out += [
            "",
            "/// How firmly a pin holds (`Spec/pins.tsv` kind), and so the level of the cases resting on it.",
            "public enum SchemaPinKind: String, CaseIterable, Sendable {",
            "    /// The pin states the schema precisely where the seeds leave it implicit: cases resting on it are required.",
            "    case schema",
            "    /// The seeds are silent and this project chose: cases resting on it are recommended.",
            "    case choice",
            "    /// An open question (the sources disagree or the value is unverified): cases resting on it are recommended.",
            "    case open",
            "}",
            "",
            "/// The choices this project made where the seeds are silent, cut off or disagree (`Spec/pins.tsv`, listed",
            "/// in Goldens/SCHEMA.md). A case names the pins it rests on; failure reports quote them.",
            "public enum SchemaPin: String, CaseIterable, Sendable {",
        ]
        for (index, pin) in spec.pins.enumerated() {
            if index > 0 { out.append("") }
            out += SwiftText.docComment("\(pin.subject): \(pin.choice)", indent: "    ")
            out.append("    case \(SwiftText.identifier(pin.name))")
        }
        out += [
            "", "    /// Schema, choice or open question.", "    public var kind: SchemaPinKind {",
            "        switch self {",
        ]
        for pin in spec.pins { out.append("        case .\(SwiftText.identifier(pin.name)): .\(pin.kind.rawValue)") }
        out += [
            "        }", "    }", "", "    /// The choice, in a sentence or a few.", "    public var choice: String {",
        ]
        out.append("        switch self {")
        for pin in spec.pins {
            out.append("        case .\(SwiftText.identifier(pin.name)):")
            out.append("            \(SwiftText.string(pin.choice))")
        }
        out += ["        }", "    }", "}"]
        return GeneratedFile(relativePath: Self.pinsPath, contents: out.joined(separator: "\n") + "\n")
    }
}
