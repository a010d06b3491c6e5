import Foundation
import Testing
import VultureSchemaCore

@testable import VultureSyncSchema

/// The settings codec against the key, unit and enum tables (schema §2 settings/synced, §5.3,
/// §5.5; 001 §3.1–3.2), with every produced document checked by the validator and the generated
/// `SettingsDocument` reader.
@Suite struct SettingsCodecTests {
    let codec = SettingsCodec(schema: .vulture)

    static func zone(
        type: Int64, isLine: Bool, r1: Double, a1: Double, r2: Double = 0, a2: Double = 0, a12: Double = 0
    ) -> FirestoreValue {
        .map([
            "type": .integer(type), "isLine": .boolean(isLine), "r1": .double(r1), "a1": .double(a1),
            "r2": .double(r2), "a2": .double(a2), "a12": .double(a12),
        ])
    }

    static let klippeneck: FirestoreValue = .map([
        "name": .string("Klippeneck"), "latitude": .double(48.1075), "longitude": .double(8.7627778),
    ])

    /// The defaults of a fresh install, written out from 001 §3.2 (not read from the table under test).
    static let freshInstall: [String: FirestoreValue] = [
        "sport": .string("glider"), "detectsSportAutomatically": .boolean(true),
        "windSpeedUnit": .string("kph"), "verticalSpeedUnit": .string("ms"), "altitudeUnit": .string("m"),
        "speedUnit": .string("kph"), "distanceUnit": .string("km"), "temperatureUnit": .string("celsius"),
        "homeBase": klippeneck, "mapStyle": .string("adaptive"), "isOpenAipAirspaceEnabled": .boolean(true),
        "showHiddenAirspaces": .boolean(false), "isAutomaticUpdateEnabled": .boolean(false),
        "showColoredTrack": .boolean(true), "isPinned": .boolean(false), "showWind": .boolean(true),
        "arePhotosVisible": .boolean(false), "showThermals": .boolean(true), "showThermalAttempts": .boolean(true),
        "showFlightEvents": .boolean(true), "showOptimizedTrack": .boolean(true),
        "trackOptimization": .string("fiveTurnpoints"), "showTask": .boolean(true),
        "showOptimizedTask": .boolean(true), "showAssignedTaskTime": .boolean(false),
        "isInFlightTrackVisible": .boolean(true), "isInFlightOptimizedTrackVisible": .boolean(true),
        "isInFlightCurrentTrackVisible": .boolean(true), "isInFlightTrackToWaypointVisible": .boolean(true),
        "startZone": zone(type: 1, isLine: true, r1: 1000, a1: 0),
        "waypointZone": zone(type: 1, isLine: false, r1: 3000, a1: 45),
        "finishZone": zone(type: 1, isLine: true, r1: 1000, a1: 0),
        "declaredPilot": .string(""), "declaredPassenger": .string(""), "declaredGliderType": .string(""),
        "declaredGliderRegistration": .string(""), "declaredCompetitionId": .string(""),
        "declaredCompetitionClass": .string(""), "flarmLoggerInterval": .integer(4),
        "isFlarmCompetitionModeEnabled": .boolean(false), "isFlarmStealthModeEnabled": .boolean(false),
        "skySightOverlayOpacity": .double(0.3),
    ]

    /// A settings/synced document in the stored form around `values`.
    static func document(_ values: [String: FirestoreValue]) throws -> [String: FirestoreValue] {
        let at = FirestoreValue.timestamp(try FirestoreTimestamp(epochMilliseconds: 1_790_000_000_000))
        return [
            "schema": .integer(1), "updatedAt": at, "clientUpdatedAt": at, "updatedBy": .string("device-a"),
            "platform": .string("ios"), "deleted": .boolean(false), "deletedAt": .null, "values": .map(values),
        ]
    }

    /// Validator (strict, stored form) violations and the generated reader's verdict on `values`.
    static func check(_ values: [String: FirestoreValue]) throws -> [String] {
        let doc = try document(values)
        let violations = SchemaValidator(schema: .vulture).validate(
            doc, documentType: "SettingsDocument", options: ValidationOptions(form: .stored, strict: true))
        let read = try SettingsDocument(firestoreValue: .map(doc), form: .stored)
        #expect(read.values.count == values.count)
        return violations.map(\.description)
    }

    // MARK: - Defaults

