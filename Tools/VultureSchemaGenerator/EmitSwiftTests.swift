import Foundation
import VultureSchemaCore

/// Emits `Tests/VultureSyncSchemaTests/Generated/SchemaFieldTests.swift`: every field name, type and
/// limit of `SyncSchema.vulture`, the coding keys of every generated struct, and a round trip of a
/// sample of every document type through the value model and the fixtures.
struct SwiftTestsEmitter {
    let spec: SchemaSpec
    var types: SwiftTypes { SwiftTypes(spec: spec) }

    static let path = "Tests/VultureSyncSchemaTests/Generated/SchemaFieldTests.swift"

    func file() -> GeneratedFile {
        var out = SwiftText.lineComment(SchemaGenerator.doNotEdit(["collections.tsv", "fields.tsv", "enums.tsv"]))
        out += [
            "",
            "import Foundation",
            "import Testing",
            "import VultureSchemaCore",
            "",
            "@testable import VultureSyncSchema",
            "",
            "/// One row of `Spec/fields.tsv` as the tests pin it.",
            "struct PinnedField: Sendable, CustomTestStringConvertible {",
            "    let owner: String",
            "    let name: String",
            "    let type: String",
            "    let isRequired: Bool",
            "    let isNullable: Bool",
            "    let limits: String",
            "    let defaultValue: FirestoreValue?",
            "    let writeAs: SchemaWriteAs",
            "",
            "    var testDescription: String { \"\\(owner).\\(name)\" }",
            "}",
            "",
            "/// `maxChars=10000,minimum=0`: a field's limits in the table's spelling.",
            "func limitsText(_ limits: SchemaFieldLimits) -> String {",
            "    func number(_ value: Double) -> String {",
            "        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)",
            "    }",
            "    var items: [String] = []",
            "    if let n = limits.maxChars { items.append(\"maxChars=\\(n)\") }",
            "    if let n = limits.maxBytes { items.append(\"maxBytes=\\(n)\") }",
            "    if let n = limits.maxItems { items.append(\"maxItems=\\(n)\") }",
            "    if let n = limits.hexLength { items.append(\"hexLength=\\(n)\") }",
            "    if let v = limits.minimum { items.append(\"minimum=\\(number(v))\") }",
            "    if let v = limits.maximum { items.append(\"maximum=\\(number(v))\") }",
            "    if let v = limits.step { items.append(\"step=\\(number(v))\") }",
            "    if let f = limits.nullUnless { items.append(\"nullUnless=\\(f)\") }",
            "    if let b = limits.storagePath { items.append(\"storagePath=\\(b)\") }",
            "    return items.joined(separator: \",\")",
            "}",
            "",
            "/// The package root, three folders above this file.",
            "let packageRoot = URL(fileURLWithPath: #filePath)",
            "    .deletingLastPathComponent()",
            "    .deletingLastPathComponent()",
            "    .deletingLastPathComponent()",
            "    .deletingLastPathComponent()",
            "",
            "@Suite struct SchemaFieldTests {",
        ]
        out += pinnedRows()
        out += fieldTests()
        out += codingKeyTests()
        out += sampleFunctions()
        out += roundTripTests()
        out.append("}")
        return GeneratedFile(relativePath: Self.path, contents: out.joined(separator: "\n") + "\n")
    }

    private func limitsText(_ limits: [FieldLimit]) -> String {
        let order = ["maxChars", "maxBytes", "maxItems", "hexLength", "minimum", "maximum", "step"]
        return limits.map(\.description).sorted { a, b in
            (order.firstIndex { a.hasPrefix($0 + "=") } ?? 0) < (order.firstIndex { b.hasPrefix($0 + "=") } ?? 0)
        }.joined(separator: ",")
    }

    private func pinnedRows() -> [String] {
        var out: [String] = []
        for owner in types.structOwners {
            out.append("    static let fieldsOf\(owner): [PinnedField] = [")
            for f in spec.fields(of: owner) {
                out.append("        PinnedField(")
                out.append("            owner: \(SwiftText.string(f.owner)), name: \(SwiftText.string(f.name)),")
                out.append("            type: \(SwiftText.string(f.type.description)),")
                out.append(
                    "            isRequired: \(f.presence == .required), isNullable: \(f.isNullable), "
                        + "limits: \(SwiftText.string(limitsText(f.limits))),")
                out.append(
                    "            defaultValue: \(f.defaultValue.map(SwiftText.firestoreValue) ?? "nil"), "
                        + "writeAs: .\(f.writeAs.rawValue)")
                out.append("        ),")
            }
            if spec.fields(of: owner).count == 1 { out[out.count - 1] = "        )" }
            out.append("    ]")
            out.append("")
        }
        out.append("    /// Every row of `Spec/fields.tsv`, in table order.")
        out.append("    static let pinnedFields: [PinnedField] = [")
        for owner in types.structOwners { out.append("        fieldsOf\(owner),") }
        out.append("    ].flatMap { $0 }")
        return out
    }

