import Foundation
import Testing
import VultureGoldens

/// The checked-in goldens are exactly what the reference renders from the case definitions
/// (Goldens/README.md): a stale golden fails `swift test`, with the diff to apply.
@Suite struct GoldenFreshnessTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func everyGoldenIsCurrent() throws {
        let files = try GoldenWriter.render()
        #expect(files.count == 94)  // 16 document goldens, 9 vector files, 69 scenarios
        let drift = GoldenWriter.drift(of: files, under: Self.root)
        let report = drift.map(\.diff).joined(separator: "\n")
        #expect(
            drift.isEmpty,
            "stale goldens; run `swift run vulture-goldens write` and commit the diff with its reason:\n\(report)")
    }

    @Test func aStaleGoldenIsReportedWithItsDiff() throws {
        let files = try GoldenWriter.render()
        let tree = FileManager.default.temporaryDirectory.appendingPathComponent("goldens-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: tree) }
        for file in files {
            let url = tree.appendingPathComponent(file.path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.bytes).write(to: url)
        }
        #expect(GoldenWriter.drift(of: files, under: tree).isEmpty)
        let ids = tree.appendingPathComponent("Goldens/vectors/ids.json")
        let text = try String(contentsOf: ids, encoding: .utf8)
        try text.replacingOccurrences(of: "required.ids.homebase.trim\"", with: "required.ids.homebase.trimmed\"")
            .write(to: ids, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(at: tree.appendingPathComponent("Goldens/schema/task.android.json"))
        let drift = GoldenWriter.drift(of: files, under: tree)
        #expect(drift.map(\.path) == ["Goldens/schema/task.android.json", "Goldens/vectors/ids.json"])
        let idsDiff = try #require(drift.last?.diff)
        #expect(idsDiff.hasPrefix("--- a/Goldens/vectors/ids.json\n+++ b/Goldens/vectors/ids.json\n@@ "))
        #expect(idsDiff.contains("-      \"id\": \"required.ids.homebase.trimmed\","))
        #expect(idsDiff.contains("+      \"id\": \"required.ids.homebase.trim\","))
    }
}