    @Test func emptyStoreGivesEveryKeyItsDefaultWithTimeZero() throws {
        let entries = codec.entries(fromIOS: [:], changedAt: [:], deviceId: "device-a")
        #expect(entries.count == 42)
        #expect(Set(entries.keys) == Set(Self.freshInstall.keys))
        for (key, want) in Self.freshInstall {
            #expect(entries[key] == .map(["v": want, "t": .integer(0), "d": .string("device-a")]), "\(key)")
        }
        #expect(try Self.check(entries) == [])
        let read = try SettingsDocument(firestoreValue: .map(try Self.document(entries)), form: .stored)
        #expect(read.values["flarmLoggerInterval"]?.v == .integer(4))
        #expect(read.values["homeBase"]?.t == 0)
    }

    @Test func cloudValuesOfAnEmptyStoreAreTheTableDefaults() {
        let values = codec.cloudValues(fromIOS: [:])
        for key in SyncSchema.vulture.settingsKeys {
            #expect(values[key.key] == key.defaultValue, "\(key.key)")
        }
    }

    // MARK: - Direct keys

    @Test(arguments: [
        ("VultureDetectSportAutomatically", FirestoreValue.boolean(false), "detectsSportAutomatically"),
        ("VultureOpenAIPAirspaceEnabled", .boolean(false), "isOpenAipAirspaceEnabled"),
        ("VulturePinned", .boolean(true), "isPinned"),
        ("VultureShowAltitudeGained", .boolean(false), "showFlightEvents"),
        ("VultureIsFlightPathVisible", .boolean(false), "isInFlightTrackVisible"),
        ("VultureIsTrackToWaypointVisible", .boolean(false), "isInFlightTrackToWaypointVisible"),
        ("VultureDeclaredPilot", .string("Jérôme Müller"), "declaredPilot"),
        ("VultureDeclaredGliderCompetitionID", .string("JM"), "declaredCompetitionId"),
        ("VultureDeclaredGliderCompetitionClass", .string("Club"), "declaredCompetitionClass"),
        ("VultureFlarmLoggerInterval", .integer(2), "flarmLoggerInterval"),
        ("VultureFlarmStealthModeEnabled", .boolean(true), "isFlarmStealthModeEnabled"),
        ("VultureSkySightOverlayOpacity", .double(0.75), "skySightOverlayOpacity"),
    ])
    func directKeysMapBothWays(iosKey: String, value: FirestoreValue, keyId: String) throws {
        let cloud = codec.cloudValues(fromIOS: [iosKey: value])
        #expect(cloud[keyId] == value)
        #expect(codec.iosValues(fromCloud: [keyId: value]) == [iosKey: value])
        #expect(try Self.check(codec.entries(fromIOS: [iosKey: value], changedAt: [:], deviceId: "d")) == [])
    }

    /// Pin note "plist bridging": every NSNumber kind reads as the key's own type.
    @Test(arguments: [
        ("VulturePinned", FirestoreValue.integer(1), "isPinned", FirestoreValue.boolean(true)),
        ("VulturePinned", .integer(0), "isPinned", .boolean(false)),
        ("VulturePinned", .double(2.0), "isPinned", .boolean(true)),
        ("VultureShowWind", .string("true"), "showWind", .boolean(true)),  // a string is no number: default
        ("VultureShowWind", .double(.nan), "showWind", .boolean(true)),
        ("VultureFlarmLoggerInterval", .double(6.0), "flarmLoggerInterval", .integer(6)),
        ("VultureFlarmLoggerInterval", .double(6.9), "flarmLoggerInterval", .integer(6)),
        ("VultureFlarmLoggerInterval", .boolean(true), "flarmLoggerInterval", .integer(1)),
        ("VultureFlarmLoggerInterval", .double(.infinity), "flarmLoggerInterval", .integer(4)),
        ("VultureFlarmLoggerInterval", .string("5"), "flarmLoggerInterval", .integer(4)),
        ("VultureSkySightOverlayOpacity", .integer(1), "skySightOverlayOpacity", .double(1.0)),
        ("VultureSkySightOverlayOpacity", .double(Double(Float(0.3))), "skySightOverlayOpacity", .double(0.3)),
        ("VultureSkySightOverlayOpacity", .double(Double(Float(0.45))), "skySightOverlayOpacity", .double(0.45)),
        ("VultureDeclaredPilot", .null, "declaredPilot", .string("")),
        ("VultureDeclaredPilot", .integer(7), "declaredPilot", .string("")),
    ])
    func plistBridging(iosKey: String, value: FirestoreValue, keyId: String, want: FirestoreValue) {
        #expect(codec.cloudValues(fromIOS: [iosKey: value])[keyId] == want)
    }

