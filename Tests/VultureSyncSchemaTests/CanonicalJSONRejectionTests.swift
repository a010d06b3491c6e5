import Foundation
import Testing
import VultureSchemaCore

@testable import VultureSyncSchema

/// One bad input and the typed error it must give: rule, 1-based line:column and JSON pointer.
struct Rejection: CustomTestStringConvertible, Sendable {
    let label: String
    let input: [UInt8]
    let rule: InputRule
    let line: Int
    let column: Int
    let pointer: String
    var form: DocumentForm? = nil
    var testDescription: String { label }

    init(
        _ label: String, _ text: String, _ rule: InputRule, _ line: Int, _ column: Int, _ pointer: String,
        form: DocumentForm? = nil
    ) {
        self.init(label, Array(text.utf8), rule, line, column, pointer, form: form)
    }

    init(
        _ label: String, _ bytes: [UInt8], _ rule: InputRule, _ line: Int, _ column: Int, _ pointer: String,
        form: DocumentForm? = nil
    ) {
        self.label = label
        self.input = bytes
        self.rule = rule
        self.line = line
        self.column = column
        self.pointer = pointer
        self.form = form
    }
}

let deepArray = String(repeating: "[{\"a\":", count: 11) + "1" + String(repeating: "}]", count: 11)
let deepMap = String(repeating: "{\"a\":", count: 21) + "{}" + String(repeating: "}", count: 21)
let veryDeep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)

