import Foundation
import VultureCommandLine
import VultureConformance
import VultureSyncSchema

/// `validate`: checks arbitrary documents against the schema, one line per violation
/// (`FILE: /json/pointer: RULE-ID: message`) (README "The conformance runner").
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

        Reader errors (not JSON, not canonical typed JSON, not a REST Document) also name
        LINE:COLUMN after FILE. For --format rest the pointers point into the REST file
        (/fields/summary/mapValue/fields/…), and the document name is checked too: its
        collection, and the id the deterministic id rules give (schema §4).
        --merge implies --form write.

        Exit status: 0 every file valid (warnings allowed), 1 a violation, 2 usage error or a file
        that cannot be read (the others are still checked). The last line is
        `N passed, N failed[, N skipped]` (files; unreadable files count as skipped).
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try CommandLineArguments(
            arguments, valueOptions: ["form", "format", "collection"], flags: ["strict", "merge"])
        guard !args.positionals.isEmpty else { throw UsageError(message: "give at least one FILE") }
        let merge = args.flag("merge")
        guard let form = DocumentForm(rawValue: args.option("form") ?? (merge ? "write" : "stored")) else {
            throw UsageError(message: "--form is write or stored")
        }
        if merge && form == .stored {
            throw UsageError(message: "a merge write is write form: --merge goes with --form write")
        }
        let format = args.option("format") ?? "canonical"
        guard format == "canonical" || format == "rest" else {
            throw UsageError(message: "--format is canonical or rest")
        }
        let schema = SyncSchema.vulture
        let named = try args.option("collection").map { name throws(UsageError) in
            guard let c = schema.collection(named: name) else {
                throw UsageError(
                    message:
                        "unknown collection \(name); one of \(schema.collections.map(\.name).joined(separator: ", "))")
            }
            return c
        }
        if format == "rest" && form == .write {
            throw UsageError(message: "a Firestore REST Document is stored form; --format rest goes with --form stored")
        }
        let validator = SchemaValidator(schema: schema)
        let options = ValidationOptions(form: form, strict: args.flag("strict"), mergeWrite: merge)
        var summary = RunSummary()
        var unreadable = 0
        for file in args.positionals {
            let bytes: [UInt8]
            do {
                bytes = try FileContents.bytes(atPath: file)
            } catch {
                printError("vulture-conformance validate: \(error)")
                unreadable += 1
                continue
            }
            let lines = check(bytes, file: file, format: format, named: named, validator: validator, options: options)
            for line in lines.text { print(line) }
            if lines.failed { summary.failed += 1 } else { summary.passed += 1 }
        }
        if unreadable > 0 { summary.skipped = unreadable }
        print(summary.line)
        return unreadable > 0 ? 2 : summary.failed == 0 ? 0 : 1
    }

    /// The violation lines of one file, and whether any is an error.
    static func check(
        _ bytes: [UInt8], file: String, format: String, named: SchemaCollection?, validator: SchemaValidator,
        options: ValidationOptions
    ) -> (text: [String], failed: Bool) {
        var lines: [String] = []
        var failed = false
        func add(_ v: SchemaViolation, pointer: String) {
            var shown = v
            shown.pointer = pointer
            lines.append("\(file): \(shown)")
            if v.severity == .error { failed = true }
        }
        do {
            let fields: [String: FirestoreValue]
            var documentType = named?.documentType
            var rest = false
            if format == "rest" {
                rest = true
                let document = try FirestoreRESTJSON.decodeDocument(bytes, file: file)
                fields = document.fields
                if let name = document.name {
                    let (type, violations) = validator.pathViolations(path: name, fields: fields)
                    for v in violations { add(v, pointer: "/name") }
                    if let named, let type, type != named.documentType {
                        add(
                            SchemaViolation(
                                pointer: "", rule: SchemaRule.collection.rawValue,
                                message: "the document name is in another collection than --collection \(named.name)"),
                            pointer: "/name")
                    }
                    documentType = documentType ?? type
                }
            } else {
                let value = try CanonicalJSON.decode(bytes, file: file, form: options.form)
                guard case .map(let m) = value else {
                    lines.append(
                        "\(file): /: \(SchemaRule.type.rawValue): a document is a map of fields, found \(value.typeName)"
                    )
                    return (lines, true)
                }
                fields = m
            }
            guard let type = documentType ?? validator.inferDocumentType(fields: fields, path: nil) else {
                lines.append(
                    "\(file): /: \(SchemaRule.collection.rawValue): cannot tell the collection from the fields "
                        + "(no field only one collection has, as in a tombstone or a merge write); give --collection")
                return (lines, true)
            }
            for v in validator.validate(fields, documentType: type, options: options) {
                add(
                    v,
                    pointer: rest
                        ? FirestoreRESTJSON.documentPointer(forFieldPointer: v.pointer, in: fields) : v.pointer)
            }
        } catch let e as SchemaInputError {
            lines.append(e.description)
            failed = true
        } catch {
            lines.append("\(file): \(error)")
            failed = true
        }
        return (lines, failed)
    }
}
