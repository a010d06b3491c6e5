import Foundation
import Testing
import VultureSchemaCore

@testable import VultureSyncSchema

/// One edge value: its typed form, its canonical JSON text (unindented scalars only) and a label.
struct EdgeValue: CustomTestStringConvertible, Sendable {
    let label: String
    let value: FirestoreValue
    let canonical: String
    var testDescription: String { label }
}

func ts(_ seconds: Int64, _ micros: Int32 = 0) -> FirestoreValue {
    .timestamp(try! FirestoreTimestamp(seconds: seconds, microseconds: micros))
}

/// Round trips canonical ↔ model ↔ REST over the edge values of Goldens/FORMAT.md.
let edgeValues: [EdgeValue] = [
    EdgeValue(label: "int64 min", value: .integer(.min), canonical: "-9223372036854775808"),
    EdgeValue(label: "int64 max", value: .integer(.max), canonical: "9223372036854775807"),
    EdgeValue(label: "2^53+1 as integer", value: .integer(9_007_199_254_740_993), canonical: "9007199254740993"),
    EdgeValue(label: "zero integer", value: .integer(0), canonical: "0"),
    EdgeValue(label: "2^53 as double", value: .double(9_007_199_254_740_992), canonical: "9007199254740992.0"),
    EdgeValue(label: "zero double", value: .double(0), canonical: "0.0"),
    EdgeValue(label: "negative zero", value: .double(-0.0), canonical: "{\"$double\": \"-0\"}"),
    EdgeValue(label: "NaN", value: .double(.nan), canonical: "{\"$double\": \"NaN\"}"),
    EdgeValue(label: "+Infinity", value: .double(.infinity), canonical: "{\"$double\": \"Infinity\"}"),
    EdgeValue(label: "-Infinity", value: .double(-.infinity), canonical: "{\"$double\": \"-Infinity\"}"),
    EdgeValue(label: "smallest subnormal", value: .double(.leastNonzeroMagnitude), canonical: "5e-324"),
    EdgeValue(label: "1e308", value: .double(1e308), canonical: "1e+308"),
    EdgeValue(label: "largest double", value: .double(.greatestFiniteMagnitude), canonical: "1.7976931348623157e+308"),
    EdgeValue(label: "1.5", value: .double(1.5), canonical: "1.5"),
    EdgeValue(label: "5.0", value: .double(5), canonical: "5.0"),
    EdgeValue(label: "-2.5", value: .double(-2.5), canonical: "-2.5"),
    EdgeValue(label: "1e-7", value: .double(1e-7), canonical: "1e-7"),
    EdgeValue(label: "0.000001", value: .double(0.000001), canonical: "0.000001"),
    EdgeValue(label: "1e21", value: .double(1e21), canonical: "1e+21"),
    EdgeValue(label: "1e20", value: .double(1e20), canonical: "100000000000000000000.0"),
    EdgeValue(label: "1e15", value: .double(1e15), canonical: "1000000000000000.0"),
    EdgeValue(label: "0.1", value: .double(0.1), canonical: "0.1"),
    EdgeValue(label: "1/3", value: .double(1.0 / 3.0), canonical: "0.3333333333333333"),
    EdgeValue(label: "123e-20", value: .double(123e-20), canonical: "1.23e-18"),
    EdgeValue(label: "latitude", value: .double(50.8465573), canonical: "50.8465573"),
    EdgeValue(label: "true", value: .boolean(true), canonical: "true"),
    EdgeValue(label: "null", value: .null, canonical: "null"),
    EdgeValue(label: "empty string", value: .string(""), canonical: "\"\""),
    EdgeValue(
        label: "escapes", value: .string("a\"b\\c/d\u{8}\u{9}\u{A}\u{C}\u{D}\u{1}\u{1F}\u{7F}é😀"),
        canonical: "\"a\\\"b\\\\c/d\\b\\t\\n\\f\\r\\u0001\\u001f\u{7F}é😀\""),
    EdgeValue(
        label: "timestamp minimum, 0 digits", value: ts(-62_135_596_800),
        canonical: "{\"$timestamp\": \"0001-01-01T00:00:00Z\"}"),
    EdgeValue(
        label: "timestamp maximum, 6 digits", value: ts(253_402_300_799, 999_999),
        canonical: "{\"$timestamp\": \"9999-12-31T23:59:59.999999Z\"}"),
    EdgeValue(
        label: "timestamp, 3 digits", value: ts(1_792_504_987, 123_000),
        canonical: "{\"$timestamp\": \"2026-10-20T14:03:07.123Z\"}"),
    EdgeValue(
        label: "timestamp, 6 digits", value: ts(1_792_504_987, 123_456),
        canonical: "{\"$timestamp\": \"2026-10-20T14:03:07.123456Z\"}"),
    EdgeValue(
        label: "timestamp before 1970", value: ts(-1, 500_000),
        canonical: "{\"$timestamp\": \"1969-12-31T23:59:59.500Z\"}"),
    EdgeValue(label: "leap day", value: ts(951_782_400), canonical: "{\"$timestamp\": \"2000-02-29T00:00:00Z\"}"),
    EdgeValue(label: "bytes", value: .bytes(Data([0, 1, 254, 255])), canonical: "{\"$bytes\": \"AAH+/w==\"}"),
    EdgeValue(label: "empty bytes", value: .bytes(Data()), canonical: "{\"$bytes\": \"\"}"),
    EdgeValue(label: "empty map", value: .map([:]), canonical: "{}"),
    EdgeValue(label: "empty array", value: .array([]), canonical: "[]"),
    EdgeValue(
        label: "geo point", value: .geoPoint(GeoPoint(latitude: 50.5, longitude: -4.0)),
        canonical: "{\"$geoPoint\": {\"latitude\": 50.5, \"longitude\": -4.0}}"),
    EdgeValue(
        label: "reference", value: .reference("projects/p/databases/(default)/documents/users/u"),
        canonical: "{\"$reference\": \"projects/p/databases/(default)/documents/users/u\"}"),
    EdgeValue(label: "map with a $ key", value: .map(["$v": .integer(1)]), canonical: "{\"$map\": {\"$v\": 1}}"),
    EdgeValue(
        label: "array of mixed", value: .array([.integer(1), .double(1), .string("1")]), canonical: "[1, 1.0, \"1\"]"),
]

