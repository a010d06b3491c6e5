import Foundation
import Testing

@testable import VultureSyncSchema

@Suite("R4 duplicate check (schema §4, risk R4)")
struct IdsDuplicateTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    static let t1 = Date(timeIntervalSince1970: 1_700_000_100)
    static let takeoff = Date(timeIntervalSince1970: 1_690_000_000)

    static func flight(
        _ id: String, filename: String? = "2023-07-15.igc", takeoffAt: Date? = takeoff,
        pilot: String? = "Jérôme", importedAt: Date?
    ) -> FlightDuplicateFields {
        FlightDuplicateFields(
            id: id, filename: filename, takeoffAt: takeoffAt, pilotName: pilot, importedAt: importedAt)
    }

    @Test(arguments: [
        // (a, b, expected keep/tombstone or nil)
        (
            flight("android", importedAt: t0), flight("ios", importedAt: t1),
            FlightDuplicateResolution(keep: "android", tombstone: "ios")
        ),
        (
            flight("ios", importedAt: t1), flight("android", importedAt: t0),
            FlightDuplicateResolution(keep: "android", tombstone: "ios")
        ),
        (
            flight("a", importedAt: nil), flight("b", importedAt: t1),
            FlightDuplicateResolution(keep: "b", tombstone: "a")
        ),
        (
            flight("b", importedAt: t0), flight("a", importedAt: t0),
            FlightDuplicateResolution(keep: "a", tombstone: "b")
        ),
        (
            flight("a", pilot: nil, importedAt: t0), flight("b", pilot: nil, importedAt: t1),
            FlightDuplicateResolution(keep: "a", tombstone: "b")
        ),
        (flight("same", importedAt: t0), flight("same", importedAt: t1), nil),
        (flight("a", importedAt: t0), flight("b", filename: "other.igc", importedAt: t1), nil),
        (flight("a", importedAt: t0), flight("b", takeoffAt: t0, importedAt: t1), nil),
        (flight("a", importedAt: t0), flight("b", pilot: "Jerome", importedAt: t1), nil),
        (flight("a", filename: nil, importedAt: t0), flight("b", filename: nil, importedAt: t1), nil),
        (flight("a", takeoffAt: nil, importedAt: t0), flight("b", takeoffAt: nil, importedAt: t1), nil),
    ])
    func pairRule(a: FlightDuplicateFields, b: FlightDuplicateFields, expected: FlightDuplicateResolution?) {
        #expect(FlightDuplicates.resolve(a, b) == expected)
    }

    @Test func logbookRule() {
        let flights = [
            Self.flight("c", importedAt: Self.t1),
            Self.flight("a", importedAt: Self.t0),
            Self.flight("b", importedAt: nil),
            Self.flight("x", filename: "lonely.igc", importedAt: Self.t0),
        ]
        #expect(
            FlightDuplicates.resolveAll(flights) == [
                FlightDuplicateResolution(keep: "a", tombstone: "b"),
                FlightDuplicateResolution(keep: "a", tombstone: "c"),
            ])
    }
}
