import Foundation
import Testing
import VultureSchemaCore

@testable import VultureSyncSchema

@Suite struct FirestoreRESTJSONTests {
    /// A document as the REST API returns it, with every value kind.
    static let restDocument = """
        {
          "name": "projects/vulture-app-store/databases/(default)/documents/users/u1/homebases/abc",
          "fields": {
            "name": {"stringValue": "Bierset"},
            "latitude": {"doubleValue": 50.6374},
            "whole": {"doubleValue": 3},
            "count": {"integerValue": "-42"},
            "countAsNumber": {"integerValue": 7},
            "nan": {"doubleValue": "NaN"},
            "inf": {"doubleValue": "-Infinity"},
            "usedAt": {"timestampValue": "2026-10-20T14:03:07.123456789Z"},
            "offset": {"timestampValue": "2026-10-20T16:03:07+02:00"},
            "flag": {"booleanValue": true},
            "nothing": {"nullValue": null},
            "nothingEnum": {"nullValue": "NULL_VALUE"},
            "blob": {"bytesValue": "AAH+/w=="},
            "ref": {"referenceValue": "projects/p/databases/(default)/documents/users/u1"},
            "where": {"geoPointValue": {"latitude": 50.5}},
            "list": {"arrayValue": {"values": [{"integerValue": "1"}, {"mapValue": {"fields": {"x": {"stringValue": "y"}}}}]}},
            "emptyList": {"arrayValue": {}},
            "emptyMap": {"mapValue": {}}
          },
          "createTime": "2026-10-20T14:03:07.000001Z",
          "updateTime": "2026-10-20T14:03:07.5Z"
        }
        """

    @Test func readsEveryValueKind() throws {
        let doc = try FirestoreRESTJSON.decodeDocument(Array(Self.restDocument.utf8))
        let t = { (s: Int64, us: Int32) in try FirestoreTimestamp(seconds: s, microseconds: us) }
        #expect(doc.name == "projects/vulture-app-store/databases/(default)/documents/users/u1/homebases/abc")
        #expect(doc.createTime == (try t(1_792_504_987, 1)))
        #expect(doc.updateTime == (try t(1_792_504_987, 500_000)))
        let expected: [String: FirestoreValue] = [
            "name": .string("Bierset"),
            "latitude": .double(50.6374),
            "whole": .double(3),
            "count": .integer(-42),
            "countAsNumber": .integer(7),
            "nan": .double(.nan),
            "inf": .double(-.infinity),
            "usedAt": .timestamp(try t(1_792_504_987, 123_456)),  // 9 digits rounded down
            "offset": .timestamp(try t(1_792_504_987, 0)),
            "flag": .boolean(true),
            "nothing": .null,
            "nothingEnum": .null,
            "blob": .bytes(Data([0, 1, 254, 255])),
            "ref": .reference("projects/p/databases/(default)/documents/users/u1"),
            "where": .geoPoint(GeoPoint(latitude: 50.5, longitude: 0)),
            "list": .array([.integer(1), .map(["x": .string("y")])]),
            "emptyList": .array([]),
            "emptyMap": .map([:]),
        ]
        #expect(doc.fields == expected)
    }

