import Foundation
import Testing
import VultureSchemaCore

@testable import VultureSyncSchema

@Suite struct FieldPathTests {
    static let roundTrips: [([String], String)] = [
        (["summary", "takeoffAt"], "summary.takeoffAt"),
        (["_a1", "B_"], "_a1.B_"),
        (["home base"], "`home base`"),
        (["a.b"], "`a.b`"),
        (["1st"], "`1st`"),
        (["é"], "`é`"),
        (["back`tick", "back\\slash"], "`back\\`tick`.`back\\\\slash`"),
        (["__name__"], "__name__"),
    ]

    @Test(arguments: roundTrips)
    func formatsAndParses(_ segments: [String], _ text: String) throws {
        let path = try FieldPath(segments)
        #expect(path.description == text)
        #expect(try FieldPath(parsing: text) == path)
    }

    @Test func aQuotedSimpleNameParsesToTheBareName() throws {
        #expect(try FieldPath(parsing: "`summary`.`x\\y`").segments == ["summary", "xy"])
    }

    @Test(arguments: ["", "a..b", "a.", ".a", "1a", "é", "a b", "`a", "``", "`a`b", "a.`b", "`a\\", "a`b`"])
    func rejectsMalformed(_ text: String) {
        #expect {
            try FieldPath(parsing: text)
        } throws: {
            ($0 as? SchemaInputError)?.rule == .fieldPath
        }
    }

    @Test func ordersSegmentBySegmentWithPrefixesFirst() throws {
        let paths = try ["b", "a.b", "a", "a.a", "`a b`"].map { try FieldPath(parsing: $0) }
        #expect(paths.sorted().map(\.description) == ["a", "a.a", "a.b", "`a b`", "b"])
        #expect(try FieldPath(parsing: "a").isPrefix(of: try FieldPath(parsing: "a.b")))
        #expect(!(try FieldPath(parsing: "a.b").isPrefix(of: try FieldPath(parsing: "a"))))
    }

    /// Names that tie on their first eight bytes, one a prefix of another, a NUL, an empty name,
    /// non-ASCII (ordered by scalar, where `String`'s `<` would not: `"e\u{301}"` and `"é"` are
    /// equal Strings), and a bridged-like view: sorted as their Unicode scalar values sort.
    @Test func namesSortByTheirScalars() {
        let names = [
            "clientUpdatedAt", "clientUpdated", "clientUpdatedAs", "client", "a", "a\0", "", "é", "e\u{301}",
            "\u{10FFFF}", "\u{FFFF}x", "z", "Z", "_", "takeoffAt", "takeoffAtX", "12345678", "123456789", "1234567",
        ]
        let byScalars = names.sorted {
            $0.unicodeScalars.map(\.value).lexicographicallyPrecedes($1.unicodeScalars.map(\.value))
        }
        #expect(FieldPath.sortedByScalars(Array(names.reversed())) == byScalars)
        // Another order: every seventh name, round the list (7 and 19 share no factor).
        let interleaved = names.indices.map { names[$0 * 7 % names.count] }
        #expect(FieldPath.sortedByScalars(interleaved) == byScalars)
        for (a, b) in zip(byScalars, byScalars.dropFirst()) {
            #expect(FieldPath.scalarOrder(a, b) == -1, "\(a) < \(b)")
            #expect(FieldPath.scalarOrder(b, a) == 1, "\(b) > \(a)")
            #expect(FieldPath(unchecked: [a, b]) < FieldPath(unchecked: [b, a]))
        }
        #expect(FieldPath.scalarOrder("e\u{301}", "e\u{301}") == 0)
        #expect(FieldPath.scalarOrder("é", "e\u{301}") == 1)
    }
}

@Suite struct FirestoreWriteTests {
    static func p(_ text: String) throws -> FieldPath { try FieldPath(parsing: text) }

