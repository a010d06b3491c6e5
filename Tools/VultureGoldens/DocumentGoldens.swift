import Foundation
import VultureConformance
import VultureReference
import VultureSchemaCore
import VultureSyncSchema

/// One document golden before its documents are known: `encode` answers it in both forms.
struct DocumentGoldenDefinition {
    var name: String
    var section: String
    var collection: String
    var fixture: [String: FirestoreValue]
    var note: String
    /// The pins of `Spec/pins.tsv` the documents rest on (a choice or an open question makes them recommended).
    var pins: [SchemaPin] = []

}

/// The eight document goldens the schema names (schema §2: flight, task, mapFile, homebase,
/// recentCompetition, settings, profile, tombstone), with realistic values exercising every field.
enum DocumentGoldens {
    static let uid = "Yx3v9QmT2hPZ0aLk7sWc1bN4dR8e"
    static let androidDevice = "5f0c2a9e-8d41-4b7a-9c3e-2a61f0d4b7e8"
    static let iosDevice = "C1D2E3F4-A5B6-4C7D-8E9F-0A1B2C3D4E5F"

    static func context(
        device: String = androidDevice, platform: String = "android", client: String, server: String,
        deletedAt: String? = nil
    ) -> FirestoreValue {
        var m: [String: FirestoreValue] = [
            "uid": .string(uid), "deviceId": .string(device), "platform": .string(platform),
            "clientUpdatedAt": ts(client), "serverTime": ts(server),
        ]
        if let deletedAt { m["deletedAt"] = ts(deletedAt) }
        return .map(m)
    }

    /// The flight: igc/igc-parser_2016-11-08-xcs-aaa-02.igc of the corpus (Turbo87/igc-parser,
    /// MIT), ASCII with LF line ends. Its SHA-256, size, gzipped size and header fields are pinned
    /// here and checked against the real file by CorpusFlightTests when ../shared/corpus exists.
    enum CorpusFlight {
        static let file = "igc/igc-parser_2016-11-08-xcs-aaa-02.igc"
        static let sha256 = "62a3995ee8df49fd9ca474b9bc8ae7038f79a714d6edd2be53f50e7bbea62b36"
        static let sizeBytes: Int64 = 278_069
        /// The gzipped size from zlib at level 6 (the reference codec; `gzip -6` writes 83,169 with its header).
        static let gzBytes: Int64 = 83_095
        static let pilotName = "ARNE MARTIN GUETTLER"
        static let gliderType = "DUO DISCUS"
        static let gliderRegistration = "DUO"
        static let takeoffAt = "2016-11-08T22:43:17Z"
        static let landingAt = "2016-11-09T04:43:01Z"
        static let duration: Int64 = 21_584
        /// The fixture's blob: what the app measured when it reserved the upload.
        static let igc: FirestoreValue = .map([
            "sha256": .string(sha256), "sizeBytes": .integer(sizeBytes), "gzBytes": .integer(gzBytes),
            "uploaded": .boolean(true),
        ])
    }