    /// Pin note "out of range → clamp" (001 §3.2 ranges; NaN and ±∞ take the default).
    @Test(arguments: [
        ("VultureFlarmLoggerInterval", FirestoreValue.integer(12), "flarmLoggerInterval", FirestoreValue.integer(8)),
        ("VultureFlarmLoggerInterval", .integer(0), "flarmLoggerInterval", .integer(1)),
        ("VultureFlarmLoggerInterval", .integer(-5), "flarmLoggerInterval", .integer(1)),
        ("VultureFlarmLoggerInterval", .integer(Int64.max), "flarmLoggerInterval", .integer(8)),
        ("VultureSkySightOverlayOpacity", .double(0.05), "skySightOverlayOpacity", .double(0.1)),
        ("VultureSkySightOverlayOpacity", .double(0.0), "skySightOverlayOpacity", .double(0.1)),
        ("VultureSkySightOverlayOpacity", .double(1.5), "skySightOverlayOpacity", .double(1.0)),
        ("VultureSkySightOverlayOpacity", .double(.nan), "skySightOverlayOpacity", .double(0.3)),
        ("VultureSkySightOverlayOpacity", .double(-.infinity), "skySightOverlayOpacity", .double(0.3)),
    ])
    func rangesClamp(iosKey: String, value: FirestoreValue, keyId: String, want: FirestoreValue) throws {
        let entries = codec.entries(fromIOS: [iosKey: value], changedAt: [:], deviceId: "d")
        #expect(entries[keyId]?.mapValue?["v"] == want)
        #expect(try Self.check(entries) == [])
        // The same rule reads a cloud value on the way to iOS.
        #expect(codec.iosValues(fromCloud: [keyId: value]) == [iosKey: want])
    }

    // MARK: - Enums

    @Test(arguments: [
        ("VultureAnnotationStyle", Int64(0), "sport", "glider"),
        ("VultureAnnotationStyle", 1, "sport", "parapente"),
        ("VultureAnnotationStyle", 2, "sport", "delta"),
        ("VultureMapStyle", 0, "mapStyle", "adaptive"),
        ("VultureMapStyle", 1, "mapStyle", "outdoors"),
        ("VultureMapStyle", 2, "mapStyle", "satellite"),
        ("VultureMapStyle", 3, "mapStyle", "streets"),
        ("VultureMapStyle", 4, "mapStyle", "standard"),
        ("VultureTrackOptimization", 0, "trackOptimization", "out"),
        ("VultureTrackOptimization", 1, "trackOptimization", "outAndReturn"),
        ("VultureTrackOptimization", 2, "trackOptimization", "triangle"),
        ("VultureTrackOptimization", 3, "trackOptimization", "threeTurnpoints"),
        ("VultureTrackOptimization", 4, "trackOptimization", "fiveTurnpoints"),
    ])
    func enumRawValuesMapToCaseNames(iosKey: String, raw: Int64, keyId: String, name: String) {
        #expect(codec.cloudValues(fromIOS: [iosKey: .integer(raw)])[keyId] == .string(name))
        #expect(codec.iosValues(fromCloud: [keyId: .string(name)]) == [iosKey: .integer(raw)])
    }

    @Test func mapStyleAdaptiveIsAbsentLocallyAndZeroInICloud() {
        #expect(codec.cloudValues(fromIOS: [:])["mapStyle"] == .string("adaptive"))
        #expect(codec.cloudValues(fromIOS: ["VultureMapStyle": .integer(0)])["mapStyle"] == .string("adaptive"))
        #expect(codec.iosValues(fromCloud: ["mapStyle": .string("adaptive")]) == ["VultureMapStyle": .integer(0)])
    }