    @Test func mergeMasksEveryLeafPathAndAnEmptyMapIsALeaf() throws {
        let w = try FirestoreWrite.set(
            [
                "summary": .map(["duration": .integer(1), "igc": .map(["a": .null]), "empty": .map([:])]),
                "updatedAt": .serverTimestamp, "tags": .array([]), "gone": .delete,
            ], merge: true)
        #expect(
            w.mask?.map(\.description) == [
                "gone", "summary.duration", "summary.empty", "summary.igc.a", "tags", "updatedAt",
            ])
        #expect(w.fields?["gone"] == nil, "a $delete is a mask path without a value")
        #expect(w.updateMask?.map(\.description).contains("updatedAt") == false, "transforms are not in updateMask")
        #expect(w.transforms == [FirestoreFieldTransform(path: try Self.p("updatedAt"), kind: .serverTimestamp)])
    }

    @Test func mergeFieldsTakesOnlyThePathsNamed() throws {
        let data: [String: FirestoreValue] = [
            "summary": .map(["a": .integer(1), "b": .serverTimestamp]), "comments": .string("x"),
            "updatedAt": .serverTimestamp,
        ]
        let w = try FirestoreWrite.set(data, mergeFields: [try Self.p("summary")])
        #expect(w.mask == [try Self.p("summary")])
        #expect(w.fields == ["summary": .map(["a": .integer(1), "b": .serverTimestamp])])
        #expect(throws: SchemaInputError.self) { try FirestoreWrite.set(data, mergeFields: [try Self.p("missing")]) }
    }

    @Test func updateHasExistsTrueAndRefusesOverlappingPaths() throws {
        let w = try FirestoreWrite.update([try Self.p("summary.a"): .integer(1), try Self.p("b"): .delete])
        #expect(w.precondition == .exists(true))
        #expect(w.mask?.map(\.description) == ["b", "summary.a"])
        #expect(w.fields == ["summary": .map(["a": .integer(1)])])
        #expect {
            try FirestoreWrite.update([try Self.p("a"): .integer(1), try Self.p("a.b"): .integer(2)])
        } throws: {
            ($0 as? SchemaInputError)?.rule == .writeMask
        }
    }

    static let invalid: [(String, [String: FirestoreValue], [String]?, String)] = [
        ("a value the mask does not cover", ["a": .integer(1), "b": .integer(2)], ["a"], "/fields/b"),
        ("an uncovered empty map", ["m": .map([:])], ["m.k"], "/fields/m"),
        ("a $delete beneath a mask path", ["m": .map(["k": .delete])], ["m"], "/fields/m/k"),
        ("a $delete without a mask", ["m": .delete], nil, "/fields/m"),
    ]

    @Test(arguments: invalid)
    func refusesWritesFirestoreWouldMisread(
        _ what: String, _ fields: [String: FirestoreValue], _ mask: [String]?, _ pointer: String
    ) throws {
        let paths = try mask.map { try $0.map { try FieldPath(parsing: $0) } }
        do {
            let w = try FirestoreWrite(fields: fields, mask: paths)
            Issue.record("\(what): accepted \(w)")
        } catch let e as SchemaInputError {
            #expect(e.rule == .writeMask, "\(what): \(e)")
            #expect(e.pointer == pointer, "\(what): \(e)")
        }
    }

    @Test func theMaskIsNormalized() throws {
        let w = try FirestoreWrite(
            fields: ["a": .map(["b": .integer(1)])], mask: [try Self.p("a.b"), try Self.p("a"), try Self.p("a")])
        #expect(w.mask == [try Self.p("a")])
    }

    static let canonical = """
        {
          "fields": {
            "storageBytes": {
              "$increment": 1024
            },
            "summary": {
              "duration": 18000
            },
            "updatedAt": {
              "$serverTimestamp": true
            }
          },
          "mask": [
            "storageBytes",
            "summary",
            "thermalAltitudeGained",
            "updatedAt"
          ],
          "path": "users/u1/flights/f1",
          "precondition": {
            "exists": false
          }
        }

        """

    @Test func canonicalJSONRoundTripsByteForByte() throws {
        let w = try CanonicalJSON.decodeWrite(Array(Self.canonical.utf8))
        #expect(w.path == "users/u1/flights/f1")
        #expect(w.precondition == .exists(false))
        #expect(w.mask?.count == 4)
        #expect(String(decoding: CanonicalJSON.encode(w), as: UTF8.self) == Self.canonical)
        let d = FirestoreWrite.delete(
            path: "users/u1/flights/f1", precondition: .updateTime(try FirestoreTimestamp(seconds: 1, microseconds: 5)))
        let text = String(decoding: CanonicalJSON.encode(d), as: UTF8.self)
        #expect(text.contains("\"delete\": true") && text.contains("1970-01-01T00:00:01.000005Z"))
        #expect(try CanonicalJSON.decodeWrite(Array(text.utf8)) == d)
    }

    @Test func aDeleteSentinelReadsAsAMaskPathWithoutValue() throws {
        let text = #"{"fields": {"a": {"$delete": true}, "b": 1}, "mask": ["a", "b"]}"#
        let w = try CanonicalJSON.decodeWrite(Array(text.utf8))
        #expect(w.fields == ["b": .integer(1)])
        #expect(w.mask?.map(\.description) == ["a", "b"])
    }

    static let rejections: [(String, InputRule, String, Int, Int)] = [
        (#"{"fields": {}, "extra": 1}"#, .writeShape, "/extra", 1, 16),
        (#"{"mask": []}"#, .writeShape, "", 1, 1),
        (#"{"delete": true, "fields": {}}"#, .writeShape, "", 1, 1),
        (#"{"fields": {}, "mask": ["a..b"]}"#, .fieldPath, "/mask/0", 1, 25),
        (#"{"fields": {"a": 1}, "mask": []}"#, .writeMask, "/fields/a", 1, 1),
        (#"{"fields": {"a": [{"$serverTimestamp": true}]}}"#, .sentinelInArray, "/fields/a/0", 1, 20),
        (#"{"fields": {}, "precondition": {"exists": true, "updateTime": 1}}"#, .writeShape, "/precondition", 1, 32),
        (#"{"fields": {}, "path": "users"}"#, .referenceFormat, "/path", 1, 24),
    ]

    @Test(arguments: rejections)
    func canonicalRejections(_ text: String, _ rule: InputRule, _ pointer: String, _ line: Int, _ column: Int) {
        do {
            let w = try CanonicalJSON.decodeWrite(Array(text.utf8), file: "w.json")
            Issue.record("accepted \(w)")
        } catch let e as SchemaInputError {
            #expect(e.rule == rule, "\(e)")
            #expect(e.pointer == pointer, "\(e)")
            #expect(e.line == line && e.column == column, "\(e)")
            #expect(e.file == "w.json")
        } catch {
            Issue.record("untyped \(error)")
        }
    }
}
