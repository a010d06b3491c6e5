import Foundation
import Testing
import VultureSchemaCore
import VultureSyncSchema

/// Document names, document paths and JSON pointers are split at `/` by scalars: a segment that starts
/// with a combining mark (`"\u{301}x"`, a valid document id and field name) joins the `/` before it
/// into one Character, so splitting by Characters missed that `/` (found by the fuzz targets strict-json
/// and scenario through a pointer to such a key: Tools/fuzz/regressions/strict-json).
@Suite struct SlashSegmentTests {
    static let database = "projects/p/databases/d"
    static let name = database + "/documents/users/\u{301}x/flights/f\u{301}"

    @Test func documentNamesWithACombiningMarkAfterASlashAreValid() throws {
        #expect(FirestoreLimits.referenceViolation(Self.name) == nil)
        #expect(FirestoreLimits.referenceViolation(Self.database + "/documents/users/\u{301}x/flights") != nil)
        #expect(FirestoreLimits.documentPathViolation("users/\u{301}x") == nil)
        #expect(FirestoreLimits.documentPathViolation("users/\u{301}x/flights") != nil)
        let split = FirestoreRESTJSON.splitDocumentName(Self.name)
        #expect(split?.database == Self.database)
        #expect(split?.path == "users/\u{301}x/flights/f\u{301}")
    }

    /// Every rule of a document path, each at the first, a middle and the last segment, with the
    /// message the path gets (the byte-level check in front must refuse what the rules refuse).
    @Test(
        arguments: [
            ("users/u1", nil),
            ("users/u1/flights/f1", nil),
            ("users/_/flights/__", nil),
            ("users/__x_", nil),
            ("users/.../x/..a", nil),
            ("users/\u{301}x/flights/f\u{301}", nil),
            ("users", "not a document path"),
            ("users/u1/flights", "not a document path"),
            ("", "not a document path"),
            ("users//", "not a document path"),
            ("/users/u1/x", "an empty segment"),
            ("users//flights/f1", "an empty segment"),
            ("users/u1/flights/", "an empty segment"),
            ("./u1", "cannot be"),
            ("users/../flights/f1", "cannot be"),
            ("users/u1/flights/.", "cannot be"),
            ("__users__/u1", "reserves"),
            ("users/__u1__/flights/f1", "reserves"),
            ("users/u1/flights/____", "reserves"),
            ("users/" + String(repeating: "a", count: 1501), "over 1500"),
            (String(repeating: "é", count: 751) + "/u1", "over 1500"),
            ("users/" + String(repeating: "a", count: 1500), nil),
        ] as [(String, String?)])
    func documentPathRules(path: String, violation: String?) {
        let found = FirestoreLimits.documentPathViolation(path)
        if let violation {
            #expect(found?.contains(violation) == true, "\(found ?? "nil")")
        } else {
            #expect(found == nil)
        }
    }

    @Test func readersKeepSuchNames() throws {
        let canonical = Array("{\"$reference\": \"\(Self.name)\"}".utf8)
        #expect(try CanonicalJSON.decode(canonical) == .reference(Self.name))
        let rest = Array("{\"name\": \"\(Self.name)\", \"fields\": {}}".utf8)
        #expect(try FirestoreRESTJSON.decodeDocument(rest).name == Self.name)
        let write = Array("{\"path\": \"users/\u{301}x\", \"fields\": {}}".utf8)
        #expect(try CanonicalJSON.decodeWrite(write).path == "users/\u{301}x")
    }

    @Test func fieldPointersMapIntoRESTDocumentsBySegment() {
        let fields: [String: FirestoreValue] = ["\u{301}a": .map(["b": .array([.integer(1)])])]
        #expect(
            FirestoreRESTJSON.documentPointer(forFieldPointer: "/\u{301}a/b/0", in: fields)
                == "/fields/\u{301}a/mapValue/fields/b/arrayValue/values/0")
    }

    @Test func aRESTWriteErrorBelowSuchAKeyKeepsItsPosition() {
        let text = Array(
            """
            {"update": {"name": "\(Self.name)",
              "fields": {"\u{301}m": {"mapValue": {"fields": {"x": {"integerValue": "2"}}}}}},
             "updateMask": {"fieldPaths": ["b"]}}
            """.utf8)
        do {
            let w = try FirestoreRESTJSON.decodeWrite(text, file: "w.json")
            Issue.record("accepted \(w)")
        } catch let e as SchemaInputError {
            #expect(e.rule == .writeMask)
            #expect(e.pointer == "/update/fields/\u{301}m/mapValue/fields/x")
            #expect(e.line == 2 && e.column == 50, "\(e)")
        } catch {
            Issue.record("untyped \(error)")
        }
    }
}