let canonicalRejections: [Rejection] = [
    // JSON text.
    Rejection("empty input", "", .jsonSyntax, 1, 1, ""),
    Rejection("trailing garbage", "{\"a\": 1} x", .jsonTrailingGarbage, 1, 10, ""),
    Rejection("two values", "1 2", .jsonTrailingGarbage, 1, 3, ""),
    Rejection("duplicate key", "{\n  \"a\": 1,\n  \"a\": 2\n}", .jsonDuplicateKey, 3, 3, "/a"),
    Rejection(
        "duplicate key in a large object",
        "{" + (0..<12).map { "\"k\($0)\": 0" }.joined(separator: ", ") + ", \"k3\": 1}", .jsonDuplicateKey, 1, 112,
        "/k3"),
    Rejection("nested duplicate key", "{\"m\": {\"x\": 1, \"x\": 1}}", .jsonDuplicateKey, 1, 16, "/m/x"),
    Rejection("invalid UTF-8 byte", [0x22, 0x61, 0xFF, 0x22], .jsonInvalidUTF8, 1, 3, ""),
    Rejection("overlong UTF-8", [0x22, 0xC0, 0xAF, 0x22], .jsonInvalidUTF8, 1, 2, ""),
    Rejection("UTF-8 encoded surrogate", [0x22, 0xED, 0xA0, 0x80, 0x22], .jsonInvalidUTF8, 1, 3, ""),
    Rejection("truncated UTF-8", [0x22, 0xE2, 0x82], .jsonInvalidUTF8, 1, 2, ""),
    Rejection("above U+10FFFF", [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], .jsonInvalidUTF8, 1, 3, ""),
    Rejection("lone high surrogate", "[\"\\ud83d\"]", .jsonLoneSurrogate, 1, 3, "/0"),
    Rejection("lone low surrogate", "{\"k\": \"x\\ude00\"}", .jsonLoneSurrogate, 1, 9, "/k"),
    Rejection("high surrogate then non-surrogate", "\"\\ud83d\\u0041\"", .jsonLoneSurrogate, 1, 2, ""),
    Rejection("raw control character", "\"a\tb\"", .jsonControlCharacter, 1, 3, ""),
    Rejection("integer above int64", "{\"n\": 9223372036854775808}", .jsonIntegerRange, 1, 7, "/n"),
    Rejection("integer below int64", "[-9223372036854775809]", .jsonIntegerRange, 1, 2, "/0"),
    Rejection("double overflow", "1e400", .jsonDoubleRange, 1, 1, ""),
    Rejection("leading zero", "01", .jsonSyntax, 1, 2, ""),
    Rejection("plus sign", "+1", .jsonSyntax, 1, 1, ""),
    Rejection("bare dot", "1.", .jsonSyntax, 1, 3, ""),
    Rejection("NaN literal", "NaN", .jsonSyntax, 1, 1, ""),
    Rejection("single quotes", "{'a': 1}", .jsonSyntax, 1, 2, ""),
    Rejection("trailing comma", "[1, 2,]", .jsonSyntax, 1, 7, "/2"),
    Rejection("missing colon", "{\"a\" 1}", .jsonSyntax, 1, 6, "/a"),
    Rejection("bad escape", "\"\\x\"", .jsonSyntax, 1, 2, ""),
    Rejection("byte-order mark", [0xEF, 0xBB, 0xBF, 0x31], .jsonSyntax, 1, 1, ""),
    Rejection("unterminated string", "{\"a\": \"b", .jsonSyntax, 1, 7, "/a"),
    Rejection("too deep for the reader", veryDeep, .jsonTooDeep, 1, 513, String(repeating: "/0", count: 512)),
    // Canonical wrappers.
    Rejection(
        "wrapper with two keys", "{\"$timestamp\": \"2026-01-01T00:00:00Z\", \"x\": 1}", .canonicalWrapper, 1, 2,
        "/$timestamp"),
    Rejection("$ key in a plain map", "{\"a\": 1, \"$b\": 2}", .canonicalWrapper, 1, 10, "/$b"),
    Rejection("unknown wrapper", "{\"$date\": 1}", .canonicalUnknownWrapper, 1, 2, "/$date"),
    Rejection("bad $double", "{\"$double\": \"1.5\"}", .canonicalWrapper, 1, 13, "/$double"),
    Rejection("$double as number", "{\"$double\": 1.5}", .canonicalWrapper, 1, 13, "/$double"),
    Rejection(
        "timestamp with offset", "{\"$timestamp\": \"2026-10-20T14:03:07+02:00\"}", .canonicalTimestamp, 1, 16,
        "/$timestamp"),
    Rejection(
        "timestamp with 9 digits", "{\"$timestamp\": \"2026-10-20T14:03:07.123456789Z\"}", .canonicalTimestamp, 1, 16,
        "/$timestamp"),
    Rejection(
        "timestamp with 2 digits", "{\"$timestamp\": \"2026-10-20T14:03:07.12Z\"}", .canonicalTimestamp, 1, 16,
        "/$timestamp"),
    Rejection(
        "timestamp 30 February", "{\"$timestamp\": \"2026-02-30T00:00:00Z\"}", .canonicalTimestamp, 1, 16, "/$timestamp"
    ),
    Rejection(
        "timestamp year 0", "{\"$timestamp\": \"0000-12-31T23:59:59Z\"}", .canonicalTimestamp, 1, 16, "/$timestamp"),
    Rejection(
        "timestamp leap second", "{\"$timestamp\": \"2016-12-31T23:59:60Z\"}", .canonicalTimestamp, 1, 16, "/$timestamp"
    ),
    Rejection(
        "timestamp lower-case z", "{\"$timestamp\": \"2026-10-20T14:03:07z\"}", .canonicalTimestamp, 1, 16,
        "/$timestamp"),
    Rejection("bytes not base64", "{\"$bytes\": \"@@@\"}", .base64, 1, 12, "/$bytes"),
    Rejection("bytes without padding", "{\"$bytes\": \"AAH\"}", .base64, 1, 12, "/$bytes"),
    Rejection("bytes url-safe alphabet", "{\"$bytes\": \"AAH-_w==\"}", .base64, 1, 12, "/$bytes"),
    Rejection("bytes non-canonical bits", "{\"$bytes\": \"QR==\"}", .base64, 1, 12, "/$bytes"),
    Rejection(
        "geo point latitude 91", "{\"$geoPoint\": {\"latitude\": 91.0, \"longitude\": 0.0}}", .geoPointRange, 1, 15,
        "/$geoPoint"),
    Rejection(
        "geo point missing longitude", "{\"$geoPoint\": {\"latitude\": 1.0}}", .canonicalWrapper, 1, 15, "/$geoPoint"),
    Rejection("reference not a document name", "{\"$reference\": \"users/u\"}", .referenceFormat, 1, 16, "/$reference"),
    Rejection("$serverTimestamp false", "{\"$serverTimestamp\": false}", .canonicalWrapper, 1, 22, "/$serverTimestamp"),
    Rejection("$increment string", "{\"$increment\": \"1\"}", .canonicalWrapper, 1, 16, "/$increment"),
    Rejection("$map of a number", "{\"$map\": 3}", .canonicalWrapper, 1, 10, "/$map"),
    // Firestore constraints.
    Rejection("array in array", "{\"a\": [[1]]}", .arrayInArray, 1, 8, "/a/0"),
    Rejection(
        "too deep through arrays and maps", deepArray, .depth, 1, 62, String(repeating: "/0/a", count: 10) + "/0"),
    Rejection("too deep through maps", deepMap, .depth, 1, 106, String(repeating: "/a", count: 21)),
    Rejection("reserved field name", "{\"__name__\": 1}", .fieldNameReserved, 1, 2, "/__name__"),
    Rejection("reserved nested field name", "{\"m\": {\"__x__\": 1}}", .fieldNameReserved, 1, 8, "/m/__x__"),
    Rejection(
        "field name over 1500 bytes", "{\"" + String(repeating: "é", count: 751) + "\": 1}", .fieldNameLength, 1, 2,
        "/" + String(repeating: "é", count: 751)),
    Rejection("sentinel inside an array", "[{\"$serverTimestamp\": true}]", .sentinelInArray, 1, 3, "/0"),
    Rejection(
        "sentinel in stored form", "{\"updatedAt\": {\"$serverTimestamp\": true}}", .sentinelInStoredForm, 1, 16,
        "/updatedAt", form: .stored),
    Rejection(
        "delete in stored form", "{\"x\": {\"$delete\": true}}", .sentinelInStoredForm, 1, 8, "/x", form: .stored),
]