    private func fieldTests() -> [String] {
        var out = [""]
        out += [
            "    @Test(arguments: pinnedFields)",
            "    func fieldIsPinned(_ row: PinnedField) throws {",
            "        let field = try #require(",
            "            SyncSchema.vulture.fields(of: row.owner).first { $0.name == row.name },",
            "            \"SyncSchema.vulture has no field \\(row.owner).\\(row.name)\")",
            "        #expect(field.type.description == row.type, \"type of \\(row.owner).\\(row.name)\")",
            "        #expect(field.isRequired == row.isRequired, \"presence of \\(row.owner).\\(row.name)\")",
            "        #expect(field.isNullable == row.isNullable, \"nullability of \\(row.owner).\\(row.name)\")",
            "        #expect(limitsText(field.limits) == row.limits, \"limits of \\(row.owner).\\(row.name)\")",
            "        #expect(field.defaultValue == row.defaultValue, \"default of \\(row.owner).\\(row.name)\")",
            "        #expect(field.writeAs == row.writeAs, \"writeAs of \\(row.owner).\\(row.name)\")",
            "    }",
            "",
            "    @Test func everyOwnerHasExactlyThePinnedFields() {",
            "        let owners = Set(SyncSchema.vulture.fields.map(\\.owner))",
            "        #expect(owners == Set(Self.pinnedFields.map(\\.owner)))",
            "        for owner in owners.sorted() {",
            "            let pinned = Self.pinnedFields.filter { $0.owner == owner }.map(\\.name)",
            "            #expect(SyncSchema.vulture.fields(of: owner).map(\\.name) == pinned, \"fields of \\(owner)\")",
            "        }",
            "    }",
            "",
            "    @Test func everyCollectionHasItsDocumentType() {",
            "        #expect(SyncSchema.vulture.collections.map(\\.name) == SyncSchema.documentTypes.map { $0.collection })",
            "        for collection in SyncSchema.vulture.collections {",
            "            let type = SyncSchema.documentType(collection: collection.name)",
            "            #expect(type?.schemaOwner == collection.documentType, \"\\(collection.name)\")",
            "        }",
            "    }",
        ]
        return out
    }

    private func codingKeyTests() -> [String] {
        var out: [String] = []
        for owner in types.structOwners {
            let names = spec.allFields(of: owner).map { SwiftText.string($0.name) }
            out.append("")
            out.append("    @Test func codingKeysOf\(owner)() {")
            out.append("        let keys = \(owner).CodingKeys.allCases.map(\\.rawValue)")
            out.append("        #expect(")
            out.append("            keys == [")
            for name in names { out.append("                \(name),") }
            out.append("            ])")
            if spec.collection(documentType: owner) != nil {
                out.append(
                    "        #expect(keys == SyncSchema.vulture.documentFields(of: \(SwiftText.string(owner))).map(\\.name))"
                )
            } else {
                out.append(
                    "        #expect(keys == SyncSchema.vulture.fields(of: \(SwiftText.string(owner))).map(\\.name))")
            }
            out.append("    }")
        }
        return out
    }

    private func sampleFunctions() -> [String] {
        let samples = Samples(spec: spec)
        var out: [String] = []
        for owner in types.structOwners where owner != SchemaSpec.commonFieldsOwner {
            guard case .map(_, let fields) = samples.document(owner) else { continue }
            out.append("")
            out.append("    /// A `\(owner)` with every field set to a value its limits accept.")
            out.append("    static func sample\(owner)() throws -> \(owner) {")
            out.append("        \(owner)(")
            for (field, value) in fields {
                let name = SwiftText.propertyName(field.name)
                out.append("            \(name): \(samples.swift(value, types: types)),")
            }
            out.append("            unknownFields: [:]")
            out.append("        )")
            out.append("    }")
        }
        return out
    }

    private func roundTripTests() -> [String] {
        var out: [String] = []
        for collection in spec.collections {
            let owner = collection.documentType
            let hasServerTimestamp = spec.allFields(of: owner).first { $0.writeAs == .serverTimestamp }
            out.append("")
            out.append("    @Test func roundTripOf\(owner)() throws {")
            out.append("        let document = try Self.sample\(owner)()")
            out.append("        let stored = document.firestoreValue(form: .stored)")
            out.append("        #expect(try \(owner)(firestoreValue: stored, form: .stored) == document)")
            out.append("        let write = document.firestoreValue(form: .write)")
            let binding = hasServerTimestamp == nil ? "let" : "var"
            out.append("        \(binding) fromWrite = try \(owner)(firestoreValue: write, form: .write)")
            if let f = hasServerTimestamp {
                let name = SwiftText.propertyName(f.name)
                out.append("        #expect(write.mapValue?[\(SwiftText.string(f.name))] == .serverTimestamp)")
                out.append("        #expect(fromWrite.\(name) == nil)")
                out.append("        fromWrite.\(name) = document.\(name)")
            }
            out.append("        #expect(fromWrite == document)")
            out.append("        // A newer version's fields survive a read and a write unchanged.")
            out.append("        var fields = try #require(stored.mapValue)")
            out.append("        fields[\"zFutureField\"] = .map([\"nested\": .array([.integer(1), .double(2.5)])])")
            out.append("        let extended = try \(owner)(firestoreValue: .map(fields))")
            out.append("        #expect(extended.unknownFields == [\"zFutureField\": fields[\"zFutureField\"]!])")
            out.append("        #expect(extended.firestoreValue(form: .stored) == .map(fields))")
            out.append("        // The fixtures of the JSON Schema cross-check are this document's canonical JSON.")
            out.append("        for form in DocumentForm.allCases {")
            out.append("            let url = packageRoot.appendingPathComponent(")
            out.append(
                "                \"Goldens/jsonschema/fixtures/valid/\(collection.name).\\(form.rawValue).json\")")
            out.append("            let text = try String(contentsOf: url, encoding: .utf8)")
            out.append(
                "            #expect(CanonicalJSON.string(document.firestoreValue(form: form)) == text, \"\\(form)\")")
            out.append("        }")
            out.append("    }")
        }
        return out
    }
}
