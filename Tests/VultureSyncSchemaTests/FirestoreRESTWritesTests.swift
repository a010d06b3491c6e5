import Foundation
import Testing
import VultureSchemaCore

@testable import VultureSyncSchema

/// REST `Write`, `CommitRequest` and `BatchWriteRequest`: written canonically, read back, and read
/// as SDKs send them.
@Suite struct FirestoreRESTWritesTests {
    static let database = "projects/vulture-app/databases/(default)"

    static func p(_ text: String) throws -> FieldPath { try FieldPath(parsing: text) }

    /// A leaf merge of a flight with both transforms and a precondition, as the REST writer sends it.
    static let restWrite = """
        {
          "currentDocument": {
            "exists": true
          },
          "update": {
            "fields": {
              "summary": {
                "mapValue": {
                  "fields": {
                    "duration": {
                      "integerValue": "18000"
                    }
                  }
                }
              }
            },
            "name": "projects/vulture-app/databases/(default)/documents/users/u1/flights/f1"
          },
          "updateMask": {
            "fieldPaths": [
              "summary.duration",
              "summary.thermalAltitudeGained"
            ]
          },
          "updateTransforms": [
            {
              "fieldPath": "storageBytes",
              "increment": {
                "integerValue": "-1024"
              }
            },
            {
              "fieldPath": "updatedAt",
              "setToServerValue": "REQUEST_TIME"
            }
          ]
        }

        """

    static func flightMerge() throws -> FirestoreWrite {
        var w = try FirestoreWrite.set(
            [
                "summary": .map(["duration": .integer(18_000), "thermalAltitudeGained": .delete]),
                "updatedAt": .serverTimestamp, "storageBytes": .increment(.integer(-1024)),
            ], merge: true, path: "users/u1/flights/f1")
        w.precondition = .exists(true)
        return w
    }

    @Test func writesAWriteCanonicallyAndReadsItBack() throws {
        let w = try Self.flightMerge()
        let bytes = try FirestoreRESTJSON.encodeWrite(w, database: Self.database)
        #expect(String(decoding: bytes, as: UTF8.self) == Self.restWrite)
        let (back, database) = try FirestoreRESTJSON.decodeWrite(bytes)
        #expect(database == Self.database)
        #expect(back == w)
    }