@Suite struct CanonicalJSONRejectionTests {
    @Test(arguments: canonicalRejections)
    func rejects(_ r: Rejection) {
        do {
            let value = try CanonicalJSON.decode(r.input, file: "case.json", form: r.form)
            Issue.record("accepted \(value)")
        } catch let e as SchemaInputError {
            #expect(e.rule == r.rule, "\(e)")
            #expect(e.line == r.line, "\(e)")
            #expect(e.column == r.column, "\(e)")
            #expect(e.pointer == r.pointer, "\(e)")
            #expect(e.file == "case.json")
            #expect(e.description.hasPrefix("case.json:\(r.line):\(r.column): "))
        } catch {
            Issue.record("untyped error \(error)")
        }
    }

    @Test func errorDescriptionNamesFilePositionPointerAndRule() throws {
        let e = try #require(throws: SchemaInputError.self) {
            try CanonicalJSON.decode(Array("{\n  \"a\": [\n    [1]\n  ]\n}\n".utf8), file: "flight.json")
        }
        #expect(e.description == "flight.json:3:5: /a/0: value.array-in-array: an array directly inside an array")
    }

    @Test func depthTwentyIsAccepted() throws {
        let twenty = String(repeating: "{\"a\":", count: 20) + "1" + String(repeating: "}", count: 20)
        let v = try CanonicalJSON.decode(Array(twenty.utf8))
        #expect(v[fieldPath: Array(repeating: "a", count: 20).joined(separator: ".")] == .integer(1))
    }

    @Test func fieldNameOf1500BytesIsAccepted() throws {
        let name = String(repeating: "é", count: 750)
        let v = try CanonicalJSON.decode(Array("{\"\(name)\": true}".utf8))
        #expect(v == .map([name: .boolean(true)]))
    }
}

@Suite struct ValueValidationTests {
    @Test(arguments: [
        (FirestoreValue.array([.array([])]), InputRule.arrayInArray, "/0"),
        (.map(["a": .array([.delete])]), .sentinelInArray, "/a/0"),
        (.map(["__id__": .null]), .fieldNameReserved, "/__id__"),
        (.map(["g": .geoPoint(GeoPoint(latitude: 0, longitude: 181))]), .geoPointRange, "/g"),
        (.map(["r": .reference("projects/p/databases/d/documents/users")]), .referenceFormat, "/r"),
    ])
    func builtValuesAreChecked(_ value: FirestoreValue, _ rule: InputRule, _ pointer: String) {
        #expect {
            try value.validate()
        } throws: { error in
            (error as? SchemaInputError)?.rule == rule && (error as? SchemaInputError)?.pointer == pointer
        }
    }

    @Test func storedFormRejectsSentinelsWriteFormAcceptsThem() throws {
        let v: FirestoreValue = .map(["updatedAt": .serverTimestamp])
        try v.validate(form: .write)
        #expect(throws: SchemaInputError.self) { try v.validate(form: .stored) }
    }

    @Test(arguments: [(-62_135_596_801 as Int64, 0 as Int32), (253_402_300_800, 0), (0, 1_000_000), (0, -1)])
    func timestampsOutsideFirestoresRangeAreRejected(_ seconds: Int64, _ micros: Int32) {
        #expect {
            try FirestoreTimestamp(seconds: seconds, microseconds: micros)
        } throws: { ($0 as? SchemaInputError)?.rule == .timestampRange }
    }

    @Test func typedEquality() {
        #expect(FirestoreValue.integer(1) != .double(1))
        #expect(FirestoreValue.double(.nan) == .double(.nan))
        #expect(FirestoreValue.double(0) != .double(-0.0))
        #expect(
            FirestoreValue.string("é") != .string("e\u{301}"), "strings compare by scalars, not canonical equivalence")
    }
}
