import Foundation
import Testing

@testable import VultureSchemaGenerator

/// Broken copies of Spec/ are refused with every problem at its file and line.
@Suite struct ValidationErrorTests {
    /// Whether `errors` holds one at `file:line` whose message contains `fragment`.
    func contains(_ errors: [SpecError], _ file: String, _ line: Int, _ fragment: String) -> Bool {
        errors.contains { $0.file == "Spec/\(file)" && $0.line == line && $0.message.contains(fragment) }
    }

    @Test func pristineCopyLoads() throws {
        let copy = try SpecCopy()
        #expect(copy.loadErrors().isEmpty)
    }

    @Test func mergeRuleNamingARemovedField() throws {
        let copy = try SpecCopy()
        try copy.edit("fields.tsv") { lines in lines.removeAll { $0.hasPrefix("IGCBlob\tuploaded\t") } }
        let line = try copy.lineNumber("merge-rules.tsv", startingWith: "FlightDocument\tigc.uploaded\t")
        let errors = copy.loadErrors()
        #expect(
            contains(
                errors, "merge-rules.tsv", line,
                "merge rule names field 'FlightDocument.igc.uploaded' that does not exist"), "\(errors)")
        #expect(errors.count == 1, "\(errors)")
        #expect(
            errors.first?.description
                == "Spec/merge-rules.tsv:\(line): merge rule names field 'FlightDocument.igc.uploaded' that does not exist in fields.tsv"
        )
    }

    /// A fields.tsv row left out for a bad cell is reported once, at its own line: the limit and the
    /// merge rule that name it do not report it again as a field that does not exist.
    @Test func aFieldRowWithABadCellIsReportedOnce() throws {
        let copy = try SpecCopy()
        let line = try copy.replaceLine("fields.tsv", startingWith: "FlightDocument\tcomments\t") {
            $0.replacingOccurrences(of: "maxChars=10000", with: "maxChars=10k")
        }
        let errors = copy.loadErrors()
        #expect(errors.map(\.file) == ["Spec/fields.tsv"], "\(errors)")
        #expect(contains(errors, "fields.tsv", line, "unknown limit 'maxChars=10k'"), "\(errors)")
        // A field removed outright is still reported where it is named.
        let removed = try SpecCopy()
        try removed.edit("fields.tsv") { lines in lines.removeAll { $0.hasPrefix("FlightDocument\tcomments\t") } }
        let limitLine = try removed.lineNumber("limits.tsv", startingWith: "commentsMaxChars\t")
        #expect(
            contains(
                removed.loadErrors(), "limits.tsv", limitLine,
                "limit commentsMaxChars applies to field FlightDocument.comments, which does not exist"))
    }

    @Test func duplicateField() throws {
        let copy = try SpecCopy()
        let first = try copy.lineNumber("fields.tsv", startingWith: "FlightDocument\tcomments\t")
        var duplicateLine = 0
        try copy.edit("fields.tsv") { lines in
            lines.append(lines[first - 1])
            duplicateLine = lines.count
        }
        let errors = copy.loadErrors()
        #expect(
            errors.map(\.description) == [
                "Spec/fields.tsv:\(duplicateLine): duplicate field FlightDocument.comments (first at Spec/fields.tsv:\(first))"
            ])
    }

    /// A field name that would not compile as a generated property, or that Firestore reserves.
    @Test(arguments: [
        ("ra ting", "a field name is a letter followed by letters, digits and _"),
        ("$rating", "a field name is a letter followed by letters, digits and _"),
        ("2fa", "a field name is a letter followed by letters, digits and _"),
        ("rating.x", "a field name is a letter followed by letters, digits and _"),
        ("self", "a Swift keyword cannot be a generated property"),
        ("unknownFields", "the generated types use unknownFields themselves"),
    ])
    func fieldNameThatCannotBeGenerated(_ name: String, _ problem: String) throws {
        let copy = try SpecCopy()
        let line = try copy.replaceLine("fields.tsv", startingWith: "FlightDocument\trating\t") {
            replacingCell($0, column: 1, with: name)
        }
        let errors = copy.loadErrors()
        #expect(
            errors.map(\.description).contains(
                "Spec/fields.tsv:\(line): field name \"\(name)\" of FlightDocument: \(problem)"),
            "\(errors)")
    }

    @Test func enumFieldDefaultOutsideItsValues() throws {
        let copy = try SpecCopy()
        let line = try copy.replaceLine("fields.tsv", startingWith: "MapFileDocument\ttype\t") {
            replacingCell($0, column: 5, with: "\"SAILPLANE\"")
        }
        let errors = copy.loadErrors()
        #expect(
            contains(
                errors, "fields.tsv", line,
                "\"SAILPLANE\" is not a value of enum MapFileType (\"WAYPOINTS\", \"AIRSPACE\")"), "\(errors)")
        #expect(errors.count == 1)
    }

    @Test func settingsEnumDefaultOutsideItsValues() throws {
        let copy = try SpecCopy()
        let line = try copy.replaceLine("settings-keys.tsv", startingWith: "sport\t") {
            replacingCell($0, column: 3, with: "\"kite\"")
        }
        let errors = copy.loadErrors()
        #expect(
            contains(
                errors, "settings-keys.tsv", line,
                "default \"kite\" of settings key sport: \"kite\" is not a value of enum Sport"), "\(errors)")
    }

    @Test func settingsDefaultOutsideAllowedRange() throws {
        let copy = try SpecCopy()
        let line = try copy.replaceLine("settings-keys.tsv", startingWith: "flarmLoggerInterval\t") {
            replacingCell($0, column: 3, with: "9")
        }
        let errors = copy.loadErrors()
        #expect(
            errors.map(\.description) == [
                "Spec/settings-keys.tsv:\(line): default 9 of settings key flarmLoggerInterval is outside the allowed range range:1...8"
            ])
    }

    @Test func settingsZoneDefaultOutsideItsFieldLimits() throws {
        let copy = try SpecCopy()
        let line = try copy.replaceLine("settings-keys.tsv", startingWith: "waypointZone\t") {
            replacingCell(
                $0, column: 3,
                with: #"{"a1": 45.0, "a12": 0.0, "a2": 0.0, "isLine": false, "r1": 3050.0, "r2": 0.0, "type": 9}"#)
        }
        let errors = copy.loadErrors()
        #expect(
            contains(errors, "settings-keys.tsv", line, "r1: 3050.0 is not a multiple of the step 100.0"), "\(errors)")
        #expect(contains(errors, "settings-keys.tsv", line, "type: 9 is not a value of enum ZoneType"), "\(errors)")
    }

    @Test func settingsUnitDefaultOutsideItsTable() throws {
        let copy = try SpecCopy()
        let line = try copy.replaceLine("settings-keys.tsv", startingWith: "altitudeUnit\t") {
            replacingCell($0, column: 3, with: "\"fl\"")
        }
        let errors = copy.loadErrors()
        #expect(
            contains(errors, "settings-keys.tsv", line, "\"fl\" is not a unit of table altitudeUnit (m, ft)"),
            "\(errors)")
    }

    @Test func doubleDefaultWrittenAsInteger() throws {
        let copy = try SpecCopy()
        let line = try copy.replaceLine("settings-keys.tsv", startingWith: "skySightOverlayOpacity\t") {
            replacingCell($0, column: 3, with: "1")
        }
        let errors = copy.loadErrors()
        #expect(
            contains(
                errors, "settings-keys.tsv", line, "1 is an integer literal; a double is written with a fraction (1.0)"),
            "\(errors)")
    }

    @Test func unitTableWithDuplicateIndex() throws {
        let copy = try SpecCopy()
        let line = try copy.replaceLine("units.tsv", startingWith: "verticalSpeedUnit\t2\t") {
            replacingCell($0, column: 1, with: "1")
        }
        let errors = copy.loadErrors()
        #expect(contains(errors, "units.tsv", line, "duplicate index in unit table verticalSpeedUnit: 1"), "\(errors)")
    }

    @Test func unknownType() throws {
        let copy = try SpecCopy()
        let line = try copy.replaceLine("fields.tsv", startingWith: "FlightDocument\tpassengerName\t") {
            replacingCell($0, column: 2, with: "strng")
        }
        let errors = copy.loadErrors()
        #expect(errors.map(\.description) == ["Spec/fields.tsv:\(line): unknown type 'strng'"])
    }

    @Test func unknownEnumReferenced() throws {
        let copy = try SpecCopy()
        let line = try copy.replaceLine("fields.tsv", startingWith: "CommonFields\tplatform\t") {
            replacingCell($0, column: 2, with: "enum:OperatingSystem")
        }
        let errors = copy.loadErrors()
        #expect(
            errors.map(\.description) == [
                "Spec/fields.tsv:\(line): unknown type 'enum:OperatingSystem': no enum OperatingSystem in enums.tsv (field CommonFields.platform)"
            ])
    }

    @Test func missingRequiredColumn() throws {
        let copy = try SpecCopy()
        let header = try copy.replaceLine("limits.tsv", startingWith: "name\t") {
            $0.replacingOccurrences(of: "\tappliesTo", with: "\tscope")
        }
        let errors = copy.loadErrors()
        #expect(contains(errors, "limits.tsv", header, "missing required column 'appliesTo'"), "\(errors)")
        #expect(contains(errors, "limits.tsv", header, "unknown column 'scope'"), "\(errors)")
    }

    @Test func rowWithTheWrongCellCountAndAnEmptyCell() throws {
        let copy = try SpecCopy()
        let short = try copy.replaceLine("enums.tsv", startingWith: "Sport\tdelta\t") {
            $0.components(separatedBy: "\t").dropLast().joined(separator: "\t")
        }
        let empty = try copy.replaceLine("enums.tsv", startingWith: "Sport\tglider\t") {
            replacingCell($0, column: 4, with: "")
        }
        let errors = copy.loadErrors()
        #expect(contains(errors, "enums.tsv", short, "row has 5 cells, the header has 6"), "\(errors)")
        #expect(contains(errors, "enums.tsv", empty, "empty cell in column 'meaning'; write - for none"), "\(errors)")
    }

    @Test func limitDisagreesWithItsField() throws {
        let copy = try SpecCopy()
        try copy.replaceLine("fields.tsv", startingWith: "FlightDocument\tcomments\t") {
            replacingCell($0, column: 7, with: "maxChars=5000")
        }
        let line = try copy.lineNumber("limits.tsv", startingWith: "commentsMaxChars\t")
        let errors = copy.loadErrors()
        #expect(
            errors.map(\.description) == [
                "Spec/limits.tsv:\(line): limit commentsMaxChars = 10000, but field FlightDocument.comments carries maxChars=5000"
            ])
    }

    /// A storagePath limit names a blob of blobs.tsv whose map holds the field, on a string.
    @Test(arguments: [
        ("IGCBlob\tpath\t", "storagePath=pdf", "limit storagePath=pdf names no blob of blobs.tsv (field IGCBlob.path)"),
        (
            "IGCBlob\tpath\t", "storagePath=mapFileContent",
            "limit storagePath=mapFileContent: blob mapFileContent's map MapFileDocument.content is not of type "
                + "map:IGCBlob (field IGCBlob.path)"
        ),
        ("IGCBlob\tuploaded\t", "storagePath=igc", "limit storagePath=igc does not apply to type boolean"),
    ])
    func storagePathLimitNamesItsBlob(_ row: String, _ limit: String, _ message: String) throws {
        let copy = try SpecCopy()
        try copy.replaceLine("fields.tsv", startingWith: row) { replacingCell($0, column: 7, with: limit) }
        let line = try copy.lineNumber("fields.tsv", startingWith: row)
        let errors = copy.loadErrors()
        #expect(contains(errors, "fields.tsv", line, message), "\(errors)")
    }

    @Test func mergeRuleOfTheWrongKind() throws {
        let copy = try SpecCopy()
        let line = try copy.replaceLine("merge-rules.tsv", startingWith: "FlightDocument\tinLogbook\t") {
            replacingCell($0, column: 2, with: "earliestNonNull")
        }
        let errors = copy.loadErrors()
        #expect(
            errors.map(\.description) == [
                "Spec/merge-rules.tsv:\(line): merge rule earliestNonNull does not fit field 'inLogbook' of type boolean"
            ])
    }

    @Test func missingFile() throws {
        let copy = try SpecCopy()
        try FileManager.default.removeItem(at: copy.directory.appendingPathComponent("pins.tsv"))
        #expect(copy.loadErrors().map(\.description) == ["Spec/pins.tsv: cannot read the file (missing?)"])
    }

    /// A byte that is no UTF-8 is named by its line and place, and alone: the rows the table could
    /// not give would otherwise seem missing to every check across tables.
    @Test func aTableThatIsNotUTF8IsNamedByItsLineAlone() throws {
        let copy = try SpecCopy()
        let url = copy.directory.appendingPathComponent("fields.tsv")
        var bytes = [UInt8](try Data(contentsOf: url))
        let third = try #require(bytes.indices.filter { bytes[$0] == 0x0A }.dropFirst(2).first)
        bytes.insert(contentsOf: [0x61, 0xFF], at: third + 1)
        try Data(bytes).write(to: url)
        #expect(
            copy.loadErrors().map(\.description) == [
                "Spec/fields.tsv:4: the file is not UTF-8: byte 2 of the line is 0xFF"
            ])
    }

    /// So is a header without a required column: the table gives no rows, and its error comes alone.
    @Test func aHeaderWithoutARequiredColumnIsReportedAlone() throws {
        let copy = try SpecCopy()
        let line = try copy.replaceLine("fields.tsv", startingWith: "owner\t") { "proprietor" + $0.dropFirst(5) }
        #expect(
            copy.loadErrors().map(\.description) == [
                "Spec/fields.tsv:\(line): missing required column 'owner'",
                "Spec/fields.tsv:\(line): unknown column 'proprietor'; expected columns: owner, field, type, presence, "
                    + "nullable, default, unit, limit, writeAs, android, ios, since, meaning, source",
            ])
    }

    @Test func everyProblemIsReportedNotOnlyTheFirst() throws {
        let copy = try SpecCopy()
        let type = try copy.replaceLine("fields.tsv", startingWith: "TaskDocument\tname\t") {
            replacingCell($0, column: 2, with: "text")
        }
        let mapping = try copy.replaceLine("settings-keys.tsv", startingWith: "homeBase\t") {
            replacingCell($0, column: 6, with: "VultureHomebaseName")
        }
        let unit = try copy.replaceLine("units.tsv", startingWith: "distanceUnit\t2\t") {
            replacingCell($0, column: 2, with: "km")
        }
        let errors = copy.loadErrors()
        #expect(
            errors.map(\.description) == [
                "Spec/fields.tsv:\(type): unknown type 'text'",
                "Spec/settings-keys.tsv:\(mapping): iosMapping homeBaseKeys takes 3 iOS key(s), settings key homeBase lists 1",
                "Spec/units.tsv:\(unit): duplicate unit id in unit table distanceUnit: km (first at Spec/units.tsv:\(unit - 2))",
            ])
    }

    @Test func unreachableOwnerAndUnknownMapType() throws {
        let copy = try SpecCopy()
        let line = try copy.replaceLine("fields.tsv", startingWith: "FlightDocument\tigc\t") {
            replacingCell($0, column: 2, with: "map:IgcBlob")
        }
        let firstIGCBlob = try copy.lineNumber("fields.tsv", startingWith: "IGCBlob\t")
        let errors = copy.loadErrors()
        #expect(
            contains(
                errors, "fields.tsv", line, "unknown type 'map:IgcBlob': no fields with owner IgcBlob in fields.tsv"),
            "\(errors)")
        #expect(contains(errors, "fields.tsv", firstIGCBlob, "owner IGCBlob is neither a document type"), "\(errors)")
    }
}

