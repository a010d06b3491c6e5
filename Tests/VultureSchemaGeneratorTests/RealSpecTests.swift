import Foundation
import Testing
import VultureSchemaCore

@testable import VultureSchemaGenerator

/// The checked-in Spec/ loads clean and holds every fact the seed lists.
@Suite struct RealSpecTests {
    let spec: SchemaSpec

    init() throws {
        spec = try SchemaSpec.load(from: specDirectory)
    }

    @Test func loadsWithoutProblems() {
        let (read, errors) = SchemaSpec.read(from: specDirectory)
        #expect(errors.isEmpty, "\(errors)")
        #expect(read.validate().isEmpty, "\(read.validate())")
    }

    /// Where the two seeds disagree on a field's nullability, a pin says which holds: 001 §1.3 has
    /// RecentHomebase.name optional, the schema keeps it non-null (its id hashes it); 000 §5.4 has only
    /// tombstones carry deletedAt. And the content hash iOS computes (000 §7) is a row of ids.tsv.
    @Test func nullabilityChoicesArePinned() throws {
        let name = try #require(spec.fields.first { $0.owner == "HomebaseDocument" && $0.name == "name" })
        #expect(!name.isNullable)
        #expect(
            spec.pins.contains { $0.name == "homebaseNameRequired" && $0.subject.contains("HomebaseDocument.name") })
        let deletedAt = try #require(spec.fields.first { $0.owner == "CommonFields" && $0.name == "deletedAt" })
        #expect(deletedAt.limits == [.nullUnless("deleted")])
        #expect(spec.pins.contains { $0.name == "deletedAtOnlyTombstones" })
        // The blob maps' paths and sizes (schema §2 Storage objects): fields.tsv limits from blobs.tsv and limits.tsv.
        let limits = Dictionary(
            uniqueKeysWithValues: spec.fields.filter { ["IGCBlob", "ContentBlob"].contains($0.owner) }.map {
                ("\($0.owner).\($0.name)", $0.limits.map(\.description).joined(separator: ","))
            })
        #expect(limits["IGCBlob.path"] == "storagePath=igc")
        #expect(limits["ContentBlob.path"] == "storagePath=mapFileContent")
        #expect(limits["IGCBlob.gzBytes"] == "minimum=0,maximum=32000000")
        #expect(limits["IGCBlob.sizeBytes"] == "minimum=0,maximum=67108864")
        #expect(limits["ContentBlob.sizeBytes"] == "minimum=0")
        #expect(
            spec.idRules.filter { $0.record == "contentHash" }.map { "\($0.variant) \($0.normalization.rawValue)" } == [
                "bytes none", "iosText none", "iosCub base64Decode",
            ])
    }

    /// Every field the seed lists per owner, named one by one so a missing one is reported by name.
    static let expectedFields: [String: [String]] = [
        "CommonFields": ["schema", "updatedAt", "clientUpdatedAt", "updatedBy", "platform", "deleted", "deletedAt"],
        "ProfileDocument": ["schema", "createdAt", "lastSeenAt", "platforms", "storageBytes", "storageRef"],
        "StorageRef": ["collection", "id"],
        "FlightDocument": [
            "filename", "inLogbook", "createdAt", "importedAt", "lastOpenedAt",
            "pilotName", "passengerName", "gliderRegistration", "gliderType", "competitionIdentification",
            "competitionClass",
            "isRead", "isFavorite", "isContest", "isFieldLanding", "isRecordedByVulture",
            "comments", "waterBallast", "rating", "taskId", "weglideFlightId", "skylinesFlightId",
            "takeoffCode", "takeoffName", "takeoffCountryCode", "isTakeoffProcessed",
            "summary", "trackPreview", "trackPreviewVersion", "igc",
        ],
        "FlightSummary": [
            "analysisVersion", "takeoffAt", "landingAt", "sportKind", "isTaskCompleted", "taskDeclaredDistance",
            "taskCompletedDistance", "taskAverageSpeed", "optimizedDistance", "optimizedAverageSpeed",
            "fastestAverageSpeed",
            "duration", "altitudeGained", "thermalAltitudeGained", "averageCruisingSpeed", "bestThermalVario",
            "rightThermalCount", "leftThermalCount",
        ],
        "IGCBlob": ["path", "sizeBytes", "gzBytes", "sha256", "uploaded"],
        "TaskDocument": [
            "name", "importedAt", "distance", "minimumAatDuration", "turnpoints", "waypointsText", "externalName",
            "externalUrl", "externalVersion", "notes", "inactiveAirspace", "isStartProcessed", "startCountryCode",
        ],
        "Turnpoint": [
            "name", "code", "country", "latitude", "longitude", "elevation", "style", "runwayDirection", "runwayLength",
            "frequency", "description", "order", "distance", "bearing", "zone",
        ],
        "TurnpointZone": [
            "type", "isLine", "isAAT", "R1", "A1", "R2", "A2", "A12", "minimumAltitude", "maximumAltitude",
        ],
        "MapFileDocument": [
            "type", "source", "filename", "importedAt", "itemCount", "isVisible", "contentUpdatedAt", "contentArea",
            "contentHash", "content",
        ],
        "ContentBlob": ["path", "sizeBytes", "gzBytes", "uploaded"],
        "HomebaseDocument": ["name", "latitude", "longitude", "usedAt"],
        "RecentCompetitionDocument": ["name", "location", "country", "startDate", "endDate", "lastOpenedAt"],
        "SettingsDocument": ["values"],
        "SettingsEntry": ["v", "t", "d"],
        "HomeBaseValue": ["name", "latitude", "longitude"],
        "ZoneValue": ["type", "isLine", "r1", "a1", "r2", "a2", "a12"],
    ]

    @Test(arguments: expectedFields.keys.sorted())
    func ownerHasExactlyTheSeedFields(owner: String) {
        let expected = Self.expectedFields[owner]!
        let actual = spec.fields(of: owner).map(\.name)
        for name in expected {
            #expect(actual.contains(name), "fields.tsv lacks \(owner).\(name)")
        }
        for name in actual where !expected.contains(name) {
            Issue.record("fields.tsv has \(owner).\(name), which the seed does not list")
        }
        #expect(actual.count == expected.count)
    }

    @Test func ownersAreExactlyTheExpectedOnes() {
        #expect(Set(spec.fields.map(\.owner)) == Set(Self.expectedFields.keys))
        #expect(spec.fields.count == 144)
        #expect(spec.fields(of: "FlightDocument").count == 30)
        #expect(spec.fields(of: "FlightSummary").count == 18)
    }

    @Test func collectionsAndPushOrder() {
        #expect(
            spec.collectionsInPushOrder.map(\.name) == [
                "tasks", "mapFiles", "homebases", "recentCompetitions", "flights", "settings",
            ])
        #expect(
            spec.collections.map(\.documentType) == [
                "ProfileDocument", "TaskDocument", "MapFileDocument", "HomebaseDocument", "RecentCompetitionDocument",
                "FlightDocument", "SettingsDocument",
            ])
        let flights = spec.collection(named: "flights")
        #expect(flights?.pathTemplate == "users/{uid}/flights/{flightId}")
        #expect(flights?.hasCommonFields == true)
        #expect(spec.collection(named: "settings")?.pathTemplate == "users/{uid}/settings/synced")
        #expect(spec.collection(named: "users")?.hasCommonFields == false)
        #expect(spec.collection(named: "users")?.pushOrder == nil)
    }

    @Test func fieldFacts() throws {
        let waterBallast = try #require(spec.field(at: "waterBallast", in: "FlightDocument"))
        #expect(waterBallast.type == .integer)
        #expect(waterBallast.iosAttribute == "waterBalast")
        #expect(waterBallast.androidColumn == "waterBallast")
        #expect(waterBallast.defaultValue == .integer(0))

        let thermal = try #require(spec.field(at: "summary.thermalAltitudeGained", in: "FlightDocument"))
        #expect(thermal.type == .integer)
        #expect(thermal.presence == .optional)
        #expect(thermal.isNullable)
        #expect(thermal.unit == .metres)
        #expect(thermal.since == "analysisVersion 2 (Android, 2026-10-20)")

        #expect(spec.field(at: "comments", in: "FlightDocument")?.limits == [.maxChars(10000)])
        #expect(spec.field(at: "trackPreview", in: "FlightDocument")?.limits == [.maxBytes(64000)])
        #expect(spec.field(at: "trackPreview", in: "FlightDocument")?.type == .bytes)
        #expect(spec.field(at: "turnpoints", in: "TaskDocument")?.type == .array(.map("Turnpoint")))
        #expect(spec.field(at: "turnpoints", in: "TaskDocument")?.limits == [.maxItems(100)])
        #expect(spec.field(at: "turnpoints[].zone.R1", in: "TaskDocument")?.type == .double)
        #expect(spec.field(at: "turnpoints[].zone.type", in: "TaskDocument")?.type == .enumeration("ZoneType"))
        #expect(spec.field(at: "igc.sha256", in: "FlightDocument")?.limits == [.hexLength(64)])
        #expect(spec.field(at: "summary.taskAverageSpeed", in: "FlightDocument")?.unit == .metresPerSecond)
        #expect(spec.field(at: "summary.duration", in: "FlightDocument")?.unit == .seconds)
        #expect(spec.field(at: "updatedAt", in: "FlightDocument")?.writeAs == .serverTimestamp)
        #expect(spec.field(at: "storageBytes", in: "ProfileDocument")?.writeAs == .increment)
        #expect(spec.field(at: "updatedAt", in: "ProfileDocument") == nil, "the profile has no common fields")
        #expect(spec.field(at: "startDate", in: "RecentCompetitionDocument")?.type == .dateString)
        #expect(spec.field(at: "values.*.t", in: "SettingsDocument")?.unit == .milliseconds)
        #expect(spec.field(at: "contentHash", in: "MapFileDocument")?.isNullable == true)
        #expect(spec.field(at: "latitude", in: "HomebaseDocument")?.type == .double)
        #expect(spec.field(at: "summary.nothing", in: "FlightDocument") == nil)
    }

    @Test func fullFieldPaths() {
        let flightPaths = spec.fieldPaths(of: "FlightDocument").map(\.path)
        #expect(flightPaths.first == "schema", "common fields come first")
        #expect(flightPaths.contains("summary.thermalAltitudeGained"))
        #expect(flightPaths.contains("igc.sha256"))
        #expect(flightPaths.contains("deletedAt"))
        #expect(flightPaths.count == 7 + 30 + 18 + 5)
        let taskPaths = spec.fieldPaths(of: "TaskDocument").map(\.path)
        #expect(taskPaths.contains("turnpoints[].zone.R1"))
        #expect(taskPaths.contains("turnpoints[].bearing"))
        #expect(
            spec.fieldPaths(of: "SettingsDocument").map(\.path).suffix(4) == [
                "values", "values.*.v", "values.*.t", "values.*.d",
            ])
        #expect(spec.fieldPaths(of: "ProfileDocument").map(\.path).contains("storageRef.collection"))
    }

    static let expectedSettingsKeys = [
        "sport", "detectsSportAutomatically", "windSpeedUnit", "verticalSpeedUnit", "altitudeUnit", "speedUnit",
        "distanceUnit", "temperatureUnit", "homeBase", "mapStyle", "isOpenAipAirspaceEnabled", "showHiddenAirspaces",
        "isAutomaticUpdateEnabled", "showColoredTrack", "isPinned", "showWind", "arePhotosVisible", "showThermals",
        "showThermalAttempts", "showFlightEvents", "showOptimizedTrack", "trackOptimization", "showTask",
        "showOptimizedTask", "showAssignedTaskTime", "isInFlightTrackVisible", "isInFlightOptimizedTrackVisible",
        "isInFlightCurrentTrackVisible", "isInFlightTrackToWaypointVisible", "startZone", "waypointZone", "finishZone",
        "declaredPilot", "declaredPassenger", "declaredGliderType", "declaredGliderRegistration",
        "declaredCompetitionId",
        "declaredCompetitionClass", "flarmLoggerInterval", "isFlarmCompetitionModeEnabled", "isFlarmStealthModeEnabled",
        "skySightOverlayOpacity",
    ]

    @Test func fortyTwoSettingsKeys() {
        #expect(Self.expectedSettingsKeys.count == 42)
        #expect(spec.settingsKeys.count == 42)
        #expect(spec.settingsKeys.map(\.key) == Self.expectedSettingsKeys)
    }

    @Test func settingsFacts() throws {
        #expect(spec.settingsKey("sport")?.defaultValue == .string("glider"))
        #expect(spec.settingsKey("sport")?.iosKeys == ["VultureAnnotationStyle"])
        #expect(spec.settingsKey("sport")?.iosMapping == .enumRawValue)
        #expect(spec.settingsKey("mapStyle")?.defaultValue == .string("adaptive"))
        #expect(spec.settingsKey("trackOptimization")?.defaultValue == .string("fiveTurnpoints"))
        #expect(spec.settingsKey("windSpeedUnit")?.type == .unit("windSpeedUnit"))
        #expect(spec.settingsKey("windSpeedUnit")?.iosKeys == ["VultureSkySightWindSpeedUnit"])
        #expect(spec.settingsKey("temperatureUnit")?.defaultValue == .string("celsius"))
        #expect(spec.settingsKey("isOpenAipAirspaceEnabled")?.defaultValue == .boolean(true))
        #expect(spec.settingsKey("showHiddenAirspaces")?.defaultValue == .boolean(false))
        #expect(spec.settingsKey("showFlightEvents")?.iosKeys == ["VultureShowAltitudeGained"])
        #expect(spec.settingsKey("flarmLoggerInterval")?.defaultValue == .integer(4))
        #expect(spec.settingsKey("flarmLoggerInterval")?.allowed == .range(lower: 1, upper: 8))
        #expect(spec.settingsKey("flarmLoggerInterval")?.unit == .seconds)
        #expect(spec.settingsKey("skySightOverlayOpacity")?.defaultValue == .double(0.3))
        #expect(spec.settingsKey("skySightOverlayOpacity")?.allowed == .range(lower: 0.1, upper: 1.0))
        #expect(spec.settingsKey("declaredCompetitionId")?.iosKeys == ["VultureDeclaredGliderCompetitionID"])
        #expect(spec.settingsKey("declaredPilot")?.defaultValue == .string(""))

        let showTrack = try #require(spec.settingsKey("showOptimizedTrack"))
        #expect(showTrack.iosKeys == ["VultureShowTrack"])
        #expect(showTrack.iosMapping == .showTrackShared)
        let current = try #require(spec.settingsKey("isInFlightCurrentTrackVisible"))
        #expect(current.iosKeys == ["VultureShowTrack", "VultureIsTrackVisible"])
        #expect(current.iosMapping == .showTrackWriteOnly)

        let homeBase = try #require(spec.settingsKey("homeBase"))
        #expect(homeBase.isNullable)
        #expect(homeBase.iosKeys == ["VultureHomebaseName", "VultureHomebaseLatitude", "VultureHomebaseLongitude"])
        #expect(homeBase.defaultValue[fieldPath: "name"] == .string("Klippeneck"))
        #expect(homeBase.defaultValue[fieldPath: "latitude"] == .double(48.1075))
        #expect(homeBase.defaultValue[fieldPath: "longitude"] == .double(8.7627778))

        for (key, prefix) in [
            ("startZone", "VultureWaypointStartZone"), ("waypointZone", "VultureWaypointZone"),
            ("finishZone", "VultureWaypointFinishZone"),
        ] {
            let zone = try #require(spec.settingsKey(key))
            #expect(zone.iosMapping == .zoneKeys)
            #expect(zone.iosKeys == ["Type", "Line", "R1", "A1", "R2", "A2", "A12"].map { prefix + $0 })
            #expect(zone.defaultValue[fieldPath: "type"] == .integer(1), "symmetric")
        }
        #expect(spec.settingsKey("startZone")?.defaultValue[fieldPath: "isLine"] == .boolean(true))
        #expect(spec.settingsKey("startZone")?.defaultValue[fieldPath: "r1"] == .double(1000))
        #expect(spec.settingsKey("waypointZone")?.defaultValue[fieldPath: "isLine"] == .boolean(false))
        #expect(spec.settingsKey("waypointZone")?.defaultValue[fieldPath: "r1"] == .double(3000))
        #expect(spec.settingsKey("waypointZone")?.defaultValue[fieldPath: "a1"] == .double(45))
        #expect(spec.settingsKey("finishZone")?.defaultValue[fieldPath: "r1"] == .double(1000))
    }

    @Test func sixUnitTables() throws {
        #expect(spec.unitTables.count == 6)
        let expected: [String: [String]] = [
            "windSpeedUnit": ["kph", "mph", "kt"],
            "verticalSpeedUnit": ["ms", "kt", "fts"],
            "altitudeUnit": ["m", "ft"],
            "speedUnit": ["kph", "mph", "kt"],
            "distanceUnit": ["km", "mi", "nm"],
            "temperatureUnit": ["celsius", "fahrenheit"],
        ]
        for (name, ids) in expected {
            let table = try #require(spec.unitTable(named: name), "units.tsv lacks table \(name)")
            #expect(table.units.map(\.id) == ids, "table \(name)")
            #expect(table.units.map(\.index) == Array(0..<ids.count))
        }
        let vertical = try #require(spec.unitTable(named: "verticalSpeedUnit"))
        #expect(vertical.unit(iosIndex: 2)?.id == "fts")
        #expect(vertical.unit(iosIndex: 7)?.id == "ms", "an unknown index falls back to the first unit")
        #expect(vertical.unit(id: "furlongs")?.id == "ms", "an unknown id falls back to the first unit")
    }

    @Test func enumFacts() throws {
        let zoneType = try #require(spec.enumeration(named: "ZoneType"))
        #expect(zoneType.encoding == .integer)
        #expect(zoneType.cases.map(\.name) == ["fixed", "symmetric", "next", "previous", "start"])
        #expect(zoneType.cases.map(\.cloudValue) == (0...4).map { .integer($0) })
        #expect(
            spec.enumeration(named: "MapFileType")?.cases.map(\.cloudValue) == [
                .string("WAYPOINTS"), .string("AIRSPACE"),
            ])
        #expect(
            spec.enumeration(named: "MapFileSource")?.cases.map(\.cloudValue) == [
                .string("USER"), .string("XCSOAR"), .string("OPENAIP"),
            ])
        #expect(spec.enumeration(named: "MapFileSource")?.cases.map(\.iosValue) == [0, 1, 2])
        #expect(spec.enumeration(named: "Platform")?.cases.map(\.name) == ["android", "ios"])
        #expect(spec.enumeration(named: "Sport")?.cases.map(\.name) == ["glider", "parapente", "delta"])
        #expect(
            spec.enumeration(named: "MapStyle")?.cases.map(\.name) == [
                "adaptive", "outdoors", "satellite", "streets", "standard",
            ])
        #expect(spec.enumeration(named: "TrackOptimization")?.cases.map(\.iosValue) == [0, 1, 2, 3, 4])
        #expect(
            spec.enumeration(named: "StorageRefCollection")?.cases.map(\.cloudValue) == [
                .string("flights"), .string("mapFiles"),
            ])
    }

    @Test func idRules() throws {
        let downloaded = try #require(spec.idRules(of: "mapFile").first { $0.variant == "downloaded" })
        #expect(downloaded.input == "{source}|{type}|{filename}")
        #expect(downloaded.algorithm == .sha256Hex)
        #expect(downloaded.isPinned)
        #expect(downloaded.placeholders == ["source", "type", "filename"])
        let user = try #require(spec.idRules(of: "mapFile").first { $0.variant == "user" })
        #expect(user.input == "USER|{type}|{contentHash}")
        #expect(user.isPinned)
        #expect(spec.idRules(of: "homebase").first?.normalization == .trimLowercase)
        #expect(spec.idRules(of: "task").map(\.algorithm) == [.sha256Hex, .randomUUID])
        #expect(spec.idRules(of: "flight").first?.input == "{igcFileBytes}")
        #expect(spec.idRules(of: "settings").first?.input == "synced")
    }

    @Test func blobs() throws {
        let igc = try #require(spec.blobs.first { $0.name == "igc" })
        #expect(igc.pathTemplate == "users/{uid}/igc/{flightId}.igc.gz")
        #expect(igc.contentType == "application/gzip")
        #expect(igc.contentEncoding == nil)
        #expect(igc.maxObjectBytes == 32_000_000)
        #expect(igc.maxRawBytes == 64 * 1024 * 1024)
        let content = try #require(spec.blobs.first { $0.name == "mapFileContent" })
        #expect(content.pathTemplate == "users/{uid}/files/{contentHash}.gz")
        #expect(content.customMetadata == ["recordId"])
        #expect(content.mapField == "content")
    }

    @Test func mergeRules() {
        func rule(_ document: String?, _ field: String?) -> MergeRuleSpec? {
            spec.mergeRules.first { $0.document == document && $0.fieldPath == field }
        }
        #expect(rule(nil, nil)?.rule == .threeWayLatestClientUpdatedAt)
        #expect(rule(nil, nil)?.tie == .server)
        #expect(rule("FlightDocument", "inLogbook")?.rule == .logicalOr)
        #expect(rule("FlightDocument", "importedAt")?.rule == .earliestNonNull)
        #expect(rule("FlightDocument", "createdAt")?.rule == .earliestNonNull)
        #expect(rule("FlightDocument", "lastOpenedAt")?.rule == .latestClearTravels)
        #expect(rule("HomebaseDocument", "usedAt")?.rule == .latestClearTravels)
        #expect(rule("FlightDocument", "summary")?.rule == .higherAnalysisVersion)
        #expect(rule("FlightDocument", "summary")?.tie == .local)
        #expect(rule("FlightDocument", "trackPreview")?.rule == .trackPreviewRank)
        #expect(rule("FlightDocument", "trackPreviewVersion")?.tie == .local)
        #expect(rule("FlightDocument", "igc.uploaded")?.rule == .logicalOr)
        #expect(rule("MapFileDocument", "content.uploaded")?.rule == .logicalOr)
        #expect(rule("FlightDocument", "igc")?.rule == .blobMapNeverDropped)
        #expect(rule("FlightDocument", "taskId")?.rule == .deferredUntilTaskArrives)
        #expect(rule("SettingsDocument", "values.*")?.rule == .largerEntryTime)
        #expect(rule("SettingsDocument", "values.*")?.tie == .server)
        #expect(rule("MapFileDocument", "contentHash")?.rule == .emptyAsNull)
        #expect(spec.mergeRules.allSatisfy { $0.source.contains("§5.") })
    }

    @Test func limitsAndConstants() {
        #expect(spec.limit(named: "documentMaxBytes")?.value == 1_048_576)
        #expect(spec.limit(named: "commentsMaxChars")?.value == 10_000)
        #expect(spec.limit(named: "trackPreviewMaxBytes")?.value == 64_000)
        #expect(spec.limit(named: "turnpointsMaxItems")?.value == 100)
        #expect(spec.limit(named: "batchMaxWrites")?.value == 500)
        #expect(spec.limit(named: "engineBatchMaxWrites")?.value == 400)
        #expect(spec.limit(named: "engineBatchMaxPayloadBytes")?.value == 4_000_000)
        #expect(spec.limit(named: "storageCapBytes")?.value == 100_000_000)
        #expect(spec.limit(named: "recentsMax")?.value == 50)
        #expect(spec.limit(named: "homebasesShown")?.value == 5)
        #expect(spec.limit(named: "igcImportMaxRawBytes")?.value == 67_108_864)
        #expect(spec.constant(named: "pullOverlapSeconds")?.value == .integer(120))
        #expect(spec.constant(named: "pullPageSize")?.value == .integer(500))
        #expect(spec.constant(named: "settingsDebounceSeconds")?.value == .integer(2))
        #expect(spec.constant(named: "tombstoneRetentionDays")?.value == .integer(90))
        #expect(spec.constant(named: "schemaVersion")?.value == .integer(1))
        #expect(spec.constant(named: "settingsDocumentId")?.value == .string("synced"))
    }

    @Test func pinsCoverTheGaps() {
        let names = Set(spec.pins.map(\.name))
        for name in [
            "mapFileIdDownloaded", "mapFileIdUser", "tombstoneFullReplace", "decimalSizes", "integerOrDouble",
            "zoneTypeInteger", "verticalSpeedFts", "homeBaseDefault",
        ] {
            #expect(names.contains(name), "pins.tsv lacks \(name)")
        }
        #expect(spec.idRules.filter(\.isPinned).count == 3)
    }

    @Test func everyRowCitesASource() {
        let sources =
            spec.collections.map(\.source) + spec.fields.map(\.source) + spec.settingsKeys.map(\.source)
            + spec.enums.flatMap { $0.cases.map(\.source) } + spec.unitTables.flatMap { $0.units.map(\.source) }
            + spec.idRules.map(\.source) + spec.blobs.map(\.source) + spec.limits.map(\.source)
            + spec.pins.map(\.source)
        #expect(sources.allSatisfy { $0.contains("§") })
    }
}