/// Collapses the canonical multi-line layout to one line for comparing short texts.
func oneLine(_ s: String) -> String {
    var out = ""
    var inString = false
    var escaped = false
    var pendingSpace = false
    for ch in s {
        if inString {
            out.append(ch)
            if escaped { escaped = false } else if ch == "\\" { escaped = true } else if ch == "\"" { inString = false }
            continue
        }
        switch ch {
        case "\n": pendingSpace = true
        case " ": if !pendingSpace { out.append(ch) }
        default:
            if pendingSpace, let last = out.last, last != "[", last != "{", ch != "]", ch != "}" { out.append(" ") }
            pendingSpace = false
            if ch == "\"" { inString = true }
            out.append(ch)
        }
    }
    return out.trimmingCharacters(in: .whitespaces)
}

@Suite struct CanonicalJSONRoundTripTests {
    @Test(arguments: edgeValues)
    func writesCanonicalText(_ edge: EdgeValue) {
        let text = CanonicalJSON.string(edge.value)
        #expect(text.hasSuffix("\n"))
        #expect(oneLine(text) == edge.canonical)
    }

    @Test(arguments: edgeValues)
    func canonicalRoundTrip(_ edge: EdgeValue) throws {
        let bytes = CanonicalJSON.encode(edge.value)
        let back = try CanonicalJSON.decode(bytes)
        #expect(back == edge.value)
        #expect(CanonicalJSON.encode(back) == bytes, "writing what was read gives the same bytes")
        // The one-line form reads back to the same value too.
        #expect(try CanonicalJSON.decode(Array(edge.canonical.utf8)) == edge.value)
    }