    static var flight: DocumentGoldenDefinition {
        let summary: FirestoreValue = .map([
            "analysisVersion": .integer(2), "takeoffAt": ts(CorpusFlight.takeoffAt),
            "landingAt": ts(CorpusFlight.landingAt),
            "sportKind": .string("glider"), "isTaskCompleted": .boolean(false), "taskDeclaredDistance": .double(0),
            "taskCompletedDistance": .double(0), "taskAverageSpeed": .double(0),
            "optimizedDistance": .double(512_437.5),
            "optimizedAverageSpeed": .double(23.741_666_666_666_667), "fastestAverageSpeed": .double(31.25),
            "duration": .integer(CorpusFlight.duration), "altitudeGained": .integer(1_842),
            "thermalAltitudeGained": .integer(9_615),
            "averageCruisingSpeed": .double(36.4), "bestThermalVario": .double(3.9), "rightThermalCount": .integer(14),
            "leftThermalCount": .integer(11),
        ])
        let record: [String: FirestoreValue] = [
            "filename": .string("2016-11-08-XCS-AAA-02.igc"), "inLogbook": .boolean(true),
            "createdAt": ts("2026-10-20T14:03:05.120Z"), "importedAt": ts("2026-10-20T14:03:05.120Z"),
            "lastOpenedAt": ts("2026-10-21T08:15:42.004Z"), "pilotName": .string(CorpusFlight.pilotName),
            "passengerName": .string("Jérôme Dupont"), "gliderRegistration": .string(CorpusFlight.gliderRegistration),
            "gliderType": .string(CorpusFlight.gliderType), "competitionIdentification": .string("AAA"),
            "competitionClass": .string("Two-seater"), "isRead": .boolean(true), "isFavorite": .boolean(true),
            "isContest": .boolean(false), "isFieldLanding": .boolean(false), "isRecordedByVulture": .boolean(false),
            "comments": .string("Wave over the Ben Ohau range, \"best day of the year\".\nLanded back at Omarama."),
            "waterBallast": .integer(0), "rating": .integer(5), "taskId": .null, "weglideFlightId": .string("123456"),
            "skylinesFlightId": .null, "takeoffCode": .string("NZOA"), "takeoffName": .string("Omarama"),
            "takeoffCountryCode": .string("NZ"), "isTakeoffProcessed": .boolean(true), "summary": summary,
            "trackPreview": .bytes(Data((0..<96).map { UInt8(($0 * 37 + 11) & 0xFF) })),
            "trackPreviewVersion": .integer(3),
        ]
        return DocumentGoldenDefinition(
            name: "flight", section: "schema §2 flights", collection: "flights",
            fixture: [
                "context": context(client: "2026-10-21T08:15:42.004Z", server: "2026-10-21T08:15:43.512817Z"),
                "record": .map(record),
                "igc": CorpusFlight.igc,
                "source": .string("corpus " + CorpusFlight.file),
            ],
            note:
                "A real IGC file with its real id; the header fields come from the file, the analysis values are realistic.",
            pins: [.integerOrDouble, .summaryRequired, .blobMapsNullable]
        )
    }

    static func turnpoint(
        _ order: Int64, _ name: String, _ lat: Double, _ lon: Double, _ elevation: Double, distance: Double,
        bearing: Double,
        zone: FirestoreValue
    ) -> FirestoreValue {
        .map([
            "name": .string(name), "code": .string(String(name.prefix(6)).uppercased()), "country": .string("DE"),
            "latitude": .double(lat), "longitude": .double(lon), "elevation": .double(elevation), "style": .integer(1),
            "runwayDirection": .null, "runwayLength": .null, "frequency": .null, "description": .null,
            "order": .integer(order),
            "distance": .double(distance), "bearing": .double(bearing), "zone": zone,
        ])
    }

    static func zone(_ type: String, line: Bool, r1: Double, a1: Double, aat: Bool = false) -> FirestoreValue {
        .map([
            "type": .string(type), "isLine": .boolean(line), "isAAT": .boolean(aat), "R1": .double(r1),
            "A1": .double(a1),
            "R2": .double(0), "A2": .double(0), "A12": .double(0), "minimumAltitude": .null, "maximumAltitude": .null,
        ])
    }

    /// The task: the 709 km triangle of cup/seeyou-cup-rs_709-km-Dreieck-DMSt-Aachen-Stolberg-TV.cup.
    static var task: DocumentGoldenDefinition {
        let tps: [FirestoreValue] = [
            turnpoint(
                0, "Aachen Stolberg TV", 50.778_75, 6.243_633_333_333_333, 287, distance: 0, bearing: 0,
                zone: zone("next", line: true, r1: 1000, a1: 180)),
            turnpoint(
                1, "Wendepunkt", 49.174_516_666_666_667, 6.754_866_666_666_667, 280, distance: 182_410.5,
                bearing: 166.2,
                zone: zone("symmetric", line: false, r1: 20_000, a1: 45)),
            turnpoint(
                2, "Helmstadter Berg", 49.776_583_333_333_333, 9.727_233_333_333_333, 347, distance: 224_876.25,
                bearing: 72.9, zone: zone("symmetric", line: false, r1: 20_000, a1: 45)),
            turnpoint(
                3, "Linnich Station", 50.984_45, 6.276_033_333_333_333, 61, distance: 272_903.0, bearing: 296.4,
                zone: zone("symmetric", line: false, r1: 20_000, a1: 45)),
            turnpoint(
                4, "Aachen Stolberg TV", 50.778_75, 6.243_633_333_333_333, 287, distance: 28_810.25, bearing: 185.6,
                zone: zone("previous", line: true, r1: 1000, a1: 180)),
        ]
        let record: [String: FirestoreValue] = [
            "name": .string("709 km · Dreieck · DMSt · Aachen Stolberg TV"), "importedAt": ts("2026-07-01T06:12:00Z"),
            "distance": .double(709_000.0), "minimumAatDuration": .integer(0), "turnpoints": .array(tps),
            "waypointsText": .null, "externalName": .string("709 km · Dreieck · DMSt · Aachen Stolberg TV_282915"),
            "externalUrl": .null, "externalVersion": .null, "notes": .string("Start line 1 km, sectors 20 km."),
            "inactiveAirspace": .null, "isStartProcessed": .boolean(true), "startCountryCode": .string("DE"),
        ]
        return DocumentGoldenDefinition(
            name: "task", section: "schema §2 tasks", collection: "tasks",
            fixture: [
                "context": context(
                    device: iosDevice, platform: "ios", client: "2026-07-01T06:12:00.250Z",
                    server: "2026-07-01T06:12:01.004233Z"),
                "record": .map(record), "taskId": .string("7b2f0c1e-4a3d-4e5f-9a8b-1c2d3e4f5a6b"),
            ],
            note:
                "A task without externalUrl keeps its random UUID id; turnpoints carry the iOS Waypoint keys and zones.",
            pins: [.zoneTypeInteger, .zoneNumbersDouble, .turnpointTypes]
        )
    }

