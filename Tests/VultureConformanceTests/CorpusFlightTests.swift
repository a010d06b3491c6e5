import Foundation
import Testing
import VultureConformance
import VultureReference
import VultureSchemaCore
import VultureSyncSchema

/// Real input: every IGC file of ../shared/corpus encodes to a flight document that the schema
/// accepts, and the flight golden's pinned numbers are the corpus file's. Skipped, with the reason,
/// where the corpus is absent (a clone outside this workplace).
enum SharedCorpus {
    /// ../shared/corpus beside the package root, when it exists.
    static let folder: URL? = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let dir = root.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        return FileManager.default.fileExists(atPath: dir.appendingPathComponent("igc").path) ? dir : nil
    }()
}

@Suite(.enabled(if: SharedCorpus.folder != nil, "../shared/corpus is absent (it exists beside the project in CI)"))
struct CorpusFlightTests {
    static let corpus = SharedCorpus.folder

    static var igcFiles: [String] {
        guard let corpus else { return [] }
        return ((try? FileManager.default.contentsOfDirectory(atPath: corpus.appendingPathComponent("igc").path)) ?? [])
            .filter { $0.hasSuffix(".igc") }.sorted()
    }

    /// A flight fixture built from the file: the header fields, first and last fix, its id, sizes.
    static func fixture(_ name: String) throws -> [String: FirestoreValue] {
        let bytes = try Data(contentsOf: try #require(corpus).appendingPathComponent("igc/\(name)"))
        let header = IGCHeader(igcBytes: bytes)
        let gz = try Gzip.compress(bytes, level: 6)
        func text(_ s: String?) -> FirestoreValue { s.map { .string($0) } ?? .null }
        var summary: [String: FirestoreValue] = ["analysisVersion": .integer(1), "sportKind": .string("glider")]
        if let t = header.firstFix, let l = header.lastFix {
            summary["takeoffAt"] = .timestamp(t)
            summary["landingAt"] = .timestamp(l)
            summary["duration"] = .integer(l.seconds - t.seconds)
        }
        let t = try FirestoreTimestamp(seconds: 1_792_504_987)
        return [
            "context": .map([
                "uid": .string("corpus-user"), "deviceId": .string("corpus-device"), "platform": .string("android"),
                "clientUpdatedAt": .timestamp(t), "serverTime": .timestamp(t),
            ]),
            "record": .map([
                "filename": .string(name), "inLogbook": .boolean(true), "importedAt": .timestamp(t),
                "pilotName": text(header.pilotName), "passengerName": text(header.passengerName),
                "gliderType": text(header.gliderType), "gliderRegistration": text(header.gliderRegistration),
                "competitionIdentification": text(header.competitionIdentification),
                "competitionClass": text(header.competitionClass), "summary": .map(summary),
            ]),
            "igc": .map([
                "sha256": .string(DocumentIds.flightId(igcBytes: bytes)), "sizeBytes": .integer(Int64(bytes.count)),
                "gzBytes": .integer(Int64(gz.count)), "uploaded": .boolean(false),
            ]),
        ]
    }

    @Test(arguments: igcFiles)
    func corpusFlightEncodesToAValidDocument(_ name: String) throws {
        let validator = SchemaValidator(schema: .vulture)
        let fixture = try Self.fixture(name)
        for form in DocumentForm.allCases {
            let (path, doc) = try DocumentFixture(collection: "flights", fixture: fixture).encode(form: form)
            #expect(
                path.hasSuffix(
                    "/flights/"
                        + DocumentIds.flightId(
                            igcBytes: try Data(contentsOf: Self.corpus!.appendingPathComponent("igc/\(name)")))))
            let violations = validator.validate(
                doc, documentType: "FlightDocument", options: ValidationOptions(form: form, strict: true))
            #expect(violations.isEmpty, "\(name) \(form): \(violations.map(\.description))")
            let typed = try FlightDocument(firestoreValue: .map(doc), form: form)
            #expect(typed.firestoreValue(form: form) == .map(doc))
        }
    }

    /// The numbers the flight golden pins (Tools/vulture-goldens/DocumentGoldens.swift) are the file's.
    @Test func flightGoldenMatchesItsCorpusFile() throws {
        let name = "igc-parser_2016-11-08-xcs-aaa-02.igc"
        let fixture = try Self.fixture(name)
        let golden =
            try CanonicalJSON.decode(
                Data(contentsOf: GoldenSuite.defaultRoot.appendingPathComponent("schema/flight.android.json"))
            ).mapValue ?? [:]
        #expect(
            golden["fixture"]?[fieldPath: "igc"]
                == fixture["igc"].map { v -> FirestoreValue in
                    var m = v.mapValue ?? [:]
                    m["uploaded"] = .boolean(true)
                    return .map(m)
                })
        let record = try #require(golden["fixture"]?[fieldPath: "record"])
        for field in ["pilotName", "gliderType", "gliderRegistration"] {
            #expect(record[fieldPath: field] == fixture["record"]?[fieldPath: field], "\(field)")
        }
        for field in ["takeoffAt", "landingAt", "duration"] {
            #expect(
                record[fieldPath: "summary.\(field)"] == fixture["record"]?[fieldPath: "summary.\(field)"], "\(field)")
        }
    }
}
