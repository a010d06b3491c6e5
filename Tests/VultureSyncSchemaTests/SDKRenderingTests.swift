import Foundation
import Testing

@testable import VultureSyncSchema

/// The eight document goldens as Google's Python SDK renders them (`Fixtures/sdk-rest/`, made by
/// `Tools/ci/render-goldens-with-sdk.py`): the REST reader gets each golden's stored document back.
@Suite struct SDKRenderingTests {
    static let fixtures = IdsTestSupport.packageRoot.appendingPathComponent(
        "Tests/VultureSyncSchemaTests/Fixtures/sdk-rest")
    static let goldens = IdsTestSupport.packageRoot.appendingPathComponent("Goldens/schema")
    static let names = [
        "flight", "task", "mapFile", "homebase", "recentCompetition", "settings", "profile", "tombstone",
    ]

    @Test(arguments: names)
    func sdkRenderingReadsAsTheGoldensStoredDocument(_ name: String) throws {
        let fixture = try Data(contentsOf: Self.fixtures.appendingPathComponent("\(name).json"))
        let golden = try CanonicalJSON.decode(
            Data(contentsOf: Self.goldens.appendingPathComponent("\(name).json")), file: "\(name).json")
        let stored = try #require(golden[fieldPath: "stored"]?.mapValue)
        let path = try #require(golden[fieldPath: "path"])
        let document = try FirestoreRESTJSON.decodeDocument(fixture, file: "sdk-rest/\(name).json")
        #expect(document.fields == stored)
        #expect(
            document.name.flatMap { FirestoreRESTJSON.splitDocumentName($0)?.path }.map(FirestoreValue.string) == path)
    }

    /// The renderings carry what made the REST reader refuse them before: `"nullValue": 0`.
    @Test func renderingsUseNullValueZero() throws {
        let text = try String(contentsOf: Self.fixtures.appendingPathComponent("flight.json"), encoding: .utf8)
        #expect(text.contains(#""nullValue": 0"#))
    }
}
