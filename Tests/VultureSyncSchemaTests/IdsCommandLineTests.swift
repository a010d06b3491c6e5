import Foundation
import Testing
import VultureChildProcess

@testable import VultureSyncSchema

/// `vulture-conformance id …` (README "The conformance runner"), run as a process from the build directory; skipped
/// when the executable has not been built.
@Suite(
    "vulture-conformance id",
    .enabled(
        if: IdsTestSupport.conformanceExecutable != nil, "vulture-conformance is not built (swift build builds it)")
)
struct IdsCommandLineTests {

    static let contentHash = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

    @Test(arguments: [
        (["homebase", "  Saint-Hubert "], "e5e275b1da6a9317d577dcb2cec35c8c8f3206aff9d4fff036ab566f7ddf3bab"),
        (
            [
                "task", "--external-url",
                "https://www.soaringspot.com/en_gb/39th-fai-world-gliding-championships-2026/tasks/club/task-1-on-2026-07-01",
            ],
            "fd6d9c1ad446e540aa8edc5bb1f12b89d3d920dc6d843e78654c2fbf24d38bae"
        ),
        (
            ["map-file", "--source", "XCSOAR", "--type", "AIRSPACE", "--filename", "France.txt"],
            "975081902730569c73c63590179edf94f525c1754e63f7510dbb5e76b1e1e854"
        ),
        (
            ["map-file", "--source=USER", "--type=WAYPOINTS", "--content-hash=\(contentHash)"],
            "f48747a8375a862da918feffb624f357aab5bf62ae7b49badccb689bd103de59"
        ),
        (["recent-competition", "39th-fai-wgc-2026"], "39th-fai-wgc-2026"),
    ])
    func printsTheId(arguments: [String], id: String) throws {
        let exe = try #require(IdsTestSupport.conformanceExecutable)
        let r = try IdsTestSupport.run(exe, ["id"] + arguments)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == id + "\n")
    }

    @available(macOS 13, iOS 16, *)  // Regex
    @Test func flightIdOfAFileAndARandomTaskId() throws {
        let exe = try #require(IdsTestSupport.conformanceExecutable)
        let dir = try IdsTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("x.igc")
        try Data("abc".utf8).write(to: file)
        let r = try IdsTestSupport.run(exe, ["id", "flight", file.path])
        #expect(r.stdout == Self.contentHash + "\n")
        let t = try IdsTestSupport.run(exe, ["id", "task"])
        #expect(t.status == 0)
        #expect(
            try Regex("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\n$")
                .wholeMatch(in: t.stdout) != nil)
    }

    /// A file over the IGC import cap (`limits.igcImportMaxRawBytes`, Spec/limits.tsv) has no flight
    /// id: reading stops at the cap ("File too large", exit status 2), so `/dev/zero` ends too; a
    /// file of exactly the cap is hashed. The files are sparse.
    @Test func flightIdStopsAtTheImportCap() throws {
        let exe = try #require(IdsTestSupport.conformanceExecutable)
        let dir = try IdsTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cap = SchemaLimits.igcImportMaxRawBytes
        #expect(FileContents.maximumToolInputBytes == Int(cap))
        for (name, size) in [("at-cap.igc", cap), ("over-cap.igc", cap + 1)] {
            let url = dir.appendingPathComponent(name)
            #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: UInt64(size))
            try handle.close()
        }
        let atCap = try IdsTestSupport.run(exe, ["id", "flight", dir.appendingPathComponent("at-cap.igc").path])
        #expect(atCap.status == 0, "\(atCap.stderr)")
        let over = try IdsTestSupport.run(exe, ["id", "flight", dir.appendingPathComponent("over-cap.igc").path])
        #expect(over.status == 2)
        #expect(over.stderr.contains("File too large"), "\(over.stderr)")
        #expect(try IdsTestSupport.run(exe, ["id", "flight", "/dev/zero"]).status == 2)
    }

    @Test(arguments: [
        [],
        ["bogus"],
        ["homebase"],
        ["homebase", "a", "b"],
        ["task", "--external-url"],
        ["task", "--bogus", "x"],
        ["map-file", "--source", "XCSOAR", "--type", "AIRSPACE"],
        ["map-file", "--source", "USER", "--type", "AIRSPACE", "--filename", "x"],
        ["map-file", "--source", "USER", "--type", "AIRSPACE", "--content-hash", "ABC"],
        ["map-file", "--source", "user", "--type", "AIRSPACE", "--filename", "x"],
        ["recent-competition", "a/b"],
        ["recent-competition", ""],
        ["flight", "/nonexistent/file.igc"],
    ])
    func usageAndInputErrorsExitTwo(arguments: [String]) throws {
        let exe = try #require(IdsTestSupport.conformanceExecutable)
        let r = try IdsTestSupport.run(exe, ["id"] + arguments)
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.hasPrefix("vulture-conformance id: "))
    }

    /// An input that breaks an id rule names the rule's id from Spec/rules.tsv before its message.
    @Test(arguments: [
        (["recent-competition", "a/b"], "id.contains-slash: document id must not contain '/'"),
        (["recent-competition", ""], "id.empty: document id is empty"),
        (["recent-competition", "__x__"], "id.reserved: document id must not match __.*__ (reserved by Firestore)"),
        (
            ["map-file", "--source", "USER", "--type", "AIRSPACE", "--content-hash", "ABC"],
            "id.not-sha256-hex: 'ABC' is not a SHA-256 written as 64 lowercase hex characters"
        ),
        (
            ["map-file", "--source", "XCSOAR", "--type", "AIRSPACE", "--filename", ""],
            "id.invalid-map-file-key: map file id: empty filename"
        ),
    ])
    func aBrokenIdRuleIsNamedByItsRuleId(arguments: [String], message: String) throws {
        let exe = try #require(IdsTestSupport.conformanceExecutable)
        let r = try IdsTestSupport.run(exe, ["id"] + arguments)
        #expect(r.status == 2)
        #expect(r.stderr == "vulture-conformance id: \(message)\n")
    }

    @Test func helpPrintsUsage() throws {
        let exe = try #require(IdsTestSupport.conformanceExecutable)
        for args in [["--help"], ["id", "--help"], ["id", "map-file", "--help"]] {
            let r = try IdsTestSupport.run(exe, args)
            #expect(r.status == 0)
            #expect(r.stdout.contains("vulture-conformance id map-file --source USER"))
        }
    }
}
