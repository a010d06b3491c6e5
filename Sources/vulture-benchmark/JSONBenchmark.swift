import Foundation
import VultureSyncSchema

/// A flight-like document: ~40 fields of every kind, as the schema's flights carry (schema §2).
func benchmarkFlightDocument(_ i: Int) -> FirestoreValue {
    let t = try! FirestoreTimestamp(seconds: 1_792_504_987 + Int64(i) * 3600, microseconds: Int32(i % 1000) * 1000)
    var fields: [String: FirestoreValue] = [
        "schema": .integer(1), "updatedAt": .timestamp(t), "clientUpdatedAt": .timestamp(t),
        "updatedBy": .string("d7f1c0de-\(i)"), "platform": .string("android"), "deleted": .boolean(false),
        "deletedAt": .null, "filename": .string("2026-10-20-XCS-AAA-\(i).igc"), "inLogbook": .boolean(true),
        "pilotName": .string("Jérôme Pilote"), "gliderType": .string("LS8-18"), "gliderRegistration": .string("D-1234"),
        "comments": .string("Good thermals over the ridge; \"strong\" wind\nfrom 250°."), "waterBallast": .integer(80),
        "rating": .integer(4), "isRead": .boolean(true), "isFavorite": .boolean(i % 3 == 0),
        "trackPreview": .bytes(Data((0..<256).map { UInt8(($0 * 7 + i) & 0xFF) })), "trackPreviewVersion": .integer(2),
    ]
    fields["summary"] = .map([
        "analysisVersion": .integer(2), "takeoffAt": .timestamp(t), "landingAt": .timestamp(t),
        "optimizedDistance": .double(312_456.25 + Double(i)), "optimizedAverageSpeed": .double(27.777777777777779),
        "duration": .integer(18_000), "altitudeGained": .integer(1650), "bestThermalVario": .double(3.4),
        "rightThermalCount": .integer(12), "leftThermalCount": .integer(9),
    ])
    let sha = String(repeating: "ab", count: 32)
    fields["igc"] = .map([
        "path": .string((try? BlobPaths.igcObjectPath(uid: "u\(i)", flightId: sha)) ?? ""),
        "sizeBytes": .integer(1_234_567), "gzBytes": .integer(234_567), "sha256": .string(sha),
        "uploaded": .boolean(true),
    ])
    return .map(fields)
}

func runJSONBenchmark() throws {
    let documents = (0..<3000).map(benchmarkFlightDocument)
    let canonical = documents.map(CanonicalJSON.encode)
    let totalBytes = canonical.reduce(0) { $0 + $1.count }
    let datas = canonical.map { Data($0) }
    print("json: \(documents.count) flight-like documents, \(totalBytes) bytes of canonical JSON")

    var parsed: [FirestoreValue] = []
    let ourParse = try bestTime {
        parsed = try canonical.map { try CanonicalJSON.decode($0) }
    }
    guard parsed == documents else { throw BenchmarkError.mismatch("canonical round trip") }
    var foundationObjects: [Any] = []
    let foundationParse = try bestTime {
        foundationObjects = try datas.map { try JSONSerialization.jsonObject(with: $0) }
    }
    report(
        "parse (typed values)", bytes: totalBytes, ours: ourParse, reference: foundationParse,
        referenceName: "JSONSerialization")

    let ourWrite = bestTime { _ = documents.map(CanonicalJSON.encode) }
    let foundationWrite = try bestTime {
        _ = try foundationObjects.map {
            try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys, .prettyPrinted])
        }
    }
    report(
        "write (canonical bytes)", bytes: totalBytes, ours: ourWrite, reference: foundationWrite,
        referenceName: "JSONSerialization")
}

enum BenchmarkError: Error, CustomStringConvertible {
    case mismatch(String)
    var description: String {
        switch self {
        case .mismatch(let what): "results differ: \(what)"
        }
    }
}
