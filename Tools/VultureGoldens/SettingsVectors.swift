import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// settings/synced: the iOS key-value store ↔ cloud values by the key and unit tables
/// (schema §2 settings/synced), entry times, and the per-key merge (schema §5.3, §5.5).
enum SettingsVectors {
    static let section = "schema §2 settings/synced"
    static let pinned = "schema §2 settings/synced (pinned)"

    static func entry(_ v: FirestoreValue, _ t: Int64, _ d: String) -> FirestoreValue {
        .map(["v": v, "t": .integer(t), "d": .string(d)])
    }

    static var file: VectorFile {
        var cases: [VectorDefinition] = []
        func fromIOS(
            _ id: String, _ kvs: [String: FirestoreValue], changedAt: [String: FirestoreValue] = [:],
            section: String = section, _ note: String, error: String? = nil, pins: [SchemaPin] = []
        ) {
            cases.append(
                VectorDefinition(
                    id: "settings.\(id)", section: section, op: "settings.fromIOS",
                    input: .map(["kvs": .map(kvs), "changedAt": .map(changedAt), "deviceId": .string("ios-device-1")]),
                    note: note, expectedError: error, pins: pins))
        }
        func toIOS(
            _ id: String, _ values: FirestoreValue, section: String = section, _ note: String, error: String? = nil,
            pins: [SchemaPin] = []
        ) {
            cases.append(
                VectorDefinition(
                    id: "settings.\(id)", section: section, op: "settings.toIOS",
                    input: .map(["values": values]), note: note, expectedError: error, pins: pins))
        }
        func merge(_ id: String, _ local: [String: FirestoreValue], _ remote: [String: FirestoreValue], _ note: String)
        {
            cases.append(
                VectorDefinition(
                    id: "settings.merge.\(id)",
                    section: id == "tie-goes-to-cloud" ? "schema §5.5" : "schema §5.3",
                    op: "settings.merge", input: .map(["local": .map(local), "remote": .map(remote)]), note: note))
        }

        // iOS → cloud.
        fromIOS(
            "defaults.empty-store", [:],
            "an empty iOS store gives all 42 keys their fresh-install defaults with t = 0, so any cloud value wins")
        fromIOS(
            "enum.raw-values",
            [
                "VultureAnnotationStyle": .integer(2), "VultureMapStyle": .integer(3),
                "VultureTrackOptimization": .integer(0),
            ],
            changedAt: ["VultureAnnotationStyle": .integer(1_790_000_000_000)],
            "iOS Int raw values are written as case names (delta, streets, out); only the changed key carries a t")
        fromIOS(
            "enum.map-style-adaptive", ["VultureMapStyle": .integer(0)],
            "MapStyle adaptive is raw 0 in iCloud and an absent key locally; both read as \"adaptive\"")
        fromIOS(
            "enum.unknown-raw-value",
            ["VultureTrackOptimization": .integer(9), "VultureAnnotationStyle": .integer(-1)],
            "an unknown enum raw value falls back to the key's default (fiveTurnpoints, glider)",
            pins: [.settingsPlistBridging])
        fromIOS(
            "unit.indexes",
            [
                "VultureSkySightWindSpeedUnit": .integer(2), "VultureSkySightVerticalSpeedUnit": .integer(2),
                "VultureSkySightAltitudeUnit": .integer(1), "VultureSpeedUnit": .integer(1),
                "VultureDistanceUnit": .integer(2), "VultureTemperatureUnit": .integer(1),
            ],
            "iOS stores unit indexes, the cloud unit ids: kt, fts, ft, mph, nm, fahrenheit")
        fromIOS(
            "unit.unknown-index", ["VultureSpeedUnit": .integer(7), "VultureSkySightAltitudeUnit": .integer(-1)],
            "an unknown unit index falls back to the first unit (kph, m)")
        fromIOS(
            "home-base.three-keys",
            [
                "VultureHomebaseName": .string("Saint-Hubert"), "VultureHomebaseLatitude": .double(50.0367),
                "VultureHomebaseLongitude": .double(5.4042),
            ],
            changedAt: [
                "VultureHomebaseName": .integer(1_790_000_000_000),
                "VultureHomebaseLatitude": .integer(1_790_000_000_500),
                "VultureHomebaseLongitude": .integer(1_790_000_000_250),
            ],
            "three iOS keys form one {name, latitude, longitude}; its t is the latest of the three")
        fromIOS(
            "home-base.none", ["VultureHomebaseName": .string(""), "VultureHomebaseLatitude": .double(50.0)],
            changedAt: ["VultureHomebaseName": .integer(1_790_000_000_000)],
            "an empty home base name means no home base: null", pins: [.settingsHomeBaseFallback])
        fromIOS(
            "zone.seven-keys",
            [
                "VultureWaypointZoneType": .integer(0), "VultureWaypointZoneLine": .boolean(false),
                "VultureWaypointZoneR1": .double(500), "VultureWaypointZoneA1": .double(180),
                "VultureWaypointZoneR2": .double(10_000), "VultureWaypointZoneA2": .double(45),
                "VultureWaypointZoneA12": .double(120),
            ],
            changedAt: [
                "VultureWaypointZoneR1": .integer(1_790_000_000_000),
                "VultureWaypointZoneA12": .integer(1_790_000_009_000),
            ],
            "seven iOS keys form {type, isLine, r1, a1, r2, a2, a12}, type the CUP style integer; t is the latest")
        fromIOS(
            "zone.partial", ["VultureWaypointFinishZoneR1": .double(3000)], section: pinned,
            "pinned: a zone field whose iOS key is missing takes the key's default zone's value",
            pins: [.settingsZoneFallback])
        fromIOS(
            "show-track.both-rows", ["VultureShowTrack": .boolean(false), "VultureIsTrackVisible": .boolean(true)],
            changedAt: [
                "VultureShowTrack": .integer(1_790_000_000_000), "VultureIsTrackVisible": .integer(1_790_000_005_000),
            ],
            "VultureShowTrack is written to showOptimizedTrack and isInFlightCurrentTrackVisible, both with its t; "
                + "VultureIsTrackVisible is never read on the way up")
        fromIOS(
            "range.clamp",
            [
                "VultureFlarmLoggerInterval": .integer(12), "VultureSkySightOverlayOpacity": .double(0.05),
                "VultureWaypointStartZoneR1": .double(1049), "VultureWaypointStartZoneA1": .double(200),
            ],
            section: pinned,
            "pinned: out-of-range values are clamped (interval 1…8 → 8, opacity 0.1…1.0 → 0.1, a1 0…180 → 180) and "
                + "zone radii rounded to their 100 m step (1049 → 1000)",
            pins: [.settingsClamp])
        fromIOS(
            "bridging.nsnumber",
            [
                "VulturePinned": .integer(1), "VultureFlarmLoggerInterval": .double(6.0),
                "VultureSkySightOverlayOpacity": .double(Double(Float(0.3))), "VultureDistanceUnit": .double(2.0),
                "VultureDeclaredPilot": .integer(5),
            ],
            section: pinned,
            "pinned: NSNumber bridging (1 → true, 6.0 → 6, 2.0 → index 2 nm); a Float opacity is read as its "
                + "shortest decimal (0.3); a string key holding a number takes its default",
            pins: [.settingsPlistBridging, .settingsFloatOpacity])
        fromIOS(
            "bridging.boolean-from-2", ["VulturePinned": .integer(2)], section: pinned,
            "pinned: a boolean key reads any non-zero number as true (2 → isPinned true), as NSNumber.boolValue",
            pins: [.settingsPlistBridging])
        fromIOS(
            "bridging.integer-from-fraction", ["VultureFlarmLoggerInterval": .double(6.7)], section: pinned,
            "pinned: an integer key truncates a double toward zero (6.7 → 6, not 7), as NSNumber.intValue",
            pins: [.settingsPlistBridging])
        fromIOS(
            "bridging.double-from-boolean", ["VultureSkySightOverlayOpacity": .boolean(true)], section: pinned,
            "pinned: a double key reads true as 1.0 (not its default 0.3), as NSNumber.doubleValue",
            pins: [.settingsPlistBridging])
        let every = Self.everyKeyChanged()
        fromIOS(
            "all-keys.from-ios", every.kvs, changedAt: every.changedAt,
            "all 42 keys set away from their defaults through their iOS keys (VultureShowTrack gives both "
                + "showOptimizedTrack and isInFlightCurrentTrackVisible): every key id, value and t")
        fromIOS(
            "times.changed-at-not-integer", [:], changedAt: ["VulturePinned": .string("yesterday")],
            "changedAt holds epoch milliseconds as integers", error: "input.shape")

        // Cloud → iOS.
        toIOS(
            "to-ios.enums-and-units",
            .map([
                "sport": .string("parapente"), "mapStyle": .string("adaptive"),
                "trackOptimization": .string("triangle"),
                "speedUnit": .string("kt"), "verticalSpeedUnit": .string("fts"),
            ]),
            "case names go back to iOS raw values (adaptive as 0, the iCloud form) and unit ids to indexes")
        toIOS(
            "to-ios.unknown-unit-and-case",
            .map(["distanceUnit": .string("furlong"), "mapStyle": .string("hybrid")]),
            "an unknown unit id falls back to index 0, an unknown case to the key's default",
            pins: [.settingsPlistBridging])
        toIOS(
            "to-ios.home-base",
            .map([
                "homeBase": .map([
                    "name": .string("Aachen Merzbrück"), "latitude": .double(50.8231), "longitude": .double(6.1864),
                ])
            ]),
            "the home base map goes back to three iOS keys")
        toIOS(
            "to-ios.home-base-null", .map(["homeBase": .null]),
            "no home base goes back as an empty name; the coordinates are left alone", pins: [.settingsHomeBaseFallback]
        )
        toIOS(
            "to-ios.zone",
            .map([
                "startZone": .map([
                    "type": .integer(4), "isLine": .boolean(true), "r1": .double(2000), "a1": .double(90),
                    "r2": .double(0), "a2": .double(0), "a12": .double(0),
                ])
            ]),
            "a zone goes back to seven iOS keys")
        toIOS(
            "to-ios.show-track",
            .map(["showOptimizedTrack": .boolean(false), "isInFlightCurrentTrackVisible": .boolean(true)]),
            section: pinned,
            "VultureShowTrack is read from showOptimizedTrack only; isInFlightCurrentTrackVisible goes to "
                + "VultureIsTrackVisible (pin showTrackPull)",
            pins: [.showTrackPull])
        toIOS(
            "all-keys.to-ios", .map(every.values.filter { $0.key != "isInFlightCurrentTrackVisible" }),
            "41 keys set away from their defaults go back to their iOS keys (isInFlightCurrentTrackVisible, pinned, "
                + "is in to-ios.show-track)")
        toIOS(
            "to-ios.values-not-map", .string("sport"), "values is a map of key ids", error: "input.shape")

        // Merge.
        let t0: Int64 = 1_790_000_000_000
        merge(
            "larger-t-wins",
            [
                "sport": entry(.string("delta"), t0 + 500, "ios-device-1"),
                "isPinned": entry(.boolean(true), t0, "ios-device-1"),
            ],
            [
                "sport": entry(.string("glider"), t0, "android-2"),
                "isPinned": entry(.boolean(false), t0 + 1, "android-2"),
            ],
            "per key the larger t wins: sport from local, isPinned from the cloud")
        merge(
            "tie-goes-to-cloud", ["speedUnit": entry(.string("kt"), t0, "ios-device-1")],
            ["speedUnit": entry(.string("mph"), t0, "android-2")],
            "the same t with different values: the cloud value is applied, so every device converges")
        merge(
            "untouched-local-loses",
            [
                "mapStyle": entry(.string("adaptive"), 0, "ios-device-1"),
                "showWind": entry(.boolean(true), 0, "ios-device-1"),
            ],
            [
                "mapStyle": entry(.string("satellite"), t0, "android-2"),
                "showWind": entry(.boolean(false), 0, "android-2"),
            ],
            "a local value never changed by the user has t = 0 and loses to any cloud value, even one with t = 0")
        merge(
            "one-side-only", ["declaredPilot": entry(.string("Ann"), t0, "ios-device-1")],
            ["isPinned": entry(.boolean(true), t0, "android-2")],
            "a key on one side only is kept")
        return VectorFile(
            area: "settings", summary: "settings/synced: iOS key-value store ↔ cloud values, merge", cases: cases)
    }

