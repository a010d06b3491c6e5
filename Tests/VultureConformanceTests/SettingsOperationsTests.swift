import Foundation
import Testing
import VultureConformance
import VultureReference
import VultureSchemaCore
import VultureSyncSchema

/// The settings operations of the reference implementation: their shapes, their rejections, and
/// documents built from their output passing the validator.
@Suite struct SettingsOperationsTests {
    static func answer(_ op: String, _ input: FirestoreValue) -> ImplementationAnswer {
        var reference = ReferenceImplementation(schema: .vulture)
        return reference.answer(
            ConformanceCase(
                id: "required.settings.test.case", section: "schema §2", op: op, input: input, expected: .output(.null))
        )
    }

    @Test(arguments: [
        ("settings.fromIOS", FirestoreValue.string("kvs")),
        ("settings.fromIOS", .map(["deviceId": .string("d")])),
        ("settings.fromIOS", .map(["kvs": .map([:])])),
        ("settings.fromIOS", .map(["kvs": .map([:]), "deviceId": .integer(1)])),
        ("settings.fromIOS", .map(["kvs": .array([]), "deviceId": .string("d")])),
        ("settings.fromIOS", .map(["kvs": .map([:]), "deviceId": .string("d"), "changedAt": .array([])])),
        (
            "settings.fromIOS",
            .map(["kvs": .map([:]), "deviceId": .string("d"), "changedAt": .map(["VulturePinned": .double(1)])])
        ),
        ("settings.toIOS", .map([:])),
        ("settings.toIOS", .map(["values": .null])),
        ("settings.merge", .map(["local": .map([:])])),
        ("settings.merge", .map(["local": .string("x"), "remote": .map([:])])),
    ])
    func malformedInputsAreRejectedWithInputShape(op: String, input: FirestoreValue) {
        guard case .error(let code, _) = Self.answer(op, input) else {
            Issue.record("\(op) accepted \(input)")
            return
        }
        #expect(code == "input.shape")
    }

    @Test func fromIOSWithOddValuesStillGivesAValidDocument() throws {
        let input: FirestoreValue = .map([
            "kvs": .map([
                "VultureAnnotationStyle": .map(["x": .integer(1)]), "VultureSpeedUnit": .array([.integer(1)]),
                "VultureHomebaseName": .integer(3), "VultureWaypointZoneR1": .bytes(Data([1, 2])),
                "VultureSkySightOverlayOpacity": .double(-.infinity), "VultureFlarmLoggerInterval": .integer(Int64.min),
                "VultureShowTrack": .null,
            ]),
            "changedAt": .map(["VultureShowTrack": .integer(5), "VultureHomebaseName": .integer(Int64.min)]),
            "deviceId": .string("ios-device-1"),
        ])
        guard case .output(let output) = Self.answer("settings.fromIOS", input),
            case .map(let values)? = output.mapValue?["values"]
        else {
            Issue.record("no values")
            return
        }
        #expect(values.count == 42)
        #expect(values["flarmLoggerInterval"]?.mapValue?["v"] == .integer(1))
        #expect(
            values["showOptimizedTrack"] == .map(["v": .boolean(true), "t": .integer(5), "d": .string("ios-device-1")]))
        #expect(values["homeBase"] == .map(["v": .null, "t": .integer(0), "d": .string("ios-device-1")]))
        let at = FirestoreValue.timestamp(try FirestoreTimestamp(epochMilliseconds: 1_790_000_000_000))
        let document: [String: FirestoreValue] = [
            "schema": .integer(1), "updatedAt": at, "clientUpdatedAt": at, "updatedBy": .string("ios-device-1"),
            "platform": .string("ios"), "deleted": .boolean(false), "deletedAt": .null, "values": .map(values),
        ]
        let violations = SchemaValidator(schema: .vulture).validate(
            document, documentType: "SettingsDocument", options: ValidationOptions(form: .stored, strict: true))
        #expect(violations.map(\.description) == [])
    }

    @Test func toIOSIgnoresKeyIdsTheTableDoesNotName() {
        let answer = Self.answer(
            "settings.toIOS", .map(["values": .map(["futureKey": .integer(1), "isPinned": .boolean(true)])]))
        #expect(answer == .output(.map(["kvs": .map(["VulturePinned": .boolean(true)])])))
    }
}
