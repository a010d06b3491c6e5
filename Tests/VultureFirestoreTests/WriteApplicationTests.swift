import Foundation
import Testing
import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

/// `FirestoreWrite.apply(to:requestTime:)`, rule by rule, with the values Firestore (its emulator)
/// produces.
@Suite struct WriteApplicationTests {
    static let requestTime = ts(1_792_504_987, 123_000)
    static let created = ts(1_792_000_000, 0)

    static func ts(_ s: Int64, _ us: Int32) -> FirestoreTimestamp {
        (try? FirestoreTimestamp(seconds: s, microseconds: us)) ?? .minimum
    }

    static func stored(_ fields: [String: FirestoreValue]) -> FirestoreDocument {
        FirestoreDocument(path: "users/u1/flights/f1", fields: fields, createTime: created, updateTime: created)
    }

    static func path(_ text: String) throws -> FieldPath { try FieldPath(parsing: text) }

    func apply(
        _ write: FirestoreWrite, to fields: [String: FirestoreValue]?
    ) throws(FirestoreError) -> FirestoreWriteOutcome {
        var w = write
        w.path = "users/u1/flights/f1"
        return try w.apply(to: fields.map(Self.stored), requestTime: Self.requestTime)
    }

    /// The stored flight of the issue: a leaf merge of `summary` keeps a key the write leaves out.
    static let flight: [String: FirestoreValue] = [
        "summary": .map(["thermalAltitudeGained": .integer(9615), "duration": .integer(18_000)]),
        "comments": .string("old"), "unknownToThisVersion": .boolean(true),
    ]

    @Test func setWithoutMaskReplacesTheDocument() throws {
        let out = try apply(try .set(["comments": .string("new")]), to: Self.flight)
        #expect(out.fields == ["comments": .string("new")])
        #expect(out.transformResults == [])
    }

