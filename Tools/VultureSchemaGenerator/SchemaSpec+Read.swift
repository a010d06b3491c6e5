import Foundation
import VultureSchemaCore

extension SchemaSpec {
    /// Reads and validates every table of the `Spec/` folder at `directory`.
    ///
    /// Errors are named `<folder>/<file>:<line>` with the folder's last path component
    /// (`Spec/fields.tsv:12: duplicate field …`).
    /// - Throws: ``SpecErrors`` holding every problem found (unreadable or missing files, malformed rows,
    ///   and the cross-table checks of ``validate()``); nothing is thrown for a clean spec. When a
    ///   table cannot be read at all (missing, not UTF-8, no header or a required column missing
    ///   from it), the cross-table checks are not run: they would only report the rows it could
    ///   not give as missing.
    public static func load(from directory: URL) throws -> SchemaSpec {
        let reader = readTables(from: directory)
        let errors =
            reader.errors
            + (reader.unreadTables.isEmpty ? reader.spec.validate(leftOutFields: reader.leftOutFields) : [])
        guard errors.isEmpty else { throw SpecErrors(errors) }
        return reader.spec
    }

    /// Reads every table of `directory` without the cross-table checks.
    ///
    /// - Returns: the rows that could be read, and the problems of the files and rows themselves
    ///   (a row with a problem in a cell the model needs is left out).
    public static func read(from directory: URL) -> (spec: SchemaSpec, errors: [SpecError]) {
        let reader = readTables(from: directory)
        return (reader.spec, reader.errors)
    }

    /// Every table of `directory` read, with the tables that could not be read at all.
    static func readTables(from directory: URL) -> SpecReader {
        var reader = SpecReader(folderName: directory.lastPathComponent)
        for table in SpecTable.allCases {
            let url = directory.appendingPathComponent(table.fileName)
            let display = reader.display(table)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                reader.errors.append(SpecError(file: display, line: 0, message: "cannot read the file (missing?)"))
                reader.unreadTables.insert(table)
                continue
            }
            guard let text = String(data: data, encoding: .utf8) else {
                let at = firstNonUTF8(data)
                let place = at.map { ": byte \($0.column) of the line is \(String(format: "0x%02X", $0.byte))" } ?? ""
                reader.errors.append(
                    SpecError(file: display, line: at?.line ?? 0, message: "the file is not UTF-8" + place))
                reader.unreadTables.insert(table)
                continue
            }
            reader.read(text, as: table)
        }
        return reader
    }

    /// Where the first byte that is no part of a UTF-8 sequence is: its line (1-based), its byte in
    /// that line (1-based) and its value; nil when every byte is.
    static func firstNonUTF8(_ data: Data) -> (line: Int, column: Int, byte: UInt8)? {
        let bytes = [UInt8](data)
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return nil
            case .error:
                let before = bytes[..<offset]
                let lineStart = (before.lastIndex(of: 0x0A) ?? -1) + 1
                return (before.count { $0 == 0x0A } + 1, offset - lineStart + 1, bytes[offset])
            }
        }
    }

    /// Reads one table's text into `spec` (for tests and tools that hold tables in memory).
    ///
    /// - Returns: the problems of the text and its rows; `folderName` prefixes the file in errors.
    public mutating func read(_ text: String, as table: SpecTable, folderName: String = "Spec") -> [SpecError] {
        var reader = SpecReader(folderName: folderName)
        reader.spec = self
        reader.read(text, as: table)
        self = reader.spec
        return reader.errors
    }
}

/// Turns table rows into model values, collecting problems.
struct SpecReader {
    let folderName: String
    var spec = SchemaSpec()
    var errors: [SpecError] = []
    /// Tables none of whose rows could be read (missing, not UTF-8, an unusable header).
    var unreadTables: Set<SpecTable> = []
    /// `Owner.field` of each fields.tsv row left out for a problem already reported: the
    /// cross-table checks do not report it again as a field that does not exist.
    var leftOutFields: Set<String> = []

    init(folderName: String) { self.folderName = folderName }

    func display(_ table: SpecTable) -> String { "\(folderName)/\(table.fileName)" }

