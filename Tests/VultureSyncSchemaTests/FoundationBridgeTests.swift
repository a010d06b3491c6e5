import Foundation
import Testing
import VultureSchemaCore
import VultureSyncSchema

/// Timestamps ↔ Date, and values ↔ the Foundation form the Firebase SDK's dictionaries use.
@Suite struct FoundationBridgeTests {
    /// Seeded timestamps from 1870 through 2130 (seconds since 1970, microseconds).
    static func seededTimestamps(count: Int) -> [FirestoreTimestamp] {
        var generator = SplitMix64(state: 13)
        return (0..<count).map { _ in
            FirestoreTimestamp(
                unchecked: Int64.random(in: -3_155_760_000..<5_049_129_600, using: &generator),
                Int32.random(in: 0..<1_000_000, using: &generator))
        }
    }

    /// The dates other code makes of `t` by seconds-since-1970 arithmetic: with the fraction in
    /// microseconds, and as the Firebase SDK's `Timestamp.dateValue()` does, in nanoseconds.
    static func datesFromSecondsSince1970(_ t: FirestoreTimestamp) -> [Date] {
        [
            Date(timeIntervalSince1970: Double(t.seconds) + Double(t.microseconds) / 1e6),
            Date(timeIntervalSince1970: Double(t.seconds) + Double(Int64(t.microseconds) * 1000) / 1e9),
        ]
    }