    @Test func leafMergeKeepsNestedKeysTheWriteLeavesOut() throws {
        let out = try apply(try .set(["summary": .map(["duration": .integer(1)])], merge: true), to: Self.flight)
        #expect(
            out.fields?["summary"] == .map(["thermalAltitudeGained": .integer(9615), "duration": .integer(1)]))
        #expect(out.fields?["unknownToThisVersion"] == .boolean(true))
    }

    @Test func mergeFieldsReplacesTheNamedMapWhole() throws {
        let out = try apply(
            try .set(["summary": .map(["duration": .integer(1)])], mergeFields: [try Self.path("summary")]),
            to: Self.flight)
        #expect(out.fields?["summary"] == .map(["duration": .integer(1)]))
        #expect(out.fields?["comments"] == .string("old"))
    }

    @Test func leafMergeWithDeleteRemovesTheStaleKey() throws {
        let out = try apply(
            try .set(["summary": .map(["duration": .integer(1), "thermalAltitudeGained": .delete])], merge: true),
            to: Self.flight)
        #expect(out.fields?["summary"] == .map(["duration": .integer(1)]))
    }

    @Test func anEmptyMapIsALeafAndWipesTheStoredMap() throws {
        let write = try FirestoreWrite.set(["summary": .map([:])], merge: true)
        #expect(write.mask == [try Self.path("summary")])
        let out = try apply(write, to: Self.flight)
        #expect(out.fields?["summary"] == .map([:]))
    }

    @Test func arraysAreReplacedWhole() throws {
        let out = try apply(
            try .set(["list": .array([.integer(3)])], merge: true), to: ["list": .array([.integer(1), .integer(2)])])
        #expect(out.fields == ["list": .array([.integer(3)])])
    }

    @Test func updateDeletesThroughTheMaskAndLeavesTheEmptiedMap() throws {
        let out = try apply(
            try .update([try Self.path("summary.thermalAltitudeGained"): .delete, try Self.path("nowhere.x"): .delete]),
            to: ["summary": .map(["thermalAltitudeGained": .integer(9615)])])
        #expect(out.fields == ["summary": .map([:])])
    }

    @Test func aMaskPathThroughANonMapReplacesItWithAMap() throws {
        let out = try apply(try .update([try Self.path("a.b"): .integer(1)]), to: ["a": .string("scalar")])
        #expect(out.fields == ["a": .map(["b": .integer(1)])])
    }

    @Test func serverTimestampIsTheRequestTime() throws {
        let out = try apply(try .set(["updatedAt": .serverTimestamp, "n": .integer(1)], merge: true), to: nil)
        #expect(out.fields == ["updatedAt": .timestamp(Self.requestTime), "n": .integer(1)])
        #expect(out.transformResults == [.timestamp(Self.requestTime)])
    }

    static let increments: [(FirestoreValue?, IncrementOperand, FirestoreValue)] = [
        (.integer(5), .integer(3), .integer(8)),
        (.integer(.max), .integer(1), .integer(.max)),
        (.integer(.max - 1), .integer(.max), .integer(.max)),
        (.integer(.min), .integer(-1), .integer(.min)),
        (.integer(-5), .integer(.min), .integer(.min)),
        (.integer(2), .double(0.5), .double(2.5)),
        (.double(0.5), .integer(2), .double(2.5)),
        (.double(1e308), .double(1e308), .double(.infinity)),
        (.double(.infinity), .double(-.infinity), .double(.nan)),
        (.integer(9_007_199_254_740_993), .double(0), .double(9_007_199_254_740_992)),
        (.double(-0.0), .double(-0.0), .double(0.0)),
        (nil, .integer(7), .integer(7)),
        (nil, .double(-0.0), .double(0.0)),
        (.string("7"), .integer(1), .integer(1)),
        (.null, .double(1.5), .double(1.5)),
        (.map(["a": .integer(1)]), .integer(1), .integer(1)),
        (.timestamp(created), .integer(1), .integer(1)),
    ]

    @Test(arguments: increments)
    func increment(_ current: FirestoreValue?, _ operand: IncrementOperand, _ expected: FirestoreValue) throws {
        let out = try apply(
            try .set(["n": .increment(operand)], merge: true), to: current.map { ["n": $0] } ?? [:])
        #expect(out.fields?["n"] == expected)
        #expect(out.transformResults == [expected])
        if case .double(let d)? = out.fields?["n"], d == 0 { #expect(d.sign == .plus, "−0 is stored as 0") }
    }

    @Test func transformResultsFollowFieldPathOrder() throws {
        let write = try FirestoreWrite.set(
            ["z": .increment(.integer(1)), "a": .serverTimestamp, "m": .map(["k": .increment(.double(0.5))])],
            merge: true)
        #expect(write.transforms.map(\.path.description) == ["a", "m.k", "z"])
        let out = try apply(write, to: nil)
        #expect(out.transformResults == [.timestamp(Self.requestTime), .double(0.5), .integer(1)])
    }

    @Test func transformsNameTheirWholePathsInNestedAndSiblingMaps() throws {
        let write = try FirestoreWrite.set(
            [
                "a": .map(["b": .map(["c": .serverTimestamp]), "d": .increment(.integer(2)), "e": .map([:])]),
                "f": .map(["g": .serverTimestamp, "h": .string("x")]), "i": .serverTimestamp,
                "j": .map(["k": .map(["l": .integer(1)])]),
            ], merge: true)
        #expect(write.transforms.map(\.path.description) == ["a.b.c", "a.d", "f.g", "i"])
    }

    @Test func aTransformBeneathAMaskPathAppliesAfterItsValue() throws {
        let out = try apply(
            try .set(["m": .map(["k": .integer(1), "t": .serverTimestamp])], mergeFields: [try Self.path("m")]),
            to: ["m": .map(["old": .integer(0)])])
        #expect(out.fields == ["m": .map(["k": .integer(1), "t": .timestamp(Self.requestTime)])])
    }

    @Test func deleteLeavesNoDocument() throws {
        let out = try apply(.delete(), to: Self.flight)
        #expect(out.fields == nil)
    }

    static let preconditions: [(FirestorePrecondition, Bool, FirestoreStatus?)] = [
        (.exists(true), true, nil), (.exists(true), false, .notFound),
        (.exists(false), false, nil), (.exists(false), true, .alreadyExists),
        (.updateTime(created), true, nil), (.updateTime(ts(1_700_000_000, 0)), true, .failedPrecondition),
        (.updateTime(ts(1_800_000_000, 0)), true, .invalidArgument), (.updateTime(ts(-1, 0)), true, .invalidArgument),
        (.updateTime(ts(0, 0)), false, nil), (.updateTime(created), false, .failedPrecondition),
    ]

    @Test(arguments: preconditions)
    func precondition(_ p: FirestorePrecondition, _ exists: Bool, _ status: FirestoreStatus?) throws {
        var write = try FirestoreWrite.set(["x": .integer(1)])
        write.precondition = p
        do {
            let out = try apply(write, to: exists ? ["y": .integer(0)] : nil)
            #expect(status == nil, "applied, expected \(status?.rawValue ?? "")")
            #expect(out.fields == ["x": .integer(1)])
        } catch {
            #expect(error.status == status, "\(error)")
        }
    }

    static let refusals: [(String, [String: FirestoreValue])] = [
        ("reserved field name", ["__x__": .integer(1)]),
        ("empty field name", ["m": .map(["": .integer(1)])]),
        ("field name over 1500 bytes", [String(repeating: "é", count: 751): .integer(1)]),
        ("string over 1,048,487 bytes", ["s": .string(String(repeating: "s", count: 1_048_488))]),
        (
            "document over 1 MiB",
            ["a": .string(String(repeating: "a", count: 600_000)), "b": .bytes(Data(count: 600_000))]
        ),
        ("map at depth 21", ["d": (0..<20).reduce(FirestoreValue.map([:])) { v, _ in .map(["d": v]) }]),
        ("array in an array", ["a": .array([.array([])])]),
        ("sentinel in an array", ["a": .array([.serverTimestamp])]),
        ("geo point out of range", ["g": .geoPoint(GeoPoint(latitude: 91, longitude: 0))]),
    ]

    @Test(arguments: refusals)
    func refusesWhatFirestoreRefuses(_ what: String, _ fields: [String: FirestoreValue]) throws {
        #expect(throws: FirestoreError.self, "\(what)") { try apply(try .set(fields), to: nil) }
        do {
            _ = try apply(try .set(fields), to: nil)
        } catch let e as FirestoreError {
            #expect(e.status == .invalidArgument, "\(what): \(e)")
        }
    }

    @Test func depthAndSizeAtTheirLimitsAreAccepted() throws {
        let deep = (0..<19).reduce(FirestoreValue.map(["leaf": .integer(1), "empty": .array([])])) { v, _ in
            .map(["d": v])
        }
        #expect(try apply(try .set(["d": deep]), to: nil).fields?["d"] == deep)
        let s = String(repeating: "s", count: 1_048_487)
        #expect(try apply(try .set(["s": .string(s)]), to: nil).fields?["s"] == .string(s))
    }

    @Test func aWriteWithoutPathIsInvalid() throws {
        let w = try FirestoreWrite.set(["x": .integer(1)])
        #expect(throws: FirestoreError.self) { try w.apply(to: nil, requestTime: Self.requestTime) }
    }
}

