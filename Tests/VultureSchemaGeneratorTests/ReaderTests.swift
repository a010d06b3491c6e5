import Testing
import VultureSchemaCore

@testable import VultureSchemaGenerator

/// The building blocks: the strict TSV reader, typed literals, the type grammar.
@Suite struct ReaderTests {
    @Test func tsvSkipsCommentsAndReadsCellsByName() throws {
        let text = "# a comment\n\nname\tvalue\n# another\nalpha\t1\nbeta\t-\n"
        let (table, errors) = TSVTable.parse(text, file: "Spec/x.tsv", columns: ["name", "value"])
        #expect(errors.isEmpty)
        let rows = try #require(table?.rows)
        #expect(table?.headerLine == 3)
        #expect(rows.map(\.location.line) == [5, 6])
        #expect(rows[0]["name"] == "alpha")
        #expect(rows[0].optional("value") == "1")
        #expect(rows[1].optional("value") == nil)
    }

    @Test func tsvIsStrict() {
        let text = "name\tname\textra\r\na\tb\tc\n a\tb\tc\nx\ty\n"
        let (_, errors) = TSVTable.parse(text, file: "Spec/x.tsv", columns: ["name", "value"])
        #expect(
            errors.map(\.description) == [
                "Spec/x.tsv:1: carriage return in line; use LF line ends",
                "Spec/x.tsv:1: column 'name' appears twice in the header",
                "Spec/x.tsv:1: unknown column 'extra'; expected columns: name, value",
                "Spec/x.tsv:1: missing required column 'value'",
                "Spec/x.tsv:3: cell in column 'name' has spaces at either end",
                "Spec/x.tsv:4: row has 2 cells, the header has 3",
            ])
    }

    /// A NUL, an escape or a line separator pasted into a cell is refused with its code point, column
    /// and place in the line, instead of reaching the generated Swift, Markdown and JSON.
    @Test func tsvRefusesControlCharactersInCells() {
        let text =
            "# a \u{1B} in a comment is fine\nname\tvalue\n"
            + "al\u{0}pha\t1\nbeta\tx\u{1B}[31m\u{7F}\ngamma\ta\u{2028}b\n"
        let (table, errors) = TSVTable.parse(text, file: "Spec/x.tsv", columns: ["name", "value"])
        #expect(
            errors.map(\.description) == [
                "Spec/x.tsv:3: character U+0000 in column 'name' at character 3 of the line: "
                    + "a control character or line separator; remove it",
                "Spec/x.tsv:4: character U+001B in column 'value' at character 7 of the line: "
                    + "a control character or line separator; remove it",
                "Spec/x.tsv:5: character U+2028 in column 'value' at character 8 of the line: "
                    + "a control character or line separator; remove it",
            ])
        #expect(table?.rows.count == 3)
    }

    /// Spec/README.md: UTF-8 without a byte-order mark, one trailing newline.
    @Test func tsvRefusesAByteOrderMarkAndAnEndOtherThanOneNewline() {
        let columns = ["name", "value"]
        func problems(_ text: String) -> [String] {
            TSVTable.parse(text, file: "Spec/x.tsv", columns: columns).errors.map(\.description)
        }
        #expect(problems("name\tvalue\nalpha\t1\n") == [])
        #expect(
            problems("\u{FEFF}name\tvalue\nalpha\t1\n") == [
                "Spec/x.tsv:1: a byte-order mark starts the file; save it as UTF-8 without one"
            ])
        #expect(
            problems("name\tvalue\nalpha\t1") == ["Spec/x.tsv:2: the file does not end with a newline; add one"])
        #expect(
            problems("name\tvalue\nalpha\t1\n\n\n") == [
                "Spec/x.tsv:3: empty lines end the file; end it with one newline after the last line"
            ])
        // The table is still read, so the other problems are reported too.
        #expect(
            TSVTable.parse("\u{FEFF}name\tvalue\nalpha\t1", file: "Spec/x.tsv", columns: columns).table?.rows.count == 1
        )
    }

    @Test func tsvWithoutHeader() {
        let (table, errors) = TSVTable.parse("# only comments\n", file: "Spec/x.tsv", columns: ["name"])
        #expect(table == nil)
        #expect(errors.map(\.description) == ["Spec/x.tsv: no header line"])
    }

    @Test func literalsKeepIntegerAndDoubleApart() throws {
        #expect(try SpecLiteral.parse("4") == .integer(4))
        #expect(try SpecLiteral.parse("4.0") == .double(4))
        #expect(try SpecLiteral.parse("1e-7") == .double(1e-7))
        #expect(try SpecLiteral.parse("-12") == .integer(-12))
        #expect(try SpecLiteral.parse("\"a\\u00e9\\n\"") == .string("aé\n"))
        #expect(try SpecLiteral.parse("\"\\ud83d\\ude00\"") == .string("😀"))
        #expect(try SpecLiteral.parse("null") == .null)
        #expect(try SpecLiteral.parse("[]") == .array([]))
        let map = try SpecLiteral.parse(#"{"b": true, "a": [1, 2.5]}"#)
        #expect(map == .map(["b": .boolean(true), "a": .array([.integer(1), .double(2.5)])]))
        #expect(map.description == #"{"a": [1, 2.5], "b": true}"#)
        #expect(FirestoreValue.double(1000).description == "1000.0")
        #expect(
            try SpecLiteral.parse(#"{"$timestamp": "2026-10-20T14:03:07.123Z"}"#).description
                == #"{"$timestamp": "2026-10-20T14:03:07.123Z"}"#)
    }

    @Test func malformedLiteralsNameTheRuleAndColumn() {
        #expect(throws: SpecLiteralError(column: 10, rule: "json.duplicate-key", message: "duplicate key \"a\"")) {
            try SpecLiteral.parse(#"{"a": 1, "a": 2}"#)
        }
    }

    @Test(arguments: [
        "glider", "01", "1.", "{\"a\": 1, \"a\": 2}", "[1,]", "\"open", "9223372036854775808", "true false", "{a: 1}",
    ])
    func malformedLiteralsThrow(text: String) {
        #expect(throws: SpecLiteralError.self) { try SpecLiteral.parse(text) }
    }

    @Test(arguments: [
        "string", "boolean", "integer", "double", "timestamp", "bytes", "date-string", "settingValue",
        "enum:Sport", "unit:altitudeUnit", "map:FlightSummary", "array:map:Turnpoint", "array:enum:Platform",
        "dictionary:map:SettingsEntry",
    ])
    func typeGrammarRoundTrips(text: String) throws {
        let type = try #require(SchemaFieldType(parsing: text))
        #expect(type.description == text)
    }

    @Test(arguments: ["strng", "map:", "enum:", "array:", "list:string", "map:Flight Summary", "Integer"])
    func unknownTypesAreRefused(text: String) {
        #expect(SchemaFieldType(parsing: text) == nil)
    }

    @Test func limitsParse() {
        #expect(FieldLimit(parsing: "maxChars=10000") == .maxChars(10000))
        #expect(FieldLimit(parsing: "minimum=-90") == .minimum(-90))
        #expect(FieldLimit(parsing: "step=100")?.description == "step=100")
        #expect(FieldLimit(parsing: "maxChars=ten") == nil)
        #expect(FieldLimit(parsing: "step=0") == nil)
        #expect(FieldLimit(parsing: "maxWidth=3") == nil)
    }

    @Test func calendarDays() {
        #expect(SchemaSpec.isCalendarDay("2026-10-20"))
        #expect(SchemaSpec.isCalendarDay("2024-02-29"))
        #expect(!SchemaSpec.isCalendarDay("2026-02-29"))
        #expect(!SchemaSpec.isCalendarDay("2026-13-01"))
        #expect(!SchemaSpec.isCalendarDay("20261020"))
    }
}

/// Reading tables held in memory, and the owner lists the generator walks.
@Suite struct InMemorySpecTests {
    @Test func readsATableFromText() {
        var spec = SchemaSpec()
        let errors = spec.read(
            "owner\tfield\ttype\tpresence\tnullable\tdefault\tunit\tlimit\twriteAs\tandroid\tios\tsince\tmeaning\tsource\n"
                + "Thing\tcount\tinteger\trequired\tno\t0\t-\tminimum=0\tvalue\t-\t-\t-\tA count.\ttest\n"
                + "Thing\tsize\tinteger\tsometimes\tno\t0\t-\t-\tvalue\t-\t-\t-\tA size.\ttest\n", as: .fields)
        #expect(
            errors.map(\.description) == [
                "Spec/fields.tsv:3: unknown presence 'sometimes'; expected one of: required, optional"
            ])
        #expect(spec.fields.map(\.name) == ["count"])
        #expect(spec.fields.first?.limits == [.minimum(0)])
        #expect(spec.fields.first?.location == SpecLocation(file: "Spec/fields.tsv", line: 2))
    }

    @Test func ownerLists() throws {
        let spec = try SchemaSpec.load(from: specDirectory)
        #expect(spec.ownerNames.first == "CommonFields")
        #expect(
            spec.mapTypeNames == [
                "StorageRef", "FlightSummary", "IGCBlob", "Turnpoint", "TurnpointZone", "ContentBlob", "SettingsEntry",
                "HomeBaseValue", "ZoneValue",
            ])
    }
}