    @Test(arguments: edgeValues.filter { !$0.value.isSentinel })
    func restRoundTrip(_ edge: EdgeValue) throws {
        let document = FirestoreRESTDocument(
            name: "projects/vulture-app-store/databases/(default)/documents/users/u1",
            fields: [
                "v": edge.value, "nested": .map(["inner": edge.value]),
                "list": .array(
                    [edge.value].filter {
                        if case .array = $0 { return false } else { return true }
                    }),
            ])
        let rest = try FirestoreRESTJSON.encodeDocument(document)
        let back = try FirestoreRESTJSON.decodeDocument(rest)
        #expect(back == document)
        // canonical → model → REST → model → canonical gives the same canonical bytes.
        #expect(CanonicalJSON.encode(.map(back.fields)) == CanonicalJSON.encode(.map(document.fields)))
    }

    @Test func sentinelsRoundTripInWriteForm() throws {
        let write: FirestoreValue = .map([
            "updatedAt": .serverTimestamp,
            "storageBytes": .increment(.integer(-1234)),
            "ratio": .increment(.double(0.5)),
            "comments": .delete,
        ])
        let text = CanonicalJSON.string(write)
        #expect(
            text == """
                {
                  "comments": {
                    "$delete": true
                  },
                  "ratio": {
                    "$increment": 0.5
                  },
                  "storageBytes": {
                    "$increment": -1234
                  },
                  "updatedAt": {
                    "$serverTimestamp": true
                  }
                }

                """)
        #expect(try CanonicalJSON.decode(Array(text.utf8), form: .write) == write)
    }

    /// Keys sort by UTF-16 code units: U+FF61 (one unit 0xFF61) sorts after U+1F600 (0xD83D 0xDE00),
    /// though its UTF-8 and scalar order is the other way round.
    @Test func keysSortByUTF16CodeUnits() {
        let value: FirestoreValue = .map([
            "\u{FF61}": .integer(1), "\u{1F600}": .integer(2), "a": .integer(3), "B": .integer(4), "é": .integer(5),
            "": .integer(6),
        ])
        let text = CanonicalJSON.string(value)
        #expect(
            text == "{\n  \"\": 6,\n  \"B\": 4,\n  \"a\": 3,\n  \"é\": 5,\n  \"😀\": 2,\n  \"｡\": 1\n}\n")
        #expect("\u{FF61}" < "\u{1F600}", "Swift orders Strings by scalars (U+FF61 first); UTF-16 order puts it last")
    }

    @Test func nestedLayoutIsTwoSpaceIndented() {
        let value: FirestoreValue = .map([
            "b": .array([.map(["x": .null]), .array([])]),
            "a": .map([:]),
        ])
        #expect(
            CanonicalJSON.string(value) == """
                {
                  "a": {},
                  "b": [
                    {
                      "x": null
                    },
                    []
                  ]
                }

                """)
    }

    /// Integer vs double is kept exactly as written.
    @Test(arguments: [
        ("1", FirestoreValue.integer(1)), ("1.0", .double(1)), ("1e0", .double(1)), ("-0", .integer(0)),
        ("-0.0", .double(-0.0)), ("1E+2", .double(100)), ("0.5e-1", .double(0.05)),
    ])
    func numbersKeepTheirType(_ text: String, _ expected: FirestoreValue) throws {
        #expect(try CanonicalJSON.decode(Array(text.utf8)) == expected)
    }
}

@Suite struct ECMAScriptNumberTests {
    /// ECMA-262 Number::toString examples (and RFC 8785 Appendix B values).
    @Test(arguments: [
        (0.0, "0"), (-0.0, "0"), (1.0, "1"), (-1.5, "-1.5"), (1e21, "1e+21"), (1e20, "100000000000000000000"),
        (Double("123456789012345680000")!, "123456789012345680000"), (1e-6, "0.000001"), (1e-7, "1e-7"),
        (4.35, "4.35"), (0.002, "0.002"), (.leastNonzeroMagnitude, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (9_007_199_254_740_992, "9007199254740992"), (Double("295147905179352830000")!, "295147905179352830000"),
        (4.5, "4.5"), (2e-3, "0.002"), (0.000001, "0.000001"), (333333333.3333333, "333333333.3333333"),
        (1e23, "1e+23"), (-.leastNonzeroMagnitude, "-5e-324"), (1.2e-10, "1.2e-10"),
    ])
    func numberToString(_ value: Double, _ expected: String) {
        #expect(ECMAScriptNumber.string(value) == expected)
    }
}
