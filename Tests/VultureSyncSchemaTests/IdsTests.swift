import Foundation
import Testing

@testable import VultureSyncSchema

@Suite("Deterministic ids (schema §4)")
struct IdsTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    ])
    func sha256KnownVectors(input: String, digest: String) {
        #expect(SHA256Stream.hexDigest(of: Array(input.utf8)) == digest)
        #expect(DocumentIds.flightId(igcBytes: Data(input.utf8)) == digest)
    }

    @Test func sha256StreamsAcrossChunks() {
        let data = IdsTestSupport.pseudoRandomBytes(count: 200_003)
        let stream = SHA256Stream()
        var i = 0
        while i < data.count {
            stream.update(data[i..<min(i + 4099, data.count)])
            i += 4099
        }
        #expect(stream.finalizeHex() == SHA256Stream.hexDigest(of: data))
    }

    @Test func flightIdOfAFileEqualsIdOfItsBytes() throws {
        let dir = try IdsTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("f.igc")
        let bytes = IdsTestSupport.pseudoRandomBytes(count: 150_000)
        try bytes.write(to: file)
        #expect(try DocumentIds.flightId(igcFileAt: file.path) == DocumentIds.flightId(igcBytes: bytes))
        #expect(
            throws: FileAccessError(operation: "open", path: dir.appendingPathComponent("nope").path, errno: ENOENT)
        ) {
            try DocumentIds.flightId(igcFileAt: dir.appendingPathComponent("nope").path)
        }
    }

    @Test(arguments: [
        // (name, the JVM's name.trim().lowercase())
        ("  Saint-Hubert  ", "saint-hubert"),
        ("\u{A0}Saint-Hubert\u{2007}\u{202F}", "saint-hubert"),  // Kotlin trims NBSP-like spaces (isSpaceChar)
        ("\u{1C}\u{1F}\t\nSaint-Hubert\u{3000}", "saint-hubert"),
        ("\u{85}Saint-Hubert\u{85}", "\u{85}saint-hubert\u{85}"),  // NEL is not whitespace on the JVM
        ("\u{200B}Spa\u{FEFF}", "\u{200B}spa\u{FEFF}"),  // zero-width space and BOM are kept
        ("\u{180E}Spa", "\u{180E}spa"),  // Mongolian vowel separator: Cf since Unicode 6.3
        ("İSTANBUL", "i\u{307}stanbul"),  // U+0130 → i + combining dot, root locale
        ("\u{39F}\u{394}\u{39F}\u{3A3}", "\u{3BF}\u{3B4}\u{3BF}\u{3C2}"),  // final sigma
        ("\u{391}\u{3A3} \u{3A3}\u{391}", "\u{3B1}\u{3C2} \u{3C3}\u{3B1}"),
        ("\u{3A3}", "\u{3C3}"),  // no cased letter before: not final
        ("\u{391}\u{3A3}1", "\u{3B1}\u{3C2}1"),  // digits join the word but are not cased
        ("\u{391}\u{3A3}\u{391}", "\u{3B1}\u{3C3}\u{3B1}"),
        ("\u{391}\u{3A3}-\u{392}\u{391}", "\u{3B1}\u{3C3}-\u{3B2}\u{3B1}"),  // '-' joins words (Java's word iterator)
        ("\u{391}\u{3A3}.", "\u{3B1}\u{3C2}."),
        ("ÉCOLE", "école"),
        ("\u{2C2F}", "\u{2C2F}"),  // Glagolitic capital added in Unicode 14: unchanged on Java 17
        ("\u{A7C0}", "\u{A7C0}"),  // Latin capital old polish O, Unicode 14: unchanged on Java 17
        ("K\u{212A}", "kk"),  // Kelvin sign lowercases to k
    ])
    func homebaseKeyFollowsTheJVM(name: String, key: String) {
        #expect(Array(DocumentIds.homebaseKey(name: name).unicodeScalars) == Array(key.unicodeScalars))
        #expect(
            DocumentIds.homebaseId(name: name)
                == SHA256Stream.hexDigest(of: Array(DocumentIds.homebaseKey(name: name).utf8)))
    }

    @Test func homebaseIdKnownValue() {
        #expect(
            DocumentIds.homebaseId(name: " Saint-Hubert\t")
                == "e5e275b1da6a9317d577dcb2cec35c8c8f3206aff9d4fff036ab566f7ddf3bab")
        #expect(
            DocumentIds.homebaseId(name: "   ") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @available(macOS 13, iOS 16, *)  // Regex
    @Test func taskIdHashesTheExternalUrlOrIsARandomUUID() throws {
        let url =
            "https://www.soaringspot.com/en_gb/39th-fai-world-gliding-championships-2026/tasks/club/task-1-on-2026-07-01"
        #expect(
            DocumentIds.taskId(externalUrl: url) == "fd6d9c1ad446e540aa8edc5bb1f12b89d3d920dc6d843e78654c2fbf24d38bae")
        let a = DocumentIds.taskId(externalUrl: nil)
        let b = DocumentIds.taskId(externalUrl: "")
        #expect(a != b)
        let pattern = try Regex("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        for id in [a, b, DocumentIds.randomTaskId()] {
            #expect(id.wholeMatch(of: pattern) != nil, "\(id)")
        }
    }

    @Test(arguments: [
        (
            MapFileSource.xcsoar, MapFileType.airspace, "France.txt",
            "975081902730569c73c63590179edf94f525c1754e63f7510dbb5e76b1e1e854"
        ),
        (.openaip, .waypoints, "be_apt.cup", "4f21c43aad1d1d47cae8d7b32e009485e72efd838c3615ee2da0a71734eb80c0"),
    ])
    func downloadedMapFileIdPin(
        source: MapFileSource, type: MapFileType, filename: String, id: String
    ) throws {
        #expect(try DocumentIds.mapFileId(source: source, type: type, filename: filename) == id)
    }

    @Test func userMapFileIdPin() throws {
        let hash = DocumentIds.contentHash(contentBytes: Data("abc".utf8))
        #expect(hash == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            try DocumentIds.mapFileId(userImportedType: .waypoints, contentHash: hash)
                == "f48747a8375a862da918feffb624f357aab5bf62ae7b49badccb689bd103de59")
        #expect(throws: DocumentIdError.notLowercaseHexSHA256(value: hash.uppercased())) {
            try DocumentIds.mapFileId(userImportedType: .waypoints, contentHash: hash.uppercased())
        }
        // The value is in the message, as an excerpt when long.
        #expect(
            "\(DocumentIdError.notLowercaseHexSHA256(value: hash.uppercased()))"
                == "'\(hash.uppercased())' is not a SHA-256 written as 64 lowercase hex characters")
        let long = String(repeating: "f", count: 10_000)
        #expect(
            "\(DocumentIdError.notLowercaseHexSHA256(value: long))"
                == "'\(long.prefix(100))… (10000 characters)' is not a SHA-256 written as 64 lowercase hex characters")
        #expect(throws: DocumentIdError.invalidMapFileKey(reason: "empty filename")) {
            try DocumentIds.mapFileId(source: .xcsoar, type: .airspace, filename: "")
        }
        #expect(throws: DocumentIdError.self) {
            try DocumentIds.mapFileId(source: .user, type: .airspace, filename: "a.txt")
        }
    }

    @Test(arguments: [
        ("", DocumentIdError.empty),
        ("a/b", .containsSlash),
        ("/", .containsSlash),
        (".", .dotSegment),
        ("..", .dotSegment),
        ("__x__", .reserved),
        ("____", .reserved),
        (String(repeating: "é", count: 751), .tooLong(byteCount: 1502)),
    ])
    func recentCompetitionIdRefusesInvalidDocumentIds(id: String, error: DocumentIdError) {
        #expect(throws: error) { try DocumentIds.recentCompetitionId(competitionId: id) }
    }

    @Test(arguments: ["39th-fai-wgc-2026", "12345", "...", "__x", "x__", "___", String(repeating: "a", count: 1500)])
    func recentCompetitionIdIsTheSoaringSpotId(id: String) throws {
        #expect(try DocumentIds.recentCompetitionId(competitionId: id) == id)
    }
}