    mutating func read(_ text: String, as table: SpecTable) {
        let (parsed, tableErrors) = TSVTable.parse(text, file: display(table), columns: table.columns)
        errors += tableErrors
        guard let parsed else {
            unreadTables.insert(table)
            return
        }
        for row in parsed.rows {
            switch table {
            case .collections: readCollection(row)
            case .fields: readField(row)
            case .enums: readEnumCase(row)
            case .settingsKeys: readSettingsKey(row)
            case .units: readUnit(row)
            case .ids: readIdRule(row)
            case .blobs: readBlob(row)
            case .mergeRules: readMergeRule(row)
            case .syncRules: readSyncRule(row)
            case .limits: readLimit(row)
            case .constants: readConstant(row)
            case .pins: readPin(row)
            case .rules: readRule(row)
            case .operations: readOperation(row)
            }
        }
    }

    // MARK: Cells

    mutating func fail(_ row: TSVRow, _ message: String) {
        errors.append(row.location.error(message))
    }

    mutating func yesNo(_ row: TSVRow, _ column: String) -> Bool? {
        switch row[column] {
        case "yes": return true
        case "no": return false
        default:
            fail(row, "column '\(column)' must be yes or no, not '\(row[column])'")
            return nil
        }
    }

    mutating func integer(_ row: TSVRow, _ column: String) -> Int? {
        guard let value = Int(row[column]) else {
            fail(row, "column '\(column)' must be an integer, not '\(row[column])'")
            return nil
        }
        return value
    }

    mutating func optionalInteger(_ row: TSVRow, _ column: String) -> Int?? {
        guard row.optional(column) != nil else { return .some(nil) }
        guard let value = integer(row, column) else { return nil }
        return .some(value)
    }

    mutating func type(_ row: TSVRow, _ column: String) -> SchemaFieldType? {
        guard let type = SchemaFieldType(parsing: row[column]) else {
            fail(row, "unknown type '\(row[column])'")
            return nil
        }
        return type
    }

    mutating func literal(_ row: TSVRow, _ column: String) -> FirestoreValue?? {
        guard row.optional(column) != nil else { return .some(nil) }
        do {
            return .some(try SpecLiteral.parse(row[column]))
        } catch {
            fail(row, "column '\(column)' is not a typed JSON literal: \(error)")
            return nil
        }
    }

    mutating func rawEnum<Value: RawRepresentable & CaseIterable>(_ row: TSVRow, _ column: String, _: Value.Type)
        -> Value? where Value.RawValue == String
    {
        guard let value = Value(rawValue: row[column]) else {
            let names = Value.allCases.map(\.rawValue).joined(separator: ", ")
            fail(row, "unknown \(column) '\(row[column])'; expected one of: \(names)")
            return nil
        }
        return value
    }

    mutating func unit(_ row: TSVRow) -> MeasurementUnit?? {
        guard row.optional("unit") != nil else { return .some(nil) }
        guard let unit = rawEnum(row, "unit", MeasurementUnit.self) else { return nil }
        return .some(unit)
    }