    @Test func writesIntegerAsStringAndSpecialDoublesAsStrings() throws {
        let doc = FirestoreRESTDocument(fields: [
            "i": .integer(.max), "d": .double(2), "n": .double(.nan), "z": .double(-0.0),
            "e": .array([]), "m": .map([:]),
        ])
        let text = String(decoding: try FirestoreRESTJSON.encodeDocument(doc), as: UTF8.self)
        #expect(
            text == """
                {
                  "fields": {
                    "d": {
                      "doubleValue": 2.0
                    },
                    "e": {
                      "arrayValue": {}
                    },
                    "i": {
                      "integerValue": "9223372036854775807"
                    },
                    "m": {
                      "mapValue": {}
                    },
                    "n": {
                      "doubleValue": "NaN"
                    },
                    "z": {
                      "doubleValue": -0.0
                    }
                  }
                }

                """)
        #expect(try FirestoreRESTJSON.decodeDocument(Array(text.utf8)) == doc)
    }

    @Test func sentinelsHaveNoRESTForm() {
        #expect {
            try FirestoreRESTJSON.encodeDocument(FirestoreRESTDocument(fields: ["updatedAt": .serverTimestamp]))
        } throws: {
            ($0 as? SchemaInputError)?.rule == .sentinelInStoredForm
                && ($0 as? SchemaInputError)?.pointer == "/updatedAt"
        }
    }

    static let rejections: [(String, InputRule, String, Int, Int)] = [
        ("{\"fields\": {\"a\": {\"integerValue\": \"1.5\"}}}", .restInteger, "/fields/a/integerValue", 1, 35),
        (
            "{\"fields\": {\"a\": {\"integerValue\": \"9223372036854775808\"}}}", .restInteger,
            "/fields/a/integerValue", 1, 35
        ),
        ("{\"fields\": {\"a\": {\"integerValue\": \"+1\"}}}", .restInteger, "/fields/a/integerValue", 1, 35),
        ("{\"fields\": {\"a\": {\"integerValue\": \"01\"}}}", .restInteger, "/fields/a/integerValue", 1, 35),
        ("{\"fields\": {\"a\": {\"doubleValue\": \"1.5x\"}}}", .restDouble, "/fields/a/doubleValue", 1, 34),
        ("{\"fields\": {\"a\": {\"doubleValue\": true}}}", .restDouble, "/fields/a/doubleValue", 1, 34),
        (
            "{\"fields\": {\"a\": {\"timestampValue\": \"2026-10-20T14:03:07.1234567891Z\"}}}", .restTimestamp,
            "/fields/a/timestampValue", 1, 37
        ),
        (
            "{\"fields\": {\"a\": {\"timestampValue\": \"2026-10-20 14:03:07Z\"}}}", .restTimestamp,
            "/fields/a/timestampValue", 1, 37
        ),
        (
            "{\"fields\": {\"a\": {\"timestampValue\": \"10000-01-01T00:00:00Z\"}}}", .restTimestamp,
            "/fields/a/timestampValue", 1, 37
        ),
        (
            "{\"fields\": {\"a\": {\"timestampValue\": \"0001-01-01T00:30:00+01:00\"}}}", .timestampRange,
            "/fields/a/timestampValue", 1, 37
        ),
        ("{\"fields\": {\"a\": {\"bytesValue\": \"AAH-/w==\"}}}", .base64, "/fields/a/bytesValue", 1, 33),
        ("{\"fields\": {\"a\": {\"stringValue\": \"x\", \"integerValue\": \"1\"}}}", .restShape, "/fields/a", 1, 18),
        ("{\"fields\": {\"a\": {\"vectorValue\": {}}}}", .restShape, "/fields/a", 1, 18),
        ("{\"fields\": {\"a\": \"plain\"}}", .restShape, "/fields/a", 1, 18),
        (
            "{\"fields\": {\"a\": {\"arrayValue\": {\"values\": [{\"arrayValue\": {}}]}}}}", .arrayInArray,
            "/fields/a/arrayValue/values/0", 1, 45
        ),
        ("{\"fields\": {\"__a__\": {\"nullValue\": null}}}", .fieldNameReserved, "/fields/__a__", 1, 13),
        ("{\"fields\": {}, \"extra\": 1}", .restShape, "/extra", 1, 16),
        ("{\"name\": \"users/u1\", \"fields\": {}}", .referenceFormat, "/name", 1, 10),
        (
            "{\"fields\": {\"a\": {\"mapValue\": {\"fields\": {\"b\": {\"nullValue\": null}}, \"x\": 1}}}}", .restShape,
            "/fields/a/mapValue/x", 1, 70
        ),
        (
            "{\"fields\": {\"a\": {\"geoPointValue\": {\"latitude\": 100}}}}", .geoPointRange,
            "/fields/a/geoPointValue", 1, 36
        ),
        ("[]", .restShape, "", 1, 1),
    ]

    @Test(arguments: rejections)
    func rejects(_ text: String, _ rule: InputRule, _ pointer: String, _ line: Int, _ column: Int) {
        do {
            let doc = try FirestoreRESTJSON.decodeDocument(Array(text.utf8), file: "doc.rest.json")
            Issue.record("accepted \(doc)")
        } catch let e as SchemaInputError {
            #expect(e.rule == rule, "\(e)")
            #expect(e.pointer == pointer, "\(e)")
            #expect(e.line == line && e.column == column, "\(e)")
            #expect(e.file == "doc.rest.json")
        } catch {
            Issue.record("untyped error \(error)")
        }
    }

    /// A REST timestamp with 9 fraction digits is rounded down (toward the past) to microseconds,
    /// also before 1970.
    @Test(arguments: [
        ("1969-12-31T23:59:59.999999999Z", Int64(-1), Int32(999_999)),
        ("1970-01-01T00:00:00.000000999Z", 0, 0),
        ("2026-10-20T14:03:07.9Z", 1_792_504_987, 900_000),
        ("9999-12-31T23:59:59.999999999Z", 253_402_300_799, 999_999),
        ("0001-01-01T00:00:00Z", -62_135_596_800, 0),
    ])
    func restTimestampsRoundDownToMicroseconds(_ text: String, _ seconds: Int64, _ micros: Int32) throws {
        let v = try FirestoreRESTJSON.decodeValue(Array("{\"timestampValue\": \"\(text)\"}".utf8))
        #expect(v == .timestamp(try FirestoreTimestamp(seconds: seconds, microseconds: micros)))
    }
}

@Suite struct StorageSizeTests {
    /// Firestore's worked example: users/jeff/tasks/my_task_id with four fields is 147 bytes.
    @Test func documentedExampleIs147Bytes() {
        let fields: [String: FirestoreValue] = [
            "type": .string("Personal"), "done": .boolean(false), "priority": .integer(1),
            "description": .string("Learn Cloud Firestore"),
        ]
        #expect(StorageSize.documentName("users/jeff/tasks/my_task_id") == 44)
        #expect(StorageSize.fields(fields) == 71)
        #expect(StorageSize.document(path: "users/jeff/tasks/my_task_id", fields: fields) == 147)
        #expect(
            StorageSize.document(
                path: "projects/p/databases/(default)/documents/users/jeff/tasks/my_task_id", fields: fields) == 147)
    }

    static let sizes: [(FirestoreValue, Int)] = [
        (.null, 1), (.boolean(true), 1), (.integer(5), 8), (.double(1), 8), (.string("é"), 3),
        (.bytes(Data(count: 10)), 10), (.geoPoint(GeoPoint(latitude: 0, longitude: 0)), 16),
        (.reference("projects/p/databases/d/documents/users/jeff"), 6 + 5 + 16),
        (.array([.integer(1), .string("ab")]), 8 + 3),
        // Pinned: a nested map is Σ(field-name size + value size), without a name or 32 extra bytes.
        (.map(["a": .integer(1), "bc": .map(["d": .null])]), (2 + 8) + (3 + (2 + 1))),
        (.map([:]), 0), (.serverTimestamp, 8), (.increment(.integer(1)), 8), (.delete, 0),
    ]

    @Test(arguments: sizes)
    func valueSizes(_ value: FirestoreValue, _ size: Int) {
        #expect(StorageSize.value(value) == size)
    }
}
