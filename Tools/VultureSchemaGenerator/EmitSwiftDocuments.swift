import Foundation
import VultureSchemaCore

/// Emits the document and nested-map structs (one file per owner of `Spec/fields.tsv`) and the enums.
struct SwiftDocumentsEmitter {
    let spec: SchemaSpec
    var types: SwiftTypes { SwiftTypes(spec: spec) }

    static let directory = "Sources/VultureSyncSchema/Generated"

    func files() -> [GeneratedFile] {
        var files = [enumsFile(), registryFile()]
        for owner in types.structOwners { files.append(structFile(owner)) }
        return files
    }

    // MARK: Enums

    private func enumsFile() -> GeneratedFile {
        var out = SwiftText.lineComment(SchemaGenerator.doNotEdit(["enums.tsv"]))
        for e in spec.enums {
            let isInteger = e.encoding == .integer
            out.append("")
            let kind = isInteger ? "integers (its cases' cloud values)" : "strings (its cases' cloud values)"
            out += SwiftText.docComment(
                "The enum `\(e.name)` of `Spec/enums.tsv`, stored as \(kind). An unknown cloud value is "
                    + "`schema.enum`.",
                indent: "")
            let raw = isInteger ? "Int64" : "String"
            let proto = isInteger ? "SchemaIntegerEnum" : "SchemaStringEnum"
            out.append("public enum \(e.name): \(raw), Codable, \(proto) {")
            for (index, c) in e.cases.enumerated() {
                if index > 0 { out.append("") }
                var doc = c.meaning + " Cloud value `\(c.cloudValue)`"
                doc += c.iosValue.map { ", iOS value \($0)." } ?? "."
                out += SwiftText.docComment(doc, indent: "    ")
                let rawLiteral: String
                switch c.cloudValue {
                case .integer(let i): rawLiteral = SwiftText.integer(i)
                case .string(let s): rawLiteral = SwiftText.string(s)
                default: rawLiteral = SwiftText.string(c.cloudValue.description)
                }
                out.append("    case \(SwiftText.identifier(c.name)) = \(rawLiteral)")
            }
            out.append("}")
        }
        return GeneratedFile(
            relativePath: "\(Self.directory)/Enums.swift", contents: out.joined(separator: "\n") + "\n")
    }

    // MARK: Registry

    private func registryFile() -> GeneratedFile {
        var out = SwiftText.lineComment(SchemaGenerator.doNotEdit(["collections.tsv"]))
        out.append("")
        out.append("import VultureSchemaCore")
        out.append("")
        out.append("extension SyncSchema {")
        out += SwiftText.docComment(
            "The generated document type of every collection of `Spec/collections.tsv`, in table order.",
            indent: "    ")
        out.append("    public static let documentTypes: [any SchemaDocument.Type] = [")
        for c in spec.collections { out.append("        \(c.documentType).self,") }
        out.append("    ]")
        out.append("")
        out += SwiftText.docComment(
            "The document type of the collection `name` (`flights`, `users`, `settings`), or nil.", indent: "    ")
        out.append("    public static func documentType(collection name: String) -> (any SchemaDocument.Type)? {")
        out.append("        documentTypes.first { $0.collection == name }")
        out.append("    }")
        out.append("}")
        return GeneratedFile(
            relativePath: "\(Self.directory)/DocumentTypes.swift", contents: out.joined(separator: "\n") + "\n")
    }

    // MARK: Structs

    private func fieldDoc(_ f: FieldSpec) -> String {
        var facts = ["`\(f.name)`", f.type.description, f.presence.rawValue]
        if f.isNullable { facts.append("nullable") }
        if let d = f.defaultValue { facts.append("default \(d)") }
        if let u = f.unit { facts.append("unit \(u.rawValue)") }
        if !f.limits.isEmpty { facts.append(f.limits.map(\.description).joined(separator: ", ")) }
        if f.writeAs != .value { facts.append("written as \(f.writeAs.rawValue)") }
        var doc = f.meaning + "\n\n" + facts.joined(separator: "; ") + " (" + f.source + ")."
        if f.writeAs == .serverTimestamp {
            doc += " Nil in the write form, where the server timestamp sentinel stands for it."
        }
        if f.writeAs == .increment {
            doc += " In the write form this is the increment (the delta), written as `$increment`."
        }
        return doc
    }