    static var mapFile: DocumentGoldenDefinition {
        DocumentGoldenDefinition(
            name: "mapFile", section: "schema §2 mapFiles", collection: "mapFiles",
            fixture: [
                "context": context(client: "2026-05-03T17:40:11.500Z", server: "2026-05-03T17:40:12.377Z"),
                "record": .map([
                    "type": .string("airspace"), "source": .string("xcsoar"), "filename": .string("germany.txt"),
                    "importedAt": ts("2026-05-03T17:40:11.500Z"), "itemCount": .integer(1_284),
                    "isVisible": .boolean(true),
                    "contentUpdatedAt": ts("2026-03-26T00:00:00Z"), "contentArea": .string("Germany"),
                    "contentHash": .string("3c5e0a1f9b7d2c4e6a8f0b1d3c5e7a9f1b3d5c7e9a0b2d4f6a8c0e2b4d6f8a0c"),
                ]),
                "content": .map([
                    "sizeBytes": .integer(1_937_402), "gzBytes": .integer(402_118), "uploaded": .boolean(false),
                ]),
            ],
            note: "A downloaded airspace file: the pinned id rule, and a content map reserved but not uploaded yet.",
            pins: [.mapFileIdDownloaded])
    }

    static var homebase: DocumentGoldenDefinition {
        DocumentGoldenDefinition(
            name: "homebase", section: "schema §2 homebases", collection: "homebases",
            fixture: [
                "context": context(
                    device: iosDevice, platform: "ios", client: "2026-04-12T09:00:00Z",
                    server: "2026-04-12T09:00:00.981Z"),
                "record": .map([
                    "name": .string("  Aachen Merzbrück "), "latitude": .double(50.823_055_555_555_556),
                    "longitude": .double(6.186_111_111_111_111), "usedAt": ts("2026-04-12T09:00:00Z"),
                ]),
            ],
            note: "The id hashes the trimmed, lowered name; the document keeps the name as entered.",
            pins: [.homebaseNormalization])
    }

    static var recentCompetition: DocumentGoldenDefinition {
        DocumentGoldenDefinition(
            name: "recentCompetition", section: "schema §2 recentCompetitions", collection: "recentCompetitions",
            fixture: [
                "context": context(client: "2026-08-02T19:21:07.333Z", server: "2026-08-02T19:21:08.100Z"),
                "record": .map([
                    "name": .string("Belgian Nationals 2026"), "location": .string("Saint-Hubert"),
                    "country": .string("BE"),
                    "startDate": .string("2026-07-25"), "endDate": .string("2026-08-02"),
                    "lastOpenedAt": ts("2026-08-02T19:21:07.333Z"),
                ]),
                "competitionId": .string("belgian-nationals-2026"),
            ],
            note: "Calendar days as yyyy-MM-dd strings; the id is the Soaring Spot competition id.",
            pins: [.dateStrings])
    }

