import Foundation
import VultureSchemaGenerator

/// spec-tsv: the input's first byte picks one table of `Spec/` and the rest is that table's text; the
/// other tables are the real ones. The TSV reader and the model read from the tables (`SchemaSpec`,
/// then its cross-table validation) answer with `SpecError`s naming the file and a line of it, never
/// a crash.
enum SpecTSVHarness {
    /// For each table, the model with every other table of the real `Spec/` read (``prepare()``).
    nonisolated(unsafe) static var baseSpecs: [SpecTable: SchemaSpec] = [:]

    /// Reads the real tables once.
    static func prepare() {
        guard baseSpecs.isEmpty else { return }
        for table in SpecTable.allCases {
            var spec = SchemaSpec()
            for other in SpecTable.allCases where other != table {
                _ = spec.read(FuzzSeeds.specText(other), as: other)
            }
            baseSpecs[table] = spec
        }
        // LeakSanitizer does not follow the pointers Swift keeps in indirect enums (SchemaFieldType,
        // OperationShape) with tag bits set, so at exit it would report what this static holds as
        // leaked: it is released before that check, which runs after the handlers registered later.
        atexit { SpecTSVHarness.baseSpecs = [:] }
    }

    /// The table an input's first byte picks.
    static func table(for selector: UInt8) -> SpecTable {
        SpecTable.allCases[Int(selector) % SpecTable.allCases.count]
    }

    static func run(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        guard let selector = input.first else { return }
        prepare()
        let table = table(for: selector)
        // The generator reads a table only when it is UTF-8 (SchemaSpec.read(from:)).
        guard let text = String(validating: input.dropFirst(), as: UTF8.self) else { return }
        let lines = text.utf8.count { $0 == 0x0A } + 1
        let display = "Spec/\(table.fileName)"

        let (_, tableErrors) = TSVTable.parse(text, file: display, columns: table.columns)
        for e in tableErrors {
            try require(e.file == display && e.line >= 0 && e.line <= lines, "TSVTable.parse: \(e) (\(lines) lines)")
        }
        var spec = baseSpecs[table]!
        for e in spec.read(text, as: table) {
            try require(e.file == display && e.line >= 0 && e.line <= lines, "SchemaSpec.read: \(e) (\(lines) lines)")
        }
        for e in spec.validate() {
            try require(e.file.hasPrefix("Spec/") && e.line >= 0, "SchemaSpec.validate: \(e)")
        }
    }
}