    /// Every settings key away from its default: the cloud values, and the iOS store holding them under
    /// the keys of `Spec/settings-keys.tsv` with a change time per key (the t each entry must get).
    static func everyKeyChanged() -> (
        values: [String: FirestoreValue], kvs: [String: FirestoreValue], changedAt: [String: FirestoreValue]
    ) {
        let schema = SyncSchema.vulture
        var values: [String: FirestoreValue] = [:]
        var kvs: [String: FirestoreValue] = [:]
        var changedAt: [String: FirestoreValue] = [:]
        let zone: [(String, FirestoreValue)] = [
            ("type", .integer(3)), ("isLine", .boolean(false)), ("r1", .double(2500)), ("a1", .double(90)),
            ("r2", .double(500)), ("a2", .double(30)), ("a12", .double(60)),
        ]
        for (index, key) in schema.settingsKeys.enumerated() {
            let ms: FirestoreValue = .integer(1_790_000_000_000 + Int64(index) * 1_000)
            switch (key.iosMapping, key.type) {
            case (.enumRawValue, .enumeration(let name)):
                let cases = schema.enumeration(named: name)?.cases ?? []
                guard let chosen = cases.last(where: { $0.cloudValue != key.defaultValue }), let raw = chosen.iosValue
                else { continue }
                values[key.key] = .string(chosen.name)
                kvs[key.iosKeys[0]] = .integer(Int64(raw))
            case (.unitIndex, .unit(let table)):
                let units = schema.unitTable(named: table)?.units ?? []
                values[key.key] = .string(units.last ?? "")
                kvs[key.iosKeys[0]] = .integer(Int64(units.count - 1))
            case (.homeBaseKeys, _):
                values[key.key] = .map([
                    "name": .string("Saint-Hubert"), "latitude": .double(50.0367), "longitude": .double(5.4042),
                ])
                kvs[key.iosKeys[0]] = .string("Saint-Hubert")
                kvs[key.iosKeys[1]] = .double(50.0367)
                kvs[key.iosKeys[2]] = .double(5.4042)
            case (.zoneKeys, _):
                values[key.key] = .map(Dictionary(uniqueKeysWithValues: zone))
                for (i, (_, v)) in zone.enumerated() { kvs[key.iosKeys[i]] = v }
            case (.showTrackShared, _), (.showTrackWriteOnly, _):
                // One iOS key, VultureShowTrack, carries both: both go from the default true to false.
                values[key.key] = .boolean(false)
                kvs[key.iosKeys[0]] = .boolean(false)
            default:
                switch key.defaultValue {
                case .boolean(let b): values[key.key] = .boolean(!b)
                case .string: values[key.key] = .string("\(key.key) value")
                case .integer: values[key.key] = .integer(7)
                case .double: values[key.key] = .double(0.5)
                default: continue
                }
                kvs[key.iosKeys[0]] = values[key.key]
            }
            for iosKey in key.iosKeys where kvs[iosKey] != nil { changedAt[iosKey] = ms }
        }
        precondition(values.count == schema.settingsKeys.count, "every settings key needs a changed value")
        return (values, kvs, changedAt)
    }
}