/// Cross-table checks that need a row added.
@Suite struct AddedRowTests {
    @Test func documentFieldShadowingACommonField() throws {
        let copy = try SpecCopy()
        var added = 0
        try copy.edit("fields.tsv") { lines in
            lines.append("HomebaseDocument\tdeleted\tboolean\trequired\tno\tfalse\t-\t-\tvalue\t-\t-\t-\tShadow.\ttest")
            added = lines.count
        }
        #expect(
            copy.loadErrors().map(\.description) == [
                "Spec/fields.tsv:\(added): field HomebaseDocument.deleted repeats a common field of the same name"
            ])
    }

    @Test func idPlaceholderNamingNoField() throws {
        let copy = try SpecCopy()
        let line = try copy.replaceLine("ids.tsv", startingWith: "mapFile\tdownloaded\t") {
            replacingCell($0, column: 4, with: "{source}|{kind}|{filename}")
        }
        #expect(
            copy.loadErrors().map(\.description) == [
                "Spec/ids.tsv:\(line): id input placeholder {kind} is no field of MapFileDocument"
            ])
    }
}

/// The `allowed` ranges of `Spec/settings-keys.tsv`: typed literals in the table, shown as written.
@Suite struct SettingsRangeTests {
    /// Every settings key's `allowed` cell reads on the schema page exactly as in the table
    /// (`range:0.1...1.0` for the opacity, a double; `range:1...8` for the FLARM interval).
    @Test func theSchemaPageShowsEachRangeAsTheTableWritesIt() throws {
        let spec = try SchemaSpec.load(from: specDirectory)
        let page = try #require(
            SchemaGenerator.generate(spec: spec).first { $0.relativePath == "Goldens/SCHEMA.md" }
        ).contents
        let table = try String(contentsOf: specDirectory.appendingPathComponent("settings-keys.tsv"), encoding: .utf8)
        var checked = 0
        for line in table.split(separator: "\n") where !line.hasPrefix("#") && line.contains("\trange:") {
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let allowed = try #require(cells.first { $0.hasPrefix("range:") })
            #expect(page.contains("| `\(cells[0])` |") && page.contains("| `\(allowed)` |"), "\(cells[0]): \(allowed)")
            checked += 1
        }
        #expect(checked == 2)
    }

    /// A double key's bound written as an integer (or the other way round) is refused at its line.
    @Test(arguments: [
        ("skySightOverlayOpacity\t", "range:0.1...1.0", "range:0.1...1", "range bound 1 of a double key"),
        ("flarmLoggerInterval\t", "range:1...8", "range:1...8.0", "range bound 8.0 of a integer key"),
    ])
    func rangeBoundsAreTypedLiterals(_ key: String, _ from: String, _ to: String, _ message: String) throws {
        let copy = try SpecCopy()
        let line = try copy.replaceLine("settings-keys.tsv", startingWith: key) {
            $0.replacingOccurrences(of: "\t\(from)\t", with: "\t\(to)\t")
        }
        let errors = copy.loadErrors()
        #expect(errors.contains { $0.line == line && $0.message.hasPrefix(message) }, "\(errors)")
    }
}