    @Test(arguments: [
        "2026-10-20T14:03:07.003999Z", "2026-10-20T14:03:07.000001Z", "2026-10-20T14:03:07.999999Z",
        "2026-10-21T08:15:43.512817Z", "2016-11-08T22:43:17Z", "1969-12-31T23:59:59.999999Z",
        "1970-01-01T00:00:00.000001Z", "1901-02-03T04:05:06.003999Z", "2099-12-31T23:59:59.003999Z",
    ])
    func aTimestampComesBackFromItsDate(text: String) throws {
        let t = try #require(
            try FirestoreTimestamp.parseRFC3339(text, allowedFractionDigits: [0, 3, 6], allowOffset: false))
        #expect(try FirestoreTimestamp(date: t.date) == t)
        for date in Self.datesFromSecondsSince1970(t) {
            #expect(try FirestoreTimestamp(date: date) == t, "\(text) from \(date.timeIntervalSince1970)")
        }
    }

    /// Exact both ways for every timestamp of 1870–2130, however the date was made — where truncating
    /// the seconds since 1970 (the bug this replaces) loses a microsecond for many of them.
    @Test func exactBothWaysWhereTruncationLosesAMicrosecond() throws {
        var truncationLosses = 0
        for t in Self.seededTimestamps(count: 20_000) {
            #expect(try FirestoreTimestamp(date: t.date) == t, "\(t)")
            for date in Self.datesFromSecondsSince1970(t) {
                #expect(try FirestoreTimestamp(date: date) == t, "\(t)")
                let truncated = Int64((date.timeIntervalSince1970 * 1e6).rounded(.towardZero))
                if truncated != t.microsecondsSinceEpoch { truncationLosses += 1 }
            }
        }
        #expect(truncationLosses > 1000)
    }

    @Test func aDateBetweenMicrosecondsIsFloored() throws {
        let t = try FirestoreTimestamp(seconds: 1_792_591_387, microseconds: 3_999)
        let interval = t.date.timeIntervalSinceReferenceDate
        #expect(try FirestoreTimestamp(date: Date(timeIntervalSinceReferenceDate: interval + 0.000_000_4)) == t)
        #expect(try FirestoreTimestamp(date: Date(timeIntervalSinceReferenceDate: interval + 0.000_000_7)) == t)
        let before = try FirestoreTimestamp(seconds: 1_792_591_387, microseconds: 3_998)
        #expect(try FirestoreTimestamp(date: Date(timeIntervalSinceReferenceDate: interval - 0.000_000_3)) == before)
        let beforeEpoch = try FirestoreTimestamp(seconds: -1, microseconds: 999_999)
        #expect(try FirestoreTimestamp(date: Date(timeIntervalSince1970: -0.000_000_5)) == beforeEpoch)
    }

    @Test func firestoresFirstAndLastInstantsConvert() throws {
        // A Date holds 8 µs at year 1 and 32 µs at year 9999: whole seconds still come back, and the
        // last microsecond of 9999, which the Double rounds up to 10000-01-01, reads as the maximum.
        #expect(try FirestoreTimestamp(date: FirestoreTimestamp.minimum.date) == .minimum)
        #expect(try FirestoreTimestamp(date: FirestoreTimestamp(seconds: 253_402_300_000).date).microseconds == 0)
        #expect(try FirestoreTimestamp(date: FirestoreTimestamp.maximum.date) == .maximum)
    }

    /// Seconds since 2001-01-01 (a Date's description traps on infinities, so the dates are made here).
    @Test(arguments: [
        Double.infinity, -.infinity, .nan, 253_402_300_801 - 978_307_200, -62_135_596_800.5 - 978_307_200,
    ])
    func aDateOutsideFirestoresRangeIsAnError(interval: Double) {
        #expect {
            try FirestoreTimestamp(date: Date(timeIntervalSinceReferenceDate: interval))
        } throws: { error in
            (error as? SchemaInputError)?.rule == .timestampRange
        }
    }

    // MARK: - The Foundation form

    static func sentinelNames(_ sentinel: FirestoreSentinel) -> Any {
        switch sentinel {
        case .serverTimestamp: "FieldValue.serverTimestamp()"
        case .increment(.integer(let n)): "FieldValue.increment(\(n))"
        case .increment(.double(let x)): "FieldValue.increment(\(x))"
        case .delete: "FieldValue.delete()"
        }
    }

    static let everyType: [String: FirestoreValue] = [
        "null": .null, "true": .boolean(true), "false": .boolean(false), "one": .integer(1),
        "oneDouble": .double(1.0), "zeroDouble": .double(0), "minusZero": .double(-0.0), "nan": .double(.nan),
        "int64Max": .integer(.max), "int64Min": .integer(.min), "string": .string("Zürich"),
        "timestamp": .timestamp(FirestoreTimestamp(unchecked: 1_792_591_387, 3_999)),
        "bytes": .bytes(Data([0, 1, 0xFE, 0xFF])), "geoPoint": .geoPoint(GeoPoint(latitude: 50.8, longitude: 6.1)),
        "reference": .reference("projects/p/databases/(default)/documents/users/u"),
        "array": .array([.integer(1), .double(1), .boolean(true), .map(["a": .null])]),
        "map": .map(["nested": .map(["deeper": .array([])])]),
        "serverTimestamp": .serverTimestamp, "incrementInteger": .increment(.integer(5)),
        "incrementDouble": .increment(.double(0.5)), "delete": .delete,
    ]

    @Test func everyTypeGoesToFoundationAndBack() throws {
        let foundation = FirestoreValue.foundationFields(Self.everyType) { $0 }
        #expect(foundation["null"] is NSNull)
        #expect(foundation["timestamp"] is Date)
        #expect(foundation["bytes"] as? Data == Data([0, 1, 0xFE, 0xFF]))
        #expect(foundation["serverTimestamp"] as? FirestoreSentinel == .serverTimestamp)
        #expect(
            foundation["reference"] as? FirestoreReference
                == FirestoreReference(name: "projects/p/databases/(default)/documents/users/u"))
        #expect(try FirestoreValue.fields(foundationFields: foundation) == Self.everyType)
        // Through NSDictionary, as an Objective-C SDK hands it over.
        let bridged = NSDictionary(dictionary: foundation) as? [String: Any] ?? [:]
        #expect(try FirestoreValue.fields(foundationFields: bridged) == Self.everyType)
    }

    @Test func sentinelsBecomeWhatTheAppMapsThemTo() {
        let foundation = FirestoreValue.foundationFields(Self.everyType, sentinel: Self.sentinelNames)
        #expect(foundation["serverTimestamp"] as? String == "FieldValue.serverTimestamp()")
        #expect(foundation["incrementInteger"] as? String == "FieldValue.increment(5)")
        #expect(foundation["incrementDouble"] as? String == "FieldValue.increment(0.5)")
        #expect(foundation["delete"] as? String == "FieldValue.delete()")
    }

    /// Integers and doubles stay apart by the NSNumber's stored type, and booleans are CFBooleans only.
    @Test func numbersKeepTheirType() throws {
        let cases: [(Any, FirestoreValue)] = [
            (NSNumber(value: 1), .integer(1)), (NSNumber(value: 1.0), .double(1.0)),
            (NSNumber(value: true), .boolean(true)), (NSNumber(value: false), .boolean(false)),
            (true, .boolean(true)), (Int(5), .integer(5)), (Int64.min, .integer(.min)), (5.0, .double(5)),
            (Float(1.5), .double(1.5)), (Int8(1), .integer(1)), (UInt8(0), .integer(0)),
            (UInt64(Int64.max), .integer(.max)), (NSNumber(value: Int32(-7)), .integer(-7)),
        ]
        for (object, expected) in cases {
            #expect(try FirestoreValue(foundationObject: object) == expected, "\(object) → \(expected)")
        }
    }

    @Test func objectsWithoutAFirestoreTypeAreNamed() throws {
        func rejection(_ object: Any) -> SchemaInputError? {
            do {
                _ = try FirestoreValue(foundationObject: object)
                return nil
            } catch { return error as? SchemaInputError }
        }
        let url = try #require(URL(string: "https://example.com"))
        let unknown = try #require(rejection(["a": [1, url]]))
        #expect("\(unknown)" == "/a/1: foundation.type: URL has no Firestore type; map it in `other`")
        let key = try #require(rejection(["a": [1: "x"] as [AnyHashable: Any]]))
        #expect("\(key)" == "/a: foundation.type: a map's keys are strings, found the key 1")
        let unsigned = try #require(rejection(["big": UInt64.max]))
        #expect("\(unsigned)" == "/big: foundation.type: the unsigned number 18446744073709551615 is above Int64.max")
        let late = try #require(rejection(["t": [Date(timeIntervalSince1970: 1e12)]]))
        #expect(late.rule == .timestampRange && late.pointer == "/t/0")
        // `other` maps what the reader does not know.
        let mapped = try FirestoreValue(foundationObject: ["a": [1, url]]) {
            ($0 as? URL).map { .string($0.absoluteString) }
        }
        #expect(mapped == .map(["a": .array([.integer(1), .string("https://example.com")])]))
    }

    /// The reader stops at 64 levels (Firestore allows 20): a deep or self-containing structure is an
    /// error. (A self-containing NSMutableArray cannot be tried here: Foundation on Linux bridges its
    /// elements eagerly and overflows the stack before any reader sees it.)
    @Test func nestingPast64LevelsIsADepthError() throws {
        var deep: Any = ["leaf": true]
        for _ in 0..<70 { deep = [deep] }
        #expect {
            try FirestoreValue(foundationObject: deep)
        } throws: { error in
            "\(error)".hasPrefix("/0/0/0/") && (error as? SchemaInputError)?.rule == .depth
        }
        var shallow: Any = ["leaf": true]
        for _ in 0..<20 { shallow = ["m": shallow] }
        #expect(
            try FirestoreValue(foundationObject: shallow)[
                fieldPath: Array(repeating: "m", count: 20).joined(separator: ".") + ".leaf"] == .boolean(true))
    }

    /// What the Firebase SDK does with a Date in `setData`: seconds and a fraction since 1970, the
    /// fraction truncated to nanoseconds (FIRTimestamp timestampWithDate:); Firestore then keeps
    /// microseconds. The Foundation form's Date survives it; the Date of the microsecond itself does not.
    @Test func theFoundationFormsDateSurvivesTheSDKsTruncation() {
        func storedBySDK(_ date: Date) -> (Int64, Int32) {
            var whole = 0.0
            var fraction = modf(date.timeIntervalSince1970, &whole)
            if fraction < 0 {
                fraction += 1
                whole -= 1
            }
            return (Int64(whole), Int32(fraction * 1e9) / 1000)
        }
        var boundaryLosses = 0
        for t in Self.seededTimestamps(count: 20_000) where t.seconds >= -2_208_988_800 && t.seconds < 4_102_444_800 {
            let date = FirestoreValue.timestamp(t).foundationObject { $0 } as? Date
            #expect(date.map(storedBySDK) ?? (0, 0) == (t.seconds, t.microseconds), "\(t)")
            if storedBySDK(t.date) != (t.seconds, t.microseconds) { boundaryLosses += 1 }
        }
        #expect(boundaryLosses > 100)
    }

    /// A typed document is one call from `setData(_:merge:)` and one call from `data()`.
    @Test func aTypedDocumentToTheSDKsDictionaryAndBack() throws {
        let url = IdsTestSupport.packageRoot.appendingPathComponent("Goldens/schema/flight.android.json")
        let golden = try CanonicalJSON.decode(Data(contentsOf: url), file: "Goldens/schema/flight.android.json")
        let flight = try FlightDocument(firestoreValue: try #require(golden[fieldPath: "stored"]), form: .stored)

        let write = flight.foundationFields(form: .write, sentinel: Self.sentinelNames)
        #expect(write["updatedAt"] as? String == "FieldValue.serverTimestamp()")
        #expect(write["waterBallast"] is Int64 && write["rating"] is Int64)
        #expect((write["summary"] as? [String: Any])?["takeoffAt"] is Date)

        let stored = flight.foundationFields(form: .stored) { _ in NSNull() }
        #expect(try FlightDocument(foundationFields: stored) == flight)
        // The SDK's Timestamp class, mapped exactly in `other`.
        struct SDKTimestamp {
            var seconds: Int64
            var nanoseconds: Int32
        }
        var fromSDK = stored
        fromSDK["updatedAt"] = SDKTimestamp(seconds: 1_792_570_543, nanoseconds: 512_817_000)
        let read = try FlightDocument(foundationFields: fromSDK) { object in
            guard let t = object as? SDKTimestamp else { return nil }
            return .timestamp(try FirestoreTimestamp(seconds: t.seconds, microseconds: t.nanoseconds / 1000))
        }
        #expect(read == flight)
        #expect {
            try FlightDocument(foundationFields: fromSDK)
        } throws: { error in
            "\(error)" == "/updatedAt: foundation.type: SDKTimestamp has no Firestore type; map it in `other`"
        }
    }

    /// The engine's merge write of only the changed fields, in Foundation form.
    @Test func changedFieldsInFoundationForm() throws {
        let encoder = DocumentEncoder()
        let agreed: [String: FirestoreValue] = [
            "comments": .string("old"), "rating": .integer(3), "updatedAt": .serverTimestamp,
        ]
        var local = agreed
        local["comments"] = .string("new")
        let payload = FirestoreValue.foundationFields(
            encoder.changedFields(from: agreed, to: local), sentinel: Self.sentinelNames)
        #expect(payload["comments"] as? String == "new")
        #expect(payload["rating"] == nil)
    }
}
