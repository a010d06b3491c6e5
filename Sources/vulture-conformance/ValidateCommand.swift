import Foundation
import VultureConformance
import VultureSyncSchema

/// `validate`: checks arbitrary documents against the schema, one line per violation
/// (`FILE: /json/pointer: RULE-ID: message`) (DESIGN.md §4).
enum ValidateCommand {
    static let usage = """
        usage: vulture-conformance validate [--form write|stored] [--format canonical|rest] [--collection NAME]
                                            [--strict] [--merge] FILE…

        Checks each FILE, a document in canonical typed JSON (default) or Firestore REST JSON,
        against the schema. Prints one line per violation, `FILE: /json/pointer: RULE-ID: message`.
          --form        write (sentinels where the schema writes them) or stored (default)
          --format      canonical (default) or rest (a Firestore REST Document)
          --collection  flights, tasks, mapFiles, homebases, recentCompetitions, settings or users;
                        default: from the REST document name, else from the fields only one collection has
          --strict      a field the schema does not know is an error, not a warning
          --merge       the document is a merge write (only changed fields plus the common fields)

        Exit status: 0 every file valid (warnings allowed), 1 a violation, 2 usage or I/O error.
        The last line is `N passed, N failed` (files).
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try CommandLineArguments(
            arguments, valueOptions: ["form", "format", "collection"], flags: ["strict", "merge"])
        if args.wantsHelp {
            print(usage)
            return 0
        }
        guard !args.positionals.isEmpty else { throw UsageError(message: "give at least one FILE") }
        guard let form = DocumentForm(rawValue: args.option("form") ?? "stored") else {
            throw UsageError(message: "--form is write or stored")
        }
        let format = args.option("format") ?? "canonical"
        guard format == "canonical" || format == "rest" else {
            throw UsageError(message: "--format is canonical or rest")
        }
        let schema = SyncSchema.vulture
        if let name = args.option("collection"), schema.collection(named: name) == nil {
            throw UsageError(
                message: "unknown collection \(name); one of \(schema.collections.map(\.name).joined(separator: ", "))")
        }
        if format == "rest" && form == .write {
            throw UsageError(message: "a Firestore REST Document is stored form; --format rest goes with --form stored")
        }
        let validator = SchemaValidator(schema: schema)
        let options = ValidationOptions(form: form, strict: args.flag("strict"), mergeWrite: args.flag("merge"))
        var summary = RunSummary()
        for file in args.positionals {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw IOFailure(message: "cannot read \(file)")
            }
            var lines: [String] = []
            var failed = false
            do {
                let fields: [String: FirestoreValue]
                var path: String? = nil
                if format == "rest" {
                    let document = try FirestoreRESTJSON.decodeDocument([UInt8](data), file: file)
                    fields = document.fields
                    path = document.name
                } else {
                    let value = try CanonicalJSON.decode([UInt8](data), file: file, form: form)
                    guard case .map(let m) = value else {
                        throw SchemaInputError(
                            rule: .restShape, pointer: "",
                            message: "a document is a map of fields, found \(value.typeName)",
                            file: file)
                    }
                    fields = m
                }
                let documentType =
                    args.option("collection").flatMap { schema.collection(named: $0)?.documentType }
                    ?? validator.inferDocumentType(fields: fields, path: path)
                if let documentType {
                    for v in validator.validate(fields, documentType: documentType, options: options) {
                        lines.append("\(file): \(v)")
                        if v.severity == .error { failed = true }
                    }
                } else {
                    lines.append(
                        "\(file): /: \(SchemaRule.collection.rawValue): cannot tell the collection from the fields; "
                            + "give --collection")
                    failed = true
                }
            } catch let e as SchemaInputError {
                lines.append(e.description)
                failed = true
            }
            for line in lines { print(line) }
            if failed { summary.failed += 1 } else { summary.passed += 1 }
        }
        print(summary.line)
        return summary.failed == 0 ? 0 : 1
    }
}
