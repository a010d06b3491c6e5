import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// The generated documents every benchmark reads: valid stored-form flights varied per document (from
/// the valid fixture), flights whose comments are 10,000 accented characters (the field's `maxChars`),
/// and tasks with 100 turnpoints (the `maxItems` of `turnpoints`, from the Android golden task).
enum BenchmarkDocuments {
    static func fixture(_ relative: String) throws -> [String: FirestoreValue] {
        let url = packageRoot.appendingPathComponent(relative)
        guard case .map(let m) = try CanonicalJSON.decode(Data(contentsOf: url), file: url.path) else {
            throw BenchmarkError.setup("\(relative) is not a map")
        }
        return m
    }

    static func flightBase() throws -> [String: FirestoreValue] {
        try fixture("Goldens/jsonschema/fixtures/valid/flights.stored.json")
    }

    static func taskBase() throws -> [String: FirestoreValue] {
        guard case .map(let stored)? = try fixture("Goldens/schema/task.android.json")["stored"] else {
            throw BenchmarkError.setup("Goldens/schema/task.android.json has no stored form")
        }
        return stored
    }

    /// Flight `i`: the fixture's fields as a live document (not a tombstone) with ids, timestamps,
    /// names, numbers, flags and optional nulls varied per document.
    static func flight(_ i: Int, base: [String: FirestoreValue]) -> FirestoreValue {
        func ts(_ offset: Int64) -> FirestoreValue {
            // In range by construction: 2026 plus at most a few years.
            .timestamp(
                (try? FirestoreTimestamp(
                    seconds: 1_792_504_987 + Int64(i) * 3_607 + offset, microseconds: Int32(i % 1_000) * 1_000))
                    ?? .minimum)
        }
        let pilots = ["Jérôme Pilote", "Anna Müller", "Łukasz Kowalski", "Sato Ken 佐藤", "Mary O'Brien", "Ana \"Ace\""]
        let gliders = [("LS8-18", "D-1234"), ("ASG 29", "D-KXXA"), ("Discus 2b", "F-CLAB"), ("Ventus 3", "G-CKZZ")]
        let airfields = [("LFNA", "Gap-Tallard", "FR"), ("EDKA", "Aachen-Merzbrück", "DE"), ("EGHL", "Lasham", "GB")]
        let (glider, registration) = gliders[i % gliders.count]
        let (code, name, country) = airfields[i % airfields.count]
        let seconds = 3_600 + (i * 37) % 28_000
        let distance = 50_000.5 + Double((i * 7_919) % 900_000) / 4
        let sha = hex64(i)
        var f = base
        f["schema"] = .integer(1)
        f["deleted"] = .boolean(false)
        f["deletedAt"] = .null
        f["updatedAt"] = ts(86_400)
        f["clientUpdatedAt"] = ts(86_399)
        f["updatedBy"] = .string("d7f1c0de-\(String(i % 4_096, radix: 16))-4a5b-8c9d-\(String(i, radix: 16))")
        f["platform"] = .string(i % 2 == 0 ? "android" : "ios")
        f["createdAt"] = ts(40_000)
        f["importedAt"] = i % 5 == 0 ? .null : ts(39_000)
        f["lastOpenedAt"] = i % 3 == 0 ? .null : ts(50_000)
        f["filename"] = .string("2026-10-20-XCS-\(String(i, radix: 36).uppercased())-\(i % 10).igc")
        f["pilotName"] = .string(pilots[i % pilots.count])
        f["passengerName"] = i % 7 == 0 ? .string(pilots[(i + 1) % pilots.count]) : .null
        f["gliderType"] = .string(glider)
        f["gliderRegistration"] = .string(registration)
        f["competitionIdentification"] = .string(String(registration.suffix(2)))
        f["competitionClass"] = i % 4 == 0 ? .null : .string(["Standard", "15m", "18m", "Open"][i % 4])
        f["comments"] =
            i % 6 == 0 ? .null : .string("Flight \(i): good thermals over the ridge; \"strong\" wind\nfrom 250°.")
        f["inLogbook"] = .boolean(i % 10 != 0)
        f["isRead"] = .boolean(i % 2 == 1)
        f["isFavorite"] = .boolean(i % 3 == 0)
        f["isContest"] = .boolean(i % 11 == 0)
        f["isFieldLanding"] = .boolean(i % 13 == 0)
        f["isRecordedByVulture"] = .boolean(i % 5 == 1)
        f["isTakeoffProcessed"] = .boolean(i % 9 != 0)
        f["waterBallast"] = .integer(Int64((i * 20) % 200))
        f["rating"] = .integer(Int64(i % 6))
        f["taskId"] = i % 4 == 1 ? .string("task-\(hex64(i / 4).prefix(20))") : .null
        f["weglideFlightId"] = i % 8 == 0 ? .string(String(100_000 + i)) : .null
        f["skylinesFlightId"] = i % 16 == 0 ? .string(String(200_000 + i)) : .null
        f["takeoffCode"] = .string(code)
        f["takeoffName"] = .string(name)
        f["takeoffCountryCode"] = .string(country)
        f["trackPreview"] = .bytes(Data((0..<(32 + i % 224)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) }))
        f["trackPreviewVersion"] = .integer(Int64(i % 3))
        f["igc"] =
            i % 20 == 0
            ? .null
            : .map([
                "path": .string((try? BlobPaths.igcObjectPath(uid: "u\(i % 97)", flightId: sha)) ?? ""),
                "sha256": .string(sha),
                "sizeBytes": .integer(Int64(400_000 + (i * 31) % 2_000_000)),
                "gzBytes": .integer(Int64(90_000 + (i * 17) % 500_000)), "uploaded": .boolean(i % 4 != 3),
            ])
        var summary = base["summary"]?.mapValue ?? [:]
        summary["analysisVersion"] = .integer(Int64(1 + i % 2))
        summary["takeoffAt"] = ts(0)
        summary["landingAt"] = ts(Int64(seconds))
        summary["sportKind"] = i % 17 == 0 ? .null : .string(["glider", "parapente", "delta"][i % 3])
        summary["isTaskCompleted"] = .boolean(i % 3 == 2)
        summary["taskDeclaredDistance"] = .double(distance * 1.1)
        summary["taskCompletedDistance"] = .double(distance)
        summary["taskAverageSpeed"] = .double(distance / Double(seconds))
        summary["optimizedDistance"] = .double(distance * 1.2)
        summary["optimizedAverageSpeed"] = .double(distance * 1.2 / Double(seconds))
        summary["fastestAverageSpeed"] = .double(distance * 1.3 / Double(seconds))
        summary["duration"] = .integer(Int64(seconds))
        summary["altitudeGained"] = .integer(Int64(300 + (i * 13) % 2_500))
        summary["thermalAltitudeGained"] = i % 2 == 0 ? .integer(Int64((i * 29) % 9_000)) : nil
        summary["averageCruisingSpeed"] = .double(20.25 + Double(i % 400) / 16)
        summary["bestThermalVario"] = .double(0.5 + Double(i % 64) / 8)
        summary["rightThermalCount"] = .integer(Int64(i % 40))
        summary["leftThermalCount"] = .integer(Int64((i / 40) % 40))
        f["summary"] = .map(summary)
        return .map(f)
    }

    /// The accented letters the long comments cycle through (two UTF-8 bytes each).
    static let accented = Array("éèêëàâäôöûüùçñåøæœíóúýÿãõ".unicodeScalars)

    /// Flight `i` whose comments are exactly `count` accented letters (Unicode scalars).
    static func accentedFlight(_ i: Int, base: [String: FirestoreValue], count: Int) -> FirestoreValue {
        guard case .map(var f) = flight(i, base: base) else { return .null }
        var comments = String.UnicodeScalarView()
        for k in 0..<count { comments.append(accented[(i + k * 7) % accented.count]) }
        f["comments"] = .string(String(comments))
        return .map(f)
    }

    /// Task `i` with `count` turnpoints made from the golden task's first, moved and renamed.
    static func task(_ i: Int, base: [String: FirestoreValue], count: Int) -> FirestoreValue {
        var t = base
        guard case .array(let golden)? = base["turnpoints"], case .map(let first)? = golden.first else { return .null }
        var turnpoints: [FirestoreValue] = []
        turnpoints.reserveCapacity(count)
        for k in 0..<count {
            var p = first
            p["name"] = .string("Wendepunkt \(k) Ödenwald")
            p["code"] = .string("WP\(k)")
            p["latitude"] = .double(45.0 + Double((i * 31 + k * 17) % 900) / 100)
            p["longitude"] = .double(5.0 + Double((i * 13 + k * 29) % 1_000) / 100)
            p["elevation"] = .double(Double(200 + (k * 37) % 2_000))
            p["order"] = .integer(Int64(k))
            p["distance"] = .double(Double(k) * 12_345.5)
            p["bearing"] = .double(Double((k * 47) % 360))
            turnpoints.append(.map(p))
        }
        t["turnpoints"] = .array(turnpoints)
        t["name"] = .string("Task \(i): \(count) turnpoints")
        t["distance"] = .double(Double(count) * 12_345.5)
        return .map(t)
    }

    /// 64 lowercase hex characters from a seed (xorshift).
    static func hex64(_ seed: Int) -> String {
        var x = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        var out = ""
        for _ in 0..<4 {
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
            let digits = String(x, radix: 16)
            out += String(repeating: "0", count: 16 - digits.count) + digits
        }
        return out
    }
}