    static var profile: DocumentGoldenDefinition {
        DocumentGoldenDefinition(
            name: "profile", section: "schema §2 users/{uid}", collection: "users",
            fixture: [
                "context": context(client: "2026-10-21T08:15:42.004Z", server: "2026-10-21T08:15:43.512817Z"),
                "record": .map([
                    "createdAt": ts("2025-12-24T10:00:00Z"), "lastSeenAt": ts("2026-10-21T00:00:00Z"),
                    "platforms": .array([.string("android"), .string("ios")]),
                    "storageRef": .map(["collection": .string("flights"), "id": .string(CorpusFlight.sha256)]),
                ]),
                "storageBytesBefore": .integer(12_408_221), "storageBytesDelta": .integer(CorpusFlight.gzBytes),
            ],
            note: "storageBytes moves by $increment in the same batch as the blob reservation it counts (schema §5.1).",
            pins: [.profileNoCommonFields])
    }

    static var tombstone: DocumentGoldenDefinition {
        DocumentGoldenDefinition(
            name: "tombstone", section: "schema §5.4", collection: "flights",
            fixture: [
                "context": context(
                    device: iosDevice, platform: "ios", client: "2026-11-02T12:00:00.500Z",
                    server: "2026-11-02T12:00:01.250Z",
                    deletedAt: "2026-11-02T12:00:00.500Z"),
                "tombstone": .boolean(true),
                "igc": CorpusFlight.igc,
            ],
            note: "A delete is a full replace (not a merge) holding only the common fields, deleted and deletedAt.",
            pins: [.tombstoneFullReplace])
    }

    /// A golden's fixture holding its map file's id (`fileId`), so that a case built on it does not rest
    /// on the pinned id strings (an open question); other collections' fixtures unchanged.
    static func holdingId(_ golden: DocumentGoldenDefinition) -> [String: FirestoreValue] {
        var f = golden.fixture
        guard golden.collection == "mapFiles",
            let path = try? DocumentFixture(collection: golden.collection, fixture: f).encode(form: .stored).path,
            let id = path.split(separator: "/").last
        else { return f }
        f["fileId"] = .string(String(id))
        return f
    }

    static var all: [DocumentGoldenDefinition] {
        [flight, task, mapFile, homebase, recentCompetition, settings, profile, tombstone]
    }
}

extension DocumentGoldens {
    /// settings/synced with all 42 keys: defaults the user never changed carry t = 0; the changed
    /// ones carry the device's epoch milliseconds.
    static var settings: DocumentGoldenDefinition {
        let changed: [String: (FirestoreValue, Int64)] = [
            "sport": (.string("glider"), 1_767_225_600_000),
            "speedUnit": (.string("kt"), 1_780_000_000_123),
            "distanceUnit": (.string("nm"), 1_780_000_000_456),
            "altitudeUnit": (.string("ft"), 1_780_000_001_000),
            "mapStyle": (.string("satellite"), 1_781_111_111_111),
            "trackOptimization": (.string("triangle"), 1_781_111_222_333),
            "homeBase": (
                .map([
                    "name": .string("Aachen Merzbrück"), "latitude": .double(50.823_055_555_555_556),
                    "longitude": .double(6.186_111_111_111_111),
                ]),
                1_776_000_000_000
            ),
            "startZone": (
                .map([
                    "type": .integer(2), "isLine": .boolean(true), "r1": .double(2000), "a1": .double(0),
                    "r2": .double(0),
                    "a2": .double(0), "a12": .double(0),
                ]), 1_777_000_000_000
            ),
            "declaredPilot": (.string("Jérôme Dupont"), 1_770_000_000_000),
            "declaredGliderType": (.string("Duo Discus"), 1_770_000_000_001),
            "declaredCompetitionId": (.string("AAA"), 1_770_000_000_002),
            "flarmLoggerInterval": (.integer(2), 1_770_000_000_003),
            "skySightOverlayOpacity": (.double(0.45), 1_772_000_000_000),
            "showThermalAttempts": (.boolean(false), 1_772_500_000_000),
        ]
        var values: [String: FirestoreValue] = [:]
        for key in SyncSchema.vulture.settingsKeys {
            let (v, t) = changed[key.key] ?? (key.defaultValue, 0)
            values[key.key] = .map(["v": v, "t": .integer(t)])
        }
        precondition(values.count == 42, "settings golden: expected 42 keys, Spec/ has \(values.count)")
        return DocumentGoldenDefinition(
            name: "settings", section: "schema §2 settings/synced", collection: "settings",
            fixture: [
                "context": context(
                    device: iosDevice, platform: "ios", client: "2026-09-30T18:00:02Z",
                    server: "2026-09-30T18:00:04.118Z"),
                "values": .map(values),
            ],
            note: "All 42 key ids; units as unit ids, enums as case names, zones as maps, the home base as a map.",
            pins: [.settingsValuesDictionary, .enumCaseNames])
    }
}