    @Test func commitAndBatchWriteRequestsRoundTrip() throws {
        let writes = [
            try Self.flightMerge(), .delete(path: "users/u1/flights/f2", precondition: .exists(true)),
            try FirestoreWrite.set(["name": .string("Aachen"), "v": .double(.nan)], path: "users/u1/homebases/aachen"),
        ]
        let commit = FirestoreCommitRequest(database: Self.database, writes: writes, transaction: Data([1, 2, 255]))
        let commitBytes = try FirestoreRESTJSON.encodeCommitRequest(commit)
        #expect(try FirestoreRESTJSON.decodeCommitRequest(commitBytes) == commit)
        #expect(try FirestoreRESTJSON.decodeWriteMessage(commitBytes) == .commitRequest(commit))

        let batch = FirestoreBatchWriteRequest(database: Self.database, writes: writes, labels: ["app": "vulture"])
        let batchBytes = try FirestoreRESTJSON.encodeBatchWriteRequest(batch)
        #expect(try FirestoreRESTJSON.decodeBatchWriteRequest(batchBytes) == batch)
        #expect(try FirestoreRESTJSON.decodeWriteMessage(batchBytes) == .batchWriteRequest(batch))
        #expect(
            try FirestoreRESTJSON.decodeWriteMessage(Array(Self.restWrite.utf8))
                == .write(try Self.flightMerge(), database: Self.database))
    }

    /// What Google's SDKs send for `set({summary: {t: serverTimestamp()}}, {merge: true})`: an empty
    /// map the mask does not list above the transform, proto field names, and a `transform` write.
    @Test func readsWritesAsSDKsSendThem() throws {
        let name = "\(Self.database)/documents/users/u1/profile/p"
        let sdkMerge = """
            {"update": {"name": "\(name)", "fields": {"summary": {"map_value": {}}}},
             "update_mask": {"field_paths": []},
             "update_transforms": [{"field_path": "summary.t", "set_to_server_value": 1}],
             "current_document": null}
            """
        let (w, _) = try FirestoreRESTJSON.decodeWrite(Array(sdkMerge.utf8))
        #expect(w.fields == ["summary": .map(["t": .serverTimestamp])])
        #expect(w.mask == [try Self.p("summary.t")])
        #expect(w.precondition == nil)

        let transform = """
            {"transform": {"document": "\(name)", "fieldTransforms": [{"fieldPath": "storageBytes", "increment": {"integerValue": 512}}]},
             "currentDocument": {"exists": true}}
            """
        let (t, _) = try FirestoreRESTJSON.decodeWrite(Array(transform.utf8))
        #expect(t.fields == ["storageBytes": .increment(.integer(512))])
        #expect(t.mask == [try Self.p("storageBytes")])
        #expect(t.precondition == .exists(true))

        let mergeFields = """
            {"update": {"name": "\(name)", "fields": {"summary": {"mapValue": {"fields": {"a": {"integerValue": "1"}}}}}},
             "updateMask": {"fieldPaths": ["summary"]},
             "updateTransforms": [{"fieldPath": "summary.t", "increment": {"doubleValue": "0.5"}}]}
            """
        let (m, _) = try FirestoreRESTJSON.decodeWrite(Array(mergeFields.utf8))
        #expect(m.fields == ["summary": .map(["a": .integer(1), "t": .increment(.double(0.5))])])
        #expect(m.mask == [try Self.p("summary")])
        #expect(m.updateMask == [try Self.p("summary")], "the transform beneath a mask path is not listed again")
    }

    static let rejections: [(String, InputRule, String)] = [
        (
            #"{"update": {"name": "N", "fields": {"a": {"integerValue": "1"}}}, "updateMask": {"fieldPaths": []}}"#,
            .writeMask, "/update/fields/a"
        ),
        (
            #"{"update": {"name": "N", "fields": {"a": {"integerValue": "1"}}}, "updateTransforms": [{"fieldPath": "a", "increment": {"integerValue": "1"}}]}"#,
            .writeTransform, "/updateTransforms/0"
        ),
        (
            #"{"update": {"name": "N", "fields": {}}, "updateTransforms": [{"fieldPath": "a", "maximum": {"integerValue": "1"}}]}"#,
            .writeTransform, "/updateTransforms/0/maximum"
        ),
        (
            #"{"update": {"name": "N", "fields": {}}, "updateTransforms": [{"fieldPath": "a", "setToServerValue": "SERVER_VALUE_UNSPECIFIED"}]}"#,
            .writeTransform, "/updateTransforms/0/setToServerValue"
        ),
        (
            #"{"update": {"name": "N", "fields": {}}, "updateTransforms": [{"fieldPath": "a", "increment": {"stringValue": "1"}}]}"#,
            .writeTransform, "/updateTransforms/0/increment"
        ),
        (
            #"{"update": {"name": "N", "fields": {}}, "updateMask": {"fieldPaths": ["a..b"]}}"#, .fieldPath,
            "/updateMask/fieldPaths/0"
        ),
        (#"{"update": {"name": "N", "fields": {}}, "delete": "N"}"#, .writeShape, "/delete"),
        (
            #"{"delete": "N", "currentDocument": {"exists": true, "updateTime": "2026-01-01T00:00:00Z"}}"#, .writeShape,
            "/currentDocument/updateTime"
        ),
        (#"{"delete": "N", "updateMask": {"fieldPaths": ["a"]}}"#, .writeShape, ""),
        (#"{"delete": "projects/p/databases/d/documents/users"}"#, .referenceFormat, "/delete"),
        (#"{"update": {"name": "N", "fields": {}, "updateTime": "2026-01-01T00:00:00Z"}}"#, .writeShape, "/update"),
        (#"{"update": {"name": "N", "fields": {}}, "update_mask": {}, "updateMask": {}}"#, .restShape, "/updateMask"),
        (#"{"writes": [{"delete": "N"}], "database": "projects/other/databases/(default)"}"#, .writeShape, "/writes/0"),
    ]

    @Test(arguments: rejections)
    func rejects(_ template: String, _ rule: InputRule, _ pointer: String) {
        let text = template.replacingOccurrences(of: "\"N\"", with: "\"\(Self.database)/documents/users/u1\"")
        do {
            let message = try FirestoreRESTJSON.decodeWriteMessage(Array(text.utf8), file: "w.json")
            Issue.record("accepted \(message)")
        } catch let e as SchemaInputError {
            #expect(e.rule == rule, "\(e)")
            #expect(e.pointer == pointer, "\(e)")
            #expect(e.file == "w.json", "\(e)")
            #expect(e.line != nil && e.column != nil, "every refusal names its line and column: \(e)")
        } catch {
            Issue.record("untyped \(error)")
        }
    }

    /// Found by the fuzz target firestore-rest (Tools/fuzz/regressions/firestore-rest/update-outside-mask.json):
    /// a value the updateMask does not cover was refused with its pointer but no line:column.
    @Test func aValueOutsideTheMaskIsRefusedAtItsPosition() throws {
        let text = """
            {"update": {"name": "\(Self.database)/documents/users/u1",
              "fields": {"a": {"integerValue": "1"},
                "m": {"map_value": {"fields": {"x": {"integerValue": "2"}, "y": {"integerValue": "3"}}}}}},
             "updateMask": {"fieldPaths": ["b", "a", "m.y"]}}
            """
        do {
            let w = try FirestoreRESTJSON.decodeWrite(Array(text.utf8), file: "w.json")
            Issue.record("accepted \(w)")
        } catch let e as SchemaInputError {
            #expect(e.rule == .writeMask)
            #expect(e.pointer == "/update/fields/m/mapValue/fields/x")
            #expect(e.file == "w.json" && e.line == 3 && e.column == 41, "\(e)")
        }
    }
}

/// The REST reader accepts what ProtoJSON accepts for `Document` and `Value`, and still refuses
/// what no ProtoJSON reader would.
@Suite struct ProtoJSONLeniencyTests {
    static func value(_ json: String) throws -> FirestoreValue {
        try FirestoreRESTJSON.decodeValue(Array(json.utf8))
    }

    static let accepted: [(String, FirestoreValue)] = [
        (#"{"nullValue": 0}"#, .null),
        (#"{"nullValue": "NULL_VALUE"}"#, .null),
        (#"{"null_value": null}"#, .null),
        (#"{"integerValue": 42}"#, .integer(42)),
        (#"{"integerValue": 1e3}"#, .integer(1000)),
        (#"{"integerValue": 2.0}"#, .integer(2)),
        (#"{"integerValue": "2.50e1"}"#, .integer(25)),
        (#"{"integerValue": -9.223372036854775808e18}"#, .integer(.min)),
        (#"{"integer_value": "-7"}"#, .integer(-7)),
        (#"{"doubleValue": "36.4"}"#, .double(36.4)),
        (#"{"doubleValue": "-0"}"#, .double(-0.0)),
        (#"{"doubleValue": "5e-324"}"#, .double(.leastNonzeroMagnitude)),
        (#"{"doubleValue": 4.9E-324}"#, .double(.leastNonzeroMagnitude)),
        (#"{"double_value": 3}"#, .double(3)),
        (#"{"bytesValue": "AAH-_w=="}"#, .bytes(Data([0, 1, 254, 255]))),
        (#"{"bytesValue": "AAH-_w"}"#, .bytes(Data([0, 1, 254, 255]))),
        (#"{"bytesValue": "AAH+/w"}"#, .bytes(Data([0, 1, 254, 255]))),
        (#"{"bytes_value": "+/8="}"#, .bytes(Data([251, 255]))),
        (#"{"booleanValue": null, "stringValue": "x"}"#, .string("x")),
        (#"{"timestamp_value": "2026-10-20T14:03:07Z"}"#, .timestamp(FirestoreTimestamp(unchecked: 1_792_504_987, 0))),
        (
            #"{"geo_point_value": {"latitude": "50.5", "longitude": null}}"#,
            .geoPoint(GeoPoint(latitude: 50.5, longitude: 0))
        ),
        (
            #"{"map_value": {"fields": {"a": {"array_value": {"values": [{"integer_value": "1"}]}}}}}"#,
            .map(["a": .array([.integer(1)])])
        ),
        (#"{"mapValue": {"fields": null}}"#, .map([:])),
        (#"{"arrayValue": {"values": null}}"#, .array([])),
    ]

    @Test(arguments: accepted)
    func accepts(_ json: String, _ expected: FirestoreValue) throws {
        #expect(try Self.value(json) == expected)
    }

    @Test func acceptsDocumentsWithProtoNamesAndNullMembers() throws {
        let text = """
            {"name": "projects/p/databases/(default)/documents/a/b", "fields": {"n": {"nullValue": 0}},
             "create_time": "2026-10-20T14:03:07Z", "update_time": null}
            """
        let doc = try FirestoreRESTJSON.decodeDocument(Array(text.utf8))
        #expect(doc.fields == ["n": .null])
        #expect(doc.createTime == (try FirestoreTimestamp(seconds: 1_792_504_987)))
        #expect(doc.updateTime == nil)
    }

    /// An empty name is proto3's default (unset), as the Python SDK's `Document.to_json()` prints a
    /// document without one; a name that is not empty must still be a document name.
    @Test func anEmptyDocumentNameIsUnset() throws {
        let doc = try FirestoreRESTJSON.decodeDocument(Array(#"{"name": "", "fields": {"a": {"nullValue": 0}}}"#.utf8))
        #expect(doc.name == nil)
        #expect(doc.fields == ["a": .null])
        #expect(throws: SchemaInputError.self) {
            try FirestoreRESTJSON.decodeDocument(Array(#"{"name": "users/u1", "fields": {}}"#.utf8))
        }
    }

    @Test func theWriterStaysCanonical() throws {
        let doc = FirestoreRESTDocument(fields: ["n": .null, "b": .bytes(Data([251, 255])), "i": .integer(1000)])
        let text = String(decoding: try FirestoreRESTJSON.encodeDocument(doc), as: UTF8.self)
        #expect(text.contains(#""nullValue": null"#))
        #expect(text.contains(#""bytesValue": "+/8=""#))
        #expect(text.contains(#""integerValue": "1000""#))
    }

    static let rejected: [(String, InputRule, String)] = [
        (#"{"integerValue": 1.5}"#, .restInteger, "/integerValue"),
        (#"{"integerValue": "1.5"}"#, .restInteger, "/integerValue"),
        (#"{"integerValue": 9223372036854775808}"#, .restInteger, "/integerValue"),
        (#"{"integerValue": 9.3e18}"#, .restInteger, "/integerValue"),
        (#"{"integerValue": "+1"}"#, .restInteger, "/integerValue"),
        (#"{"integerValue": " 1"}"#, .restInteger, "/integerValue"),
        (#"{"integerValue": true}"#, .restInteger, "/integerValue"),
        (#"{"doubleValue": "1e400"}"#, .restDouble, "/doubleValue"),
        (#"{"doubleValue": "0x10"}"#, .restDouble, "/doubleValue"),
        (#"{"doubleValue": "inf"}"#, .restDouble, "/doubleValue"),
        (#"{"bytesValue": "AAH-/w=="}"#, .base64, "/bytesValue"),
        (#"{"bytesValue": "AAH+/w="}"#, .base64, "/bytesValue"),
        (#"{"bytesValue": "A"}"#, .base64, "/bytesValue"),
        (#"{"nullValue": 1}"#, .restShape, "/nullValue"),
        (#"{"integerValue": "1", "integer_value": "2"}"#, .restShape, "/integer_value"),
        (#"{"integerValue": "1", "stringValue": "2"}"#, .restShape, ""),
        (#"{"integerValue": null}"#, .restShape, ""),
        (#"{"integerValue": "1", "extra": 1}"#, .restShape, ""),
    ]

    @Test(arguments: rejected)
    func rejects(_ json: String, _ rule: InputRule, _ pointer: String) {
        do {
            let v = try Self.value(json)
            Issue.record("accepted \(v)")
        } catch let e as SchemaInputError {
            #expect(e.rule == rule, "\(e)")
            #expect(e.pointer == pointer, "\(e)")
            #expect(e.line == 1 && e.column != nil, "\(e)")
        } catch {
            Issue.record("untyped \(error)")
        }
    }
}