    private func ownerDoc(_ owner: String) -> String {
        if let c = spec.collection(documentType: owner) {
            var doc = c.meaning + "\n\n"
            doc += "A document of the collection `\(c.name)` at `\(c.pathTemplate)` (`Spec/collections.tsv`); "
            doc += "its fields are the `Spec/fields.tsv` rows of `\(owner)`"
            doc += c.hasCommonFields ? " after those of `CommonFields`." : "."
            doc += " A tombstone (`deleted` true) holds only the common fields and is read with `CommonFields`."
            return doc
        }
        if owner == SchemaSpec.commonFieldsOwner {
            return "The fields every document of a collection with common fields carries (`Spec/fields.tsv` rows of "
                + "`CommonFields`); a tombstone is exactly these."
        }
        let users = spec.fields.filter { $0.type.references.contains(.map(owner)) }
            .map { "`\($0.owner).\($0.name)`" }
        return "A nested map of the sync schema: the `Spec/fields.tsv` rows of `\(owner)`, the value of "
            + users.joined(separator: ", ") + "."
    }

    private func structFile(_ owner: String) -> GeneratedFile {
        let isDocument = spec.collection(documentType: owner) != nil
        let fields = spec.allFields(of: owner)
        let sources = isDocument ? ["collections.tsv", "fields.tsv"] : ["fields.tsv"]
        var out = SwiftText.lineComment(SchemaGenerator.doNotEdit(sources))
        out.append("")
        out.append("import Foundation")
        out.append("import VultureSchemaCore")
        out.append("")
        out += SwiftText.docComment(ownerDoc(owner), indent: "")
        out += SwiftText.docComment(
            "\nRead with ``init(firestoreValue:pointer:form:)``, written with ``firestoreValue(form:)``; fields the "
                + "schema does not name are kept in ``unknownFields`` and written back unchanged. `Codable` uses "
                + "the cloud field names and leaves ``unknownFields`` out.",
            indent: "")
        out.append("public struct \(owner): \(isDocument ? "SchemaDocument" : "SchemaMapCodable"), Codable {")
        if let c = spec.collection(documentType: owner) {
            out.append("    /// The collection id (`Spec/collections.tsv`).")
            out.append("    public static let collection = \(SwiftText.string(c.name))")
            out.append("")
        }
        out.append("    /// The owner name in `Spec/fields.tsv`.")
        out.append("    public static let schemaOwner = \(SwiftText.string(owner))")
        out += fieldNames(owner, fields)
        for f in fields {
            out.append("")
            out += SwiftText.docComment(fieldDoc(f), indent: "    ")
            out.append(
                "    public var \(SwiftText.identifier(SwiftText.propertyName(f.name))): \(types.propertyType(f))")
        }
        out.append("")
        out.append("    /// Fields the schema does not name; written back unchanged.")
        out.append("    public var unknownFields: [String: FirestoreValue] = [:]")
        out.append("")
        out.append("    /// The cloud field names, in table order.")
        out.append("    enum CodingKeys: String, CodingKey, CaseIterable {")
        for f in fields {
            let property = SwiftText.identifier(SwiftText.propertyName(f.name))
            out.append(
                property == f.name
                    ? "        case \(property)" : "        case \(property) = \(SwiftText.string(f.name))")
        }
        out.append("    }")
        out += memberwiseInit(owner, fields)
        out += decodingInit(owner, fields)
        out += encoder(fields)
        out.append("}")
        return GeneratedFile(
            relativePath: "\(Self.directory)/\(owner).swift", contents: out.joined(separator: "\n") + "\n")
    }

    /// `enum Field` of the owner's cloud field names, so hand-written code that reads or writes a
    /// field by name (`fields[FlightDocument.Field.deleted]`) cannot misspell one.
    private func fieldNames(_ owner: String, _ fields: [FieldSpec]) -> [String] {
        SwiftText.fieldNameEnum(
            "Field", fields,
            doc: "The cloud field names of `\(owner)` (`Spec/fields.tsv`), in table order: the keys of its "
                + "Firestore map, for code that reads or writes a field by name.")
    }

    private func memberwiseInit(_ owner: String, _ fields: [FieldSpec]) -> [String] {
        var out = [""]
        out += SwiftText.docComment(
            "Creates a value; every parameter is the property of the same name. A field with a table default "
                + "defaults to it, a nullable or optional one to nil.",
            indent: "    ")
        out.append("    public init(")
        for f in fields {
            var parameter = "        \(SwiftText.identifier(SwiftText.propertyName(f.name))): \(types.propertyType(f))"
            if types.isOptional(f) {
                parameter += " = nil"
            } else if let d = f.defaultValue, let literal = types.literal(d, type: f.type) {
                parameter += " = \(literal)"
            }
            out.append(parameter + ",")
        }
        out.append("        unknownFields: [String: FirestoreValue] = [:]")
        out.append("    ) {")
        for f in fields {
            let name = SwiftText.propertyName(f.name)
            out.append("        self.\(name) = \(SwiftText.identifier(name))")
        }
        out.append("        self.unknownFields = unknownFields")
        out.append("    }")
        return out
    }