/// A value the database refuses is named by its whole field path, though the checks build a path
/// only for the error.
@Suite struct RefusedValuePathTests {
    static func deep(_ levels: Int) -> FirestoreValue {
        (0..<levels).reduce(FirestoreValue.integer(1)) { inner, _ in .map(["m": inner]) }
    }

    static let cases: [([String: FirestoreValue], String)] = [
        (
            ["summary": .map(["legs": .array([.array([.integer(1)])])])],
            "summary.legs[0]: an array directly inside an array"
        ),
        (["summary": .map(["__x__": .integer(1)])], "summary.__x__: field name __x__ is reserved"),
        (
            ["summary": .map(["at": .array([.integer(0), .serverTimestamp])])],
            "summary.at[1]: a serverTimestamp sentinel inside an array"
        ),
        (["summary": .map(["": .integer(1)])], "summary.: a field name is the empty string"),
        (["d": deep(21)], "d" + String(repeating: ".m", count: 20) + ": a map nested deeper than 20 levels"),
        (
            ["summary": .map(["note": .string(String(repeating: "x", count: 1_048_488))])],
            "summary.note: a string is longer than 1048487 bytes"
        ),
    ]

    @Test(arguments: cases)
    func theErrorNamesTheWholePath(fields: [String: FirestoreValue], message: String) throws {
        let db = InMemoryFirestore(clock: { WriteApplicationTests.requestTime })
        #expect {
            _ = try db.commit([try FirestoreWrite(path: "users/u1/flights/f1", fields: fields)])
        } throws: { error in
            guard let error = error as? FirestoreError else { return false }
            if error.message != message { Issue.record("got \(error.status): \(error.message)") }
            return error.status == .invalidArgument && error.message == message
        }
    }
}