    @Test(arguments: [
        ("VultureAnnotationStyle", FirestoreValue.integer(3), "sport", "glider"),
        ("VultureTrackOptimization", .integer(-1), "trackOptimization", "fiveTurnpoints"),
        ("VultureTrackOptimization", .double(2.0), "trackOptimization", "triangle"),
        ("VultureTrackOptimization", .string("triangle"), "trackOptimization", "fiveTurnpoints"),
        ("VultureMapStyle", .integer(9), "mapStyle", "adaptive"),
    ])
    func unknownEnumRawValuesTakeTheDefault(iosKey: String, value: FirestoreValue, keyId: String, want: String) {
        #expect(codec.cloudValues(fromIOS: [iosKey: value])[keyId] == .string(want))
    }

    @Test func unknownEnumCloudValuesTakeTheDefault() {
        #expect(
            codec.iosValues(fromCloud: ["sport": .string("Glider"), "trackOptimization": .integer(2)]) == [
                "VultureAnnotationStyle": .integer(0), "VultureTrackOptimization": .integer(4),
            ])
    }

    // MARK: - Units

    @Test(arguments: [
        ("VultureSkySightWindSpeedUnit", "windSpeedUnit", ["kph", "mph", "kt"]),
        ("VultureSkySightVerticalSpeedUnit", "verticalSpeedUnit", ["ms", "kt", "fts"]),
        ("VultureSkySightAltitudeUnit", "altitudeUnit", ["m", "ft"]),
        ("VultureSpeedUnit", "speedUnit", ["kph", "mph", "kt"]),
        ("VultureDistanceUnit", "distanceUnit", ["km", "mi", "nm"]),
        ("VultureTemperatureUnit", "temperatureUnit", ["celsius", "fahrenheit"]),
    ])
    func unitIndexesMapToUnitIds(iosKey: String, keyId: String, units: [String]) {
        for (index, unit) in units.enumerated() {
            #expect(codec.cloudValues(fromIOS: [iosKey: .integer(Int64(index))])[keyId] == .string(unit))
            #expect(codec.iosValues(fromCloud: [keyId: .string(unit)]) == [iosKey: .integer(Int64(index))])
        }
        // An unknown index or id falls back to the first unit (schema §2, units).
        for bad: FirestoreValue in [.integer(7), .integer(Int64(units.count)), .integer(-1), .string("kph")] {
            #expect(codec.cloudValues(fromIOS: [iosKey: bad])[keyId] == .string(units[0]), "\(bad)")
        }
        for bad: FirestoreValue in [.string("furlong"), .integer(1), .boolean(true)] {
            #expect(codec.iosValues(fromCloud: [keyId: bad]) == [iosKey: .integer(0)], "\(bad)")
        }
    }

    @Test func unitIndexFromADouble() {
        #expect(codec.cloudValues(fromIOS: ["VultureDistanceUnit": .double(2.0)])["distanceUnit"] == .string("nm"))
    }

    // MARK: - Home base

    @Test func homeBaseFromThreeKeys() throws {
        let kvs: [String: FirestoreValue] = [
            "VultureHomebaseName": .string("Aachen Merzbrück"), "VultureHomebaseLatitude": .double(50.8231),
            "VultureHomebaseLongitude": .double(6.1864),
        ]
        let want: FirestoreValue = .map([
            "name": .string("Aachen Merzbrück"), "latitude": .double(50.8231), "longitude": .double(6.1864),
        ])
        #expect(codec.cloudValues(fromIOS: kvs)["homeBase"] == want)
        #expect(codec.iosValues(fromCloud: ["homeBase": want]) == kvs)
        #expect(try Self.check(codec.entries(fromIOS: kvs, changedAt: [:], deviceId: "d")) == [])
    }

    @Test(arguments: [
        (["VultureHomebaseName": FirestoreValue.string("")], FirestoreValue.null),
        (["VultureHomebaseName": .null], .null),
        (["VultureHomebaseLatitude": .double(50.0), "VultureHomebaseLongitude": .double(6.0)], .null),
        (
            ["VultureHomebaseName": .string("Bierset")],
            .map(["name": .string("Bierset"), "latitude": .double(0), "longitude": .double(0)])
        ),
        (
            [
                "VultureHomebaseName": .string("Pole"), "VultureHomebaseLatitude": .double(95),
                "VultureHomebaseLongitude": .integer(-200),
            ],
            .map(["name": .string("Pole"), "latitude": .double(90), "longitude": .double(-180)])
        ),
        ([:], klippeneck),
    ])
    func homeBaseCases(kvs: [String: FirestoreValue], want: FirestoreValue) throws {
        let entries = codec.entries(fromIOS: kvs, changedAt: [:], deviceId: "d")
        #expect(entries["homeBase"]?.mapValue?["v"] == want)
        #expect(try Self.check(entries) == [])
    }

    @Test func noHomeBaseGoesToIOSAsAnEmptyName() {
        #expect(codec.iosValues(fromCloud: ["homeBase": .null]) == ["VultureHomebaseName": .string("")])
        #expect(
            codec.iosValues(fromCloud: ["homeBase": .map(["name": .string("")])]) == [
                "VultureHomebaseName": .string("")
            ])
    }

    // MARK: - Zones

    static let startZoneKeys = [
        "VultureWaypointStartZoneType", "VultureWaypointStartZoneLine", "VultureWaypointStartZoneR1",
        "VultureWaypointStartZoneA1", "VultureWaypointStartZoneR2", "VultureWaypointStartZoneA2",
        "VultureWaypointStartZoneA12",
    ]

    @Test func zoneFromSevenKeys() throws {
        let kvs: [String: FirestoreValue] = [
            "VultureWaypointZoneType": .integer(0), "VultureWaypointZoneLine": .boolean(false),
            "VultureWaypointZoneR1": .double(500), "VultureWaypointZoneA1": .double(180),
            "VultureWaypointZoneR2": .double(10_000), "VultureWaypointZoneA2": .double(45),
            "VultureWaypointZoneA12": .double(120),
        ]
        let want = Self.zone(type: 0, isLine: false, r1: 500, a1: 180, r2: 10_000, a2: 45, a12: 120)
        #expect(codec.cloudValues(fromIOS: kvs)["waypointZone"] == want)
        #expect(codec.iosValues(fromCloud: ["waypointZone": want]) == kvs)
        #expect(try Self.check(codec.entries(fromIOS: kvs, changedAt: [:], deviceId: "d")) == [])
    }

    @Test func aPartialZoneIsCompletedFromTheDefaultZone() {
        let values = codec.cloudValues(fromIOS: ["VultureWaypointFinishZoneR1": .double(3000)])
        #expect(values["finishZone"] == Self.zone(type: 1, isLine: true, r1: 3000, a1: 0))
    }

    @Test(arguments: [
        ("VultureWaypointStartZoneType", FirestoreValue.integer(4), "type", FirestoreValue.integer(4)),
        ("VultureWaypointStartZoneType", .integer(5), "type", .integer(1)),
        ("VultureWaypointStartZoneType", .double(2.0), "type", .integer(2)),
        ("VultureWaypointStartZoneLine", .integer(0), "isLine", .boolean(false)),
        ("VultureWaypointStartZoneR1", .integer(2000), "r1", .double(2000)),
        ("VultureWaypointStartZoneR1", .double(1049), "r1", .double(1000)),
        ("VultureWaypointStartZoneR1", .double(1050), "r1", .double(1100)),
        ("VultureWaypointStartZoneR1", .double(60_000), "r1", .double(50_000)),
        ("VultureWaypointStartZoneR2", .double(-100), "r2", .double(0)),
        ("VultureWaypointStartZoneR2", .double(-10), "r2", .double(0)),
        ("VultureWaypointStartZoneA1", .double(200), "a1", .double(180)),
        ("VultureWaypointStartZoneA12", .double(359), "a12", .double(180)),
        ("VultureWaypointStartZoneA2", .string("45"), "a2", .double(0)),
    ])
    func zoneFieldsBridgeAndClamp(iosKey: String, value: FirestoreValue, field: String, want: FirestoreValue) throws {
        let entries = codec.entries(fromIOS: [iosKey: value], changedAt: [:], deviceId: "d")
        #expect(entries["startZone"]?.mapValue?["v"]?.mapValue?[field] == want)
        #expect(try Self.check(entries) == [])
    }

    @Test func aZoneGoesToIOSAsSevenTypedKeys() {
        let kvs = codec.iosValues(fromCloud: [
            "startZone": .map(["type": .integer(3), "isLine": .boolean(false), "r1": .integer(500), "extra": .null])
        ])
        let want: [FirestoreValue] = [
            .integer(3), .boolean(false), .double(500), .double(0), .double(0), .double(0), .double(0),
        ]
        #expect(kvs == Dictionary(uniqueKeysWithValues: zip(Self.startZoneKeys, want)))
    }

    // MARK: - VultureShowTrack

    @Test func showTrackIsWrittenToBothRows() {
        let values = codec.cloudValues(fromIOS: [
            "VultureShowTrack": .boolean(false), "VultureIsTrackVisible": .boolean(true),
        ])
        #expect(values["showOptimizedTrack"] == .boolean(false))
        #expect(values["isInFlightCurrentTrackVisible"] == .boolean(false))
    }

    @Test func showTrackIsReadFromShowOptimizedTrackOnly() {
        let kvs = codec.iosValues(fromCloud: [
            "showOptimizedTrack": .boolean(false), "isInFlightCurrentTrackVisible": .boolean(true),
        ])
        #expect(kvs == ["VultureShowTrack": .boolean(false), "VultureIsTrackVisible": .boolean(true)])
        #expect(
            codec.iosValues(fromCloud: ["isInFlightCurrentTrackVisible": .boolean(false)]) == [
                "VultureIsTrackVisible": .boolean(false)
            ])
    }

    // MARK: - Round trip

    static let fullStore: [String: FirestoreValue] = [
        "VultureAnnotationStyle": .integer(1), "VultureDetectSportAutomatically": .boolean(false),
        "VultureSkySightWindSpeedUnit": .integer(2), "VultureSkySightVerticalSpeedUnit": .integer(1),
        "VultureSkySightAltitudeUnit": .integer(1), "VultureSpeedUnit": .integer(2),
        "VultureDistanceUnit": .integer(2), "VultureTemperatureUnit": .integer(1),
        "VultureHomebaseName": .string("Saint-Hubert"), "VultureHomebaseLatitude": .double(50.0367),
        "VultureHomebaseLongitude": .double(5.4042), "VultureMapStyle": .integer(2),
        "VultureOpenAIPAirspaceEnabled": .boolean(false), "VultureShowHiddenAirspaces": .boolean(true),
        "VultureAutomaticUpdateEnabled": .boolean(true), "VultureShowColoredTrack": .boolean(false),
        "VulturePinned": .boolean(true), "VultureShowWind": .boolean(false), "VultureArePhotosVisible": .boolean(true),
        "VultureShowThermals": .boolean(false), "VultureShowThermalAttempts": .boolean(false),
        "VultureShowAltitudeGained": .boolean(false), "VultureShowTrack": .boolean(false),
        "VultureIsTrackVisible": .boolean(false), "VultureTrackOptimization": .integer(2),
        "VultureShowTask": .boolean(false), "VultureShowOptimizedTask": .boolean(false),
        "VultureShowAssignedTaskTime": .boolean(true), "VultureIsFlightPathVisible": .boolean(false),
        "VultureIsOptimizedPathVisible": .boolean(false), "VultureIsTrackToWaypointVisible": .boolean(false),
        "VultureWaypointStartZoneType": .integer(4), "VultureWaypointStartZoneLine": .boolean(true),
        "VultureWaypointStartZoneR1": .double(2000), "VultureWaypointStartZoneA1": .double(90),
        "VultureWaypointStartZoneR2": .double(0), "VultureWaypointStartZoneA2": .double(0),
        "VultureWaypointStartZoneA12": .double(0), "VultureWaypointZoneType": .integer(1),
        "VultureWaypointZoneLine": .boolean(false), "VultureWaypointZoneR1": .double(500),
        "VultureWaypointZoneA1": .double(180), "VultureWaypointZoneR2": .double(0), "VultureWaypointZoneA2": .double(0),
        "VultureWaypointZoneA12": .double(0), "VultureWaypointFinishZoneType": .integer(3),
        "VultureWaypointFinishZoneLine": .boolean(false), "VultureWaypointFinishZoneR1": .double(3000),
        "VultureWaypointFinishZoneA1": .double(45), "VultureWaypointFinishZoneR2": .double(500),
        "VultureWaypointFinishZoneA2": .double(180), "VultureWaypointFinishZoneA12": .double(0),
        "VultureDeclaredPilot": .string("Jérôme Müller"), "VultureDeclaredPassenger": .string("Ann"),
        "VultureDeclaredGliderType": .string("ASG 29"), "VultureDeclaredGliderRegistration": .string("D-KJMU"),
        "VultureDeclaredGliderCompetitionID": .string("JM"), "VultureDeclaredGliderCompetitionClass": .string("18m"),
        "VultureFlarmLoggerInterval": .integer(1), "VultureFlarmCompetitionModeEnabled": .boolean(true),
        "VultureFlarmStealthModeEnabled": .boolean(true), "VultureSkySightOverlayOpacity": .double(0.6),
        // Not synced: ignored on the way up, absent on the way back.
        "VulturePlaySpeed": .integer(3),
    ]

    @Test func aFullStoreRoundTrips() throws {
        let cloud = codec.cloudValues(fromIOS: Self.fullStore)
        #expect(cloud["sport"] == .string("parapente"))
        #expect(cloud["verticalSpeedUnit"] == .string("kt"))
        #expect(cloud["mapStyle"] == .string("satellite"))
        #expect(cloud["finishZone"] == Self.zone(type: 3, isLine: false, r1: 3000, a1: 45, r2: 500, a2: 180))
        for key in SyncSchema.vulture.settingsKeys {
            #expect(cloud[key.key] != key.defaultValue, "\(key.key) keeps the default in a store that changes it")
        }
        var want = Self.fullStore
        want["VulturePlaySpeed"] = nil
        #expect(codec.iosValues(fromCloud: cloud) == want)
        #expect(try Self.check(codec.entries(fromIOS: Self.fullStore, changedAt: [:], deviceId: "d")) == [])
    }

    // MARK: - Entries and times

    @Test func entriesCarryTheLatestChangeOfTheirIOSKeys() throws {
        let changedAt: [String: Int64] = [
            "VultureHomebaseName": 1_000, "VultureHomebaseLatitude": 3_000, "VultureHomebaseLongitude": 2_000,
            "VultureWaypointZoneR1": 5_000, "VultureWaypointZoneA12": 7_000,
            "VultureShowTrack": 9_000, "VultureIsTrackVisible": 11_000,
            "VultureMapStyle": 4_000, "VultureFlarmLoggerInterval": -20,
            "VulturePlaySpeed": 99_000,
        ]
        let entries = codec.entries(fromIOS: Self.fullStore, changedAt: changedAt, deviceId: "ios-7F3A")
        func t(_ key: String) -> FirestoreValue? { entries[key]?.mapValue?["t"] }
        #expect(t("homeBase") == .integer(3_000))
        #expect(t("waypointZone") == .integer(7_000))
        #expect(t("startZone") == .integer(0))
        #expect(t("showOptimizedTrack") == .integer(9_000))
        #expect(t("isInFlightCurrentTrackVisible") == .integer(9_000))
        #expect(t("mapStyle") == .integer(4_000))
        #expect(t("flarmLoggerInterval") == .integer(0))
        #expect(t("sport") == .integer(0))
        #expect(entries["sport"]?.mapValue?["d"] == .string("ios-7F3A"))
        #expect(try Self.check(entries) == [])
    }

    /// A user who picks Adaptive removes the iOS key, but the change still carries its time.
    @Test func aChangeBackToAnAbsentDefaultKeepsItsTime() {
        let entries = codec.entries(fromIOS: [:], changedAt: ["VultureMapStyle": 4_000], deviceId: "d")
        #expect(entries["mapStyle"] == .map(["v": .string("adaptive"), "t": .integer(4_000), "d": .string("d")]))
    }

    // MARK: - Cloud values that do not fit their key

    @Test(arguments: [
        ("isPinned", FirestoreValue.null, FirestoreValue.boolean(false)),
        ("homeBase", .null, .null),
        ("homeBase", .string("Klippeneck"), .null),
        ("homeBase", .map(["latitude": .double(1)]), .null),
        ("startZone", .null, zone(type: 1, isLine: true, r1: 1000, a1: 0)),
        ("declaredPilot", .null, .string("")),
        ("speedUnit", .string("furlong"), .string("kph")),
        ("mapStyle", .string("hybrid"), .string("adaptive")),
        ("flarmLoggerInterval", .double(3.0), .integer(3)),
    ])
    func normalizedCloudValues(keyId: String, value: FirestoreValue, want: FirestoreValue) throws {
        let key = try #require(SyncSchema.vulture.settingsKey(keyId))
        #expect(codec.normalizedCloudValue(value, of: key) == want)
    }
}
