import Foundation
import Testing

@testable import VultureSyncSchema

/// Real input: the IGC files of ../shared/corpus (read in place, never copied). Skipped with a
/// message when the corpus is absent.
@Suite(
    "Flight ids and gzip on the real corpus (schema §4, §2 Storage objects)",
    .enabled(
        if: IdsTestSupport.corpusDirectory != nil,
        "corpus absent: ../shared/corpus (relative to the package root) holds the real input files"
    )
)
struct IdsCorpusTests {
    struct Entry: CustomStringConvertible, Sendable {
        var file: String
        var encoding: String
        var sha256: String
        var description: String { file }
    }

    /// The IGC rows of SOURCES.md's file table: file, encoding and SHA-256 columns.
    static let igcEntries: [Entry] = {
        guard let dir = IdsTestSupport.corpusDirectory,
            let text = try? String(contentsOf: dir.appendingPathComponent("SOURCES.md"), encoding: .utf8)
        else { return [] }
        var entries: [Entry] = []
        var header: [String]?
        for line in text.split(separator: "\n") where line.hasPrefix("|") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if header == nil, cells.contains("SHA-256") {
                header = cells
                continue
            }
            guard let header, cells.count == header.count,
                let fi = header.firstIndex(of: "File"), let ei = header.firstIndex(of: "Encoding"),
                let si = header.firstIndex(of: "SHA-256"), cells[fi].hasPrefix("igc/")
            else { continue }
            entries.append(Entry(file: cells[fi], encoding: cells[ei], sha256: cells[si]))
        }
        return entries
    }()

    @Test func sourcesListsTheIGCFiles() throws {
        let dir = try #require(IdsTestSupport.corpusDirectory)
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("igc").path)
            .filter { $0.hasSuffix(".igc") }.sorted()
        #expect(onDisk.count == 10)
        #expect(Self.igcEntries.map { String($0.file.dropFirst(4)) }.sorted() == onDisk)
        #expect(Self.igcEntries.allSatisfy { DocumentIds.isLowercaseHexSHA256($0.sha256) })
    }

    @Test(arguments: igcEntries)
    func flightIdIsTheListedSHA256AndGzipRoundTrips(entry: Entry) throws {
        let dir = try #require(IdsTestSupport.corpusDirectory)
        let path = dir.appendingPathComponent(entry.file).path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(DocumentIds.flightId(igcBytes: bytes) == entry.sha256)
        #expect(try DocumentIds.flightId(igcFileAt: path) == entry.sha256)
        let (map, gz) = try IGCBlob.build(uid: "corpus", igcBytes: bytes)
        #expect(map.sha256 == entry.sha256)
        #expect(map.sizeBytes == Int64(bytes.count))
        #expect(map.gzBytes < map.sizeBytes / 2)  // real IGC: 2.6×–3.6× at level 6
        #expect(try Gzip.decompress(gz) == bytes)
        #expect(try IGCDownload.verify(gzipped: gz, flightId: entry.sha256) == bytes)
    }

    /// Risk R4: Android hashes the original bytes; today's iOS hashes its decoded text re-encoded
    /// as UTF-8. For the Windows-1252/Latin-1 IGC the two ids differ.
    @Test func r4LatinOneFlightGetsTwoIds() throws {
        let dir = try #require(IdsTestSupport.corpusDirectory)
        let latin = Self.igcEntries.filter { $0.encoding == "Latin-1" }.map(\.file)
        #expect(latin.contains("igc/xccup_Win1252.igc"))
        for file in latin {
            let bytes = try Data(contentsOf: dir.appendingPathComponent(file))
            #expect(String(data: bytes, encoding: .utf8) == nil, "\(file) is not UTF-8")
            let text = try #require(String(data: bytes, encoding: .windowsCP1252))
            let reencoded = Data(text.utf8)
            #expect(reencoded.count > bytes.count)
            let androidId = DocumentIds.flightId(igcBytes: bytes)
            let iosId = DocumentIds.flightId(igcBytes: reencoded)
            #expect(androidId != iosId)
            #expect(androidId == Self.igcEntries.first { $0.file == file }?.sha256)
            // ISO-8859-1 gives the same text (the file has no bytes in 0x80–0x9F).
            #expect(String(data: bytes, encoding: .isoLatin1) == text)
        }
        let win = try Data(contentsOf: dir.appendingPathComponent("igc/xccup_Win1252.igc"))
        #expect(win.range(of: Data("HPSITSITE: K\u{F6}nigstuhl".unicodeScalars.map { UInt8($0.value) })) != nil)
        // An ASCII file re-encodes to the same bytes: one id.
        let ascii = try Data(contentsOf: dir.appendingPathComponent("igc/xcsoar_01lz1hq1.igc"))
        #expect(Data(String(decoding: ascii, as: UTF8.self).utf8) == ascii)
    }
}