    func list(_ row: TSVRow, _ column: String) -> [String] {
        guard let text = row.optional(column) else { return [] }
        return text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    // MARK: Rows

    mutating func readCollection(_ row: TSVRow) {
        guard let hasCommon = yesNo(row, "commonFields"), let pushOrder = optionalInteger(row, "pushOrder") else {
            return
        }
        spec.collections.append(
            CollectionSpec(
                name: row["collection"], pathTemplate: row["path"], documentType: row["document"],
                idRecord: row["idRule"], hasCommonFields: hasCommon, pushOrder: pushOrder,
                meaning: row["meaning"], source: row["source"], location: row.location))
    }

    mutating func readField(_ row: TSVRow) {
        let type = type(row, "type")
        let presence = rawEnum(row, "presence", FieldPresence.self)
        let nullable = yesNo(row, "nullable")
        let defaultValue = literal(row, "default")
        let unit = unit(row)
        let writeAs = rawEnum(row, "writeAs", SchemaWriteAs.self)
        var limits: [FieldLimit] = []
        var limitsOK = true
        for item in list(row, "limit") {
            if let limit = FieldLimit(parsing: item) {
                limits.append(limit)
            } else {
                fail(
                    row,
                    "unknown limit '\(item)'; expected maxChars=, maxBytes=, maxItems=, hexLength=, minimum=, maximum= or step= with a number"
                )
                limitsOK = false
            }
        }
        guard let type, let presence, let nullable, let defaultValue, let unit, let writeAs, limitsOK else {
            leftOutFields.insert("\(row["owner"]).\(row["field"])")
            return
        }
        spec.fields.append(
            FieldSpec(
                owner: row["owner"], name: row["field"], type: type, presence: presence, isNullable: nullable,
                defaultValue: defaultValue, unit: unit, limits: limits, writeAs: writeAs,
                androidColumn: row.optional("android"), iosAttribute: row.optional("ios"), since: row.optional("since"),
                meaning: row["meaning"], source: row["source"], location: row.location))
    }

    mutating func readEnumCase(_ row: TSVRow) {
        guard let cloudValue = literal(row, "cloudValue"), let iosValue = optionalInteger(row, "iosValue") else {
            return
        }
        guard let cloudValue else {
            fail(row, "column 'cloudValue' needs a value")
            return
        }
        let encoding: EnumEncoding
        switch cloudValue {
        case .string: encoding = .string
        case .integer: encoding = .integer
        default:
            fail(row, "cloudValue \(cloudValue) must be a string or an integer")
            return
        }
        let enumCase = EnumCaseSpec(
            name: row["case"], cloudValue: cloudValue, iosValue: iosValue,
            meaning: row["meaning"], source: row["source"], location: row.location)
        if let index = spec.enums.firstIndex(where: { $0.name == row["enum"] }) {
            if spec.enums[index].encoding != encoding {
                fail(
                    row,
                    "enum \(row["enum"]) mixes string and integer cloud values (first case at \(spec.enums[index].location))"
                )
                return
            }
            spec.enums[index].cases.append(enumCase)
        } else {
            spec.enums.append(
                EnumSpec(name: row["enum"], cases: [enumCase], encoding: encoding, location: row.location))
        }
    }

    mutating func readSettingsKey(_ row: TSVRow) {
        let type = type(row, "type")
        let nullable = yesNo(row, "nullable")
        let defaultValue = literal(row, "default")
        let unit = unit(row)
        let mapping = rawEnum(row, "iosMapping", SchemaIOSKeyMapping.self)
        let allowed = AllowedValues(parsing: row["allowed"])
        if allowed == nil { fail(row, "allowed '\(row["allowed"])' must be -, range:LOW...HIGH or a type") }
        guard let type, let nullable, let defaultValue, let unit, let mapping, let allowed else { return }
        guard let defaultValue else {
            fail(row, "a settings key needs a default (null is written as null)")
            return
        }
        // Range bounds are typed literals like every value of Spec/ (Spec/README.md): 1 for an
        // integer key, 1.0 for a double one.
        if case .range = allowed, type == .integer || type == .double {
            let bounds = row["allowed"].dropFirst("range:".count).components(separatedBy: "...")
            for bound in bounds where bound.contains(where: { ".eE".contains($0) }) != (type == .double) {
                fail(
                    row,
                    "range bound \(bound) of a \(type) key is written as \(type == .double ? "a double (with a fraction: \(bound).0)" : "an integer")"
                )
            }
        }
        spec.settingsKeys.append(
            SettingsKeySpec(
                key: row["key"], type: type, isNullable: nullable, defaultValue: defaultValue, allowed: allowed,
                unit: unit,
                iosKeys: list(row, "iosKeys"), iosMapping: mapping, meaning: row["meaning"], source: row["source"],
                location: row.location))
    }

    mutating func readUnit(_ row: TSVRow) {
        guard let index = integer(row, "index") else { return }
        let unit = UnitSpec(
            index: index, id: row["unit"], symbol: row["symbol"], meaning: row["meaning"],
            source: row["source"], location: row.location)
        if let tableIndex = spec.unitTables.firstIndex(where: { $0.name == row["table"] }) {
            spec.unitTables[tableIndex].units.append(unit)
        } else {
            spec.unitTables.append(UnitTableSpec(name: row["table"], units: [unit], location: row.location))
        }
    }

    mutating func readIdRule(_ row: TSVRow) {
        let algorithm = rawEnum(row, "algorithm", IdAlgorithm.self)
        let normalization = rawEnum(row, "normalization", IdNormalization.self)
        let pinned = yesNo(row, "pinned")
        guard let algorithm, let normalization, let pinned else { return }
        spec.idRules.append(
            IdRuleSpec(
                record: row["record"], variant: row["variant"], condition: row["condition"], algorithm: algorithm,
                input: row.optional("input"), normalization: normalization, isPinned: pinned,
                meaning: row["meaning"], source: row["source"], location: row.location))
    }

    mutating func readBlob(_ row: TSVRow) {
        guard let maxObject = integer(row, "maxObjectBytes"), let maxRaw = optionalInteger(row, "maxRawBytes") else {
            return
        }
        spec.blobs.append(
            BlobSpec(
                name: row["blob"], pathTemplate: row["path"], record: row["record"], mapField: row["mapField"],
                contentType: row["contentType"], contentEncoding: row.optional("contentEncoding"),
                customMetadata: list(row, "customMetadata"), maxObjectBytes: maxObject, maxRawBytes: maxRaw,
                meaning: row["meaning"], source: row["source"], location: row.location))
    }

    mutating func readMergeRule(_ row: TSVRow) {
        guard let rule = rawEnum(row, "rule", MergeRuleKind.self) else { return }
        var tie: MergeTie?
        if row.optional("tie") != nil {
            guard let parsed = rawEnum(row, "tie", MergeTie.self) else { return }
            tie = parsed
        }
        spec.mergeRules.append(
            MergeRuleSpec(
                document: row["document"] == "*" ? nil : row["document"],
                fieldPath: row["field"] == "*" ? nil : row["field"],
                rule: rule, tie: tie, meaning: row["meaning"], source: row["source"], location: row.location))
    }

    mutating func readLimit(_ row: TSVRow) {
        guard let value = Int64(row["value"]) else {
            fail(row, "column 'value' must be an integer, not '\(row["value"])'")
            return
        }
        var targets: [LimitTarget] = []
        for item in list(row, "appliesTo") {
            guard let target = LimitTarget(parsing: item) else {
                fail(row, "appliesTo item '\(item)' must be Owner.field or blob:<name>")
                return
            }
            targets.append(target)
        }
        spec.limits.append(
            LimitSpec(
                name: row["name"], value: value, unit: row["unit"], appliesTo: targets,
                meaning: row["meaning"], source: row["source"], location: row.location))
    }

    mutating func readConstant(_ row: TSVRow) {
        guard let value = literal(row, "value") else { return }
        guard let value else {
            fail(row, "column 'value' needs a value")
            return
        }
        spec.constants.append(
            ConstantSpec(
                name: row["name"], value: value, unit: row.optional("unit"),
                meaning: row["meaning"], source: row["source"], location: row.location))
    }

    mutating func readPin(_ row: TSVRow) {
        guard let kind = rawEnum(row, "kind", PinKind.self) else { return }
        spec.pins.append(
            PinSpec(
                name: row["pin"], subject: row["subject"], choice: row["choice"], reason: row["reason"],
                source: row["source"], kind: kind, location: row.location))
    }

    mutating func readRule(_ row: TSVRow) {
        var cases: [RuleSpec.SwiftCase] = []
        for item in list(row, "swift") {
            let parts = item.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, RuleSpec.enums.contains(where: { $0.name == parts[0] }),
                let first = parts[1].unicodeScalars.first, ("a"..."z").contains(first),
                parts[1].unicodeScalars.allSatisfy({
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                })
            else {
                let names = RuleSpec.enums.map(\.name).joined(separator: ", ")
                fail(row, "swift item '\(item)' must be Enum.caseName with Enum one of \(names)")
                return
            }
            cases.append(RuleSpec.SwiftCase(enumName: parts[0], caseName: parts[1]))
        }
        guard !cases.isEmpty else {
            fail(row, "a rule needs at least one swift case")
            return
        }
        spec.rules.append(
            RuleSpec(
                id: row["id"], swiftCases: cases, meaning: row["meaning"], section: row["section"],
                example: row["example"], source: row["source"], location: row.location))
    }

    mutating func readOperation(_ row: TSVRow) {
        var shapes: [OperationShape] = []
        for column in ["input", "output"] {
            do {
                shapes.append(try OperationShape(parsing: row[column]))
            } catch {
                fail(row, "column '\(column)': \(error)")
                return
            }
        }
        spec.operations.append(
            OperationSpec(
                op: row["op"], area: row["area"], section: row["section"], input: shapes[0], output: shapes[1],
                errors: list(row, "errors"), meaning: row["meaning"], source: row["source"], location: row.location))
    }
}