    private func readCall(_ f: FieldSpec) -> String {
        var args = [SwiftText.string(f.name)]
        // nullUnless is a check across fields, made once every field is read (decodingInit).
        let limits = types.limitsExpression(
            f.limits.filter {
                if case .nullUnless = $0 { return false }
                return true
            })
        if f.writeAs == .serverTimestamp { return "reader.serverTimestamp(\(args[0]))" }
        if f.writeAs == .increment {
            if let d = f.defaultValue, let literal = types.literal(d, type: f.type) {
                args.append("default: \(literal)")
            }
            if let limits { args.append("limits: \(limits)") }
            return "reader.increment(" + args.joined(separator: ", ") + ")"
        }
        let nullable = f.isNullable || f.presence == .optional
        if nullable {
            if f.presence == .optional { args.append("isRequired: false") }
        } else if let d = f.defaultValue, let literal = types.literal(d, type: f.type) {
            args.append("default: \(literal)")
        }
        if let limits { args.append("limits: \(limits)") }
        if f.type == .dateString { args.append("isDateString: true") }
        return "reader.\(nullable ? "nullable" : "required")(" + args.joined(separator: ", ") + ")"
    }

    private func decodingInit(_ owner: String, _ fields: [FieldSpec]) -> [String] {
        var out = [""]
        out += SwiftText.docComment(
            "Reads a map of the value model: absent and null are alike for a nullable or optional field, an absent "
                + "non-nullable field takes its table default, fields the schema does not name go to "
                + "``unknownFields``.\n\n"
                + "- Parameters:\n  - firestoreValue: a `.map`.\n  - pointer: the JSON pointer of the map, "
                + "for errors.\n  - form: `.write` checks a full write (every required field present, `updatedAt` "
                + "the server timestamp sentinel); `.stored` rejects sentinels; nil accepts either.\n"
                + "- Throws: `SchemaInputError` naming the field's pointer: `schema.type` (wrong type, null where "
                + "not nullable), `schema.missing-field`, `schema.enum`, `schema.limit`, `schema.format`.",
            indent: "    ")
        out.append(
            "    public init(firestoreValue: FirestoreValue, pointer: String = \"\", form: DocumentForm? = nil) throws {"
        )
        out.append("        var reader = try SchemaMapReader(firestoreValue, pointer: pointer, form: form)")
        for f in fields {
            let line = "        \(SwiftText.identifier(SwiftText.propertyName(f.name))) = try \(readCall(f))"
            out += wrapCall(line, indent: "        ")
        }
        for f in fields {
            for case .nullUnless(let flag) in f.limits where fields.contains(where: { $0.name == flag }) {
                let property = SwiftText.identifier(SwiftText.propertyName(f.name))
                let flagProperty = SwiftText.identifier(SwiftText.propertyName(flag))
                out += wrapCall(
                    "        try reader.nullUnless(\(SwiftText.string(f.name)), hasValue: \(property) != nil, "
                        + "flag: \(SwiftText.string(flag)), isSet: \(flagProperty) == true)", indent: "        ")
            }
        }
        out.append("        unknownFields = reader.unknownFields")
        out.append("    }")
        return out
    }

    /// Breaks `name = try reader.f(a, b, c)` after the `(` when it is too long, one argument per line.
    private func wrapCall(_ line: String, indent: String) -> [String] {
        guard line.count > 120, let open = line.firstIndex(of: "("), line.hasSuffix(")") else { return [line] }
        let head = String(line[...open])
        let inner = String(line[line.index(after: open)..<line.index(before: line.endIndex)])
        let args = SwiftLayout.splitTopLevel(inner)
        var out = [head]
        for (index, arg) in args.enumerated() {
            out.append(indent + "    " + arg + (index == args.count - 1 ? "" : ","))
        }
        out.append(indent + ")")
        return out
    }

    private func encoder(_ fields: [FieldSpec]) -> [String] {
        var out = [""]
        out += SwiftText.docComment(
            "The map in the given form (Goldens/FORMAT.md): unknown fields first, unchanged; a nullable field without a "
                + "value as `null` (a full write lists every field); an optional field without a value left out; "
                + "in the write form a server-timestamp field as the sentinel and an increment field as "
                + "`$increment`.",
            indent: "    ")
        out.append("    public func firestoreValue(form: DocumentForm) -> FirestoreValue {")
        out.append("        var writer = SchemaMapWriter(unknownFields: unknownFields, form: form)")
        for f in fields {
            let method: String
            if f.writeAs == .serverTimestamp {
                method = "serverTimestamp"
            } else if f.writeAs == .increment {
                method = "increment"
            } else if f.presence == .optional {
                method = "optional"
            } else if f.isNullable {
                method = "nullable"
            } else {
                method = "required"
            }
            out.append(
                "        writer.\(method)(\(SwiftText.string(f.name)), \(SwiftText.identifier(SwiftText.propertyName(f.name))))"
            )
        }
        out.append("        return writer.value")
        out.append("    }")
        return out
    }
}
