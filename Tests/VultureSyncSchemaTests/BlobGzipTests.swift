import Foundation
import Testing

@testable import VultureSyncSchema

@Suite("Gzip codec (schema §2 Storage objects)")
struct BlobGzipTests {
    static let igcLike = Data(
        (0..<5000).map { i in "B\(String(format: "%06d", 100000 + i))4612345N00612345EA0123401234\r\n" }.joined().utf8)

    @Test(arguments: [0, 1, 100, 65_535, 65_536, 65_537, 300_000])
    func roundTripsBytesOfEverySize(size: Int) throws {
        let input = IdsTestSupport.pseudoRandomBytes(count: size)
        let gz = try Gzip.compress(input)
        #expect(gz.prefix(3) == Data([0x1f, 0x8b, 0x08]))
        #expect(try Gzip.decompress(gz) == input)
    }

    @Test func compressesIGCTextAndIsDeterministic() throws {
        let a = try Gzip.compress(Self.igcLike)
        let b = try Gzip.compress(Self.igcLike)
        #expect(a == b)
        #expect(a.count * 4 < Self.igcLike.count)
        // mtime 0 and no file name: bytes 4…7 are zero, FLG is 0.
        #expect(a[3] == 0)
        #expect(a[4..<8] == Data([0, 0, 0, 0]))
    }

    @Test(arguments: [1, 7, 1000, 65_536])
    func chunkedFeedingGivesTheSameBytes(chunk: Int) throws {
        let whole = try Gzip.compress(Self.igcLike)
        let compressor = try GzipCompressor()
        var streamed = Data()
        var i = 0
        while i < Self.igcLike.count {
            let part = Self.igcLike[i..<min(i + chunk, Self.igcLike.count)]
            compressor.compress(part) { streamed.append(contentsOf: $0) }
            i += chunk
        }
        compressor.finish { streamed.append(contentsOf: $0) }
        #expect(streamed == whole)

        let decompressor = try GzipDecompressor()
        var raw = Data()
        var j = 0
        while j < whole.count {
            try decompressor.decompress(whole[j..<min(j + chunk, whole.count)]) { raw.append(contentsOf: $0) }
            j += chunk
        }
        try decompressor.finish()
        #expect(raw == Self.igcLike)
        #expect(decompressor.membersCompleted == 1)
    }

    @Test(arguments: [1, 3, 64, 4096])
    func highlyCompressibleInputFedInSmallChunksLosesNoPendingOutput(chunk: Int) throws {
        let raw = Data(count: 3 << 20) + Data("end".utf8)
        let gz = try Gzip.compress(raw, level: 9)
        let d = try GzipDecompressor(maximumOutputBytes: Int64(raw.count))
        var out = 0
        var last = Data()
        var i = 0
        while i < gz.count {
            try d.decompress(gz[i..<min(i + chunk, gz.count)]) { buf in
                out += buf.count
                last = Data((last + Data(buf)).suffix(3))
            }
            i += chunk
        }
        try d.finish()
        #expect(out == raw.count)
        #expect(last == Data("end".utf8))
    }

    @Test func readsMultiMemberInputLikeGzipDc() throws {
        let a = Data("first member\n".utf8)
        let b = Data("second member\n".utf8)
        let joined = try Gzip.compress(a) + Gzip.compress(b) + Gzip.compress(Data())
        #expect(try Gzip.decompress(joined) == a + b)
        // Fed one byte at a time, the member boundary falls between chunks.
        let d = try GzipDecompressor()
        var out = Data()
        for byte in joined { try d.decompress(Data([byte])) { out.append(contentsOf: $0) } }
        try d.finish()
        #expect(out == a + b)
        #expect(d.membersCompleted == 3)
    }

    @Test(arguments: [
        Data([0x00]), Data("garbage".utf8), Data([0x1f, 0x00]), Data([0x1f, 0x8b, 0x07, 0, 0, 0, 0, 0, 0, 3]),
    ])
    func trailingGarbageIsATypedError(trailer: Data) throws {
        let gz = try Gzip.compress(Data("hello gzip\n".utf8))
        #expect(gz.count == 31)
        #expect {
            try Gzip.decompress(gz + trailer)
        } throws: { error in
            // A second member with a bad method byte is an invalid header; anything else is garbage at 31.
            if trailer == Data([0x1f, 0x8b, 0x07, 0, 0, 0, 0, 0, 0, 3]) {
                if case .invalidHeader = error as? GzipError { return true }
                return false
            }
            return error as? GzipError == .trailingGarbage(offset: 31)
        }
    }

    @Test func truncationAnywhereIsATypedError() throws {
        let gz = try Gzip.compress(Self.igcLike)
        for cut in [0, 1, 5, 10, gz.count / 2, gz.count - 8, gz.count - 1] {
            #expect(throws: GzipError.truncated(offset: Int64(cut))) { try Gzip.decompress(gz.prefix(cut)) }
        }
    }

    @Test func badCRCAndLengthAreTypedErrors() throws {
        var gz = try Gzip.compress(Self.igcLike)
        let n = gz.count
        var badCRC = gz
        badCRC[n - 8] ^= 0xff
        #expect(throws: GzipError.crcMismatch(offset: Int64(n - 4))) { try Gzip.decompress(badCRC) }
        gz[n - 1] ^= 0x01
        #expect(throws: GzipError.lengthMismatch(offset: Int64(n))) { try Gzip.decompress(gz) }
    }

    @Test func invalidHeaderAndCorruptDataAreTypedErrors() throws {
        #expect(throws: GzipError.invalidHeader(offset: 2, reason: "incorrect header check")) {
            try Gzip.decompress(Data("not gzip at all".utf8))
        }
        var gz = try Gzip.compress(Self.igcLike)
        gz[10] = 0xff  // first deflate block header: BTYPE 11 is reserved
        #expect {
            try Gzip.decompress(gz)
        } throws: { error in
            if case .corruptData(_, let reason) = error as? GzipError { return reason == "invalid block type" }
            return false
        }
    }

    @Test func outputCapStopsAGzipBomb() throws {
        // 80 MiB of zeros compresses to ~80 KB; the 64 MiB cap stops inflation there.
        let compressor = try GzipCompressor(level: 9)
        var bomb = Data()
        let zeros = Data(count: 1 << 20)
        for _ in 0..<80 { compressor.compress(zeros) { bomb.append(contentsOf: $0) } }
        compressor.finish { bomb.append(contentsOf: $0) }
        #expect(bomb.count < 200_000)
        let d = try GzipDecompressor(maximumOutputBytes: StorageLimits.maximumRawIGCBytes)
        var produced: Int64 = 0
        #expect {
            try d.decompress(bomb) { produced += Int64($0.count) }
        } throws: { error in
            guard case .outputLimitExceeded(let limit, _) = error as? GzipError else { return false }
            return limit == 67_108_864
        }
        #expect(produced == 67_108_864)
        // Exactly at the cap is fine.
        let exact = try Gzip.compress(Data(count: 4096))
        #expect(try Gzip.decompress(exact, maximumOutputBytes: 4096).count == 4096)
        #expect(throws: GzipError.outputLimitExceeded(limit: 4095, offset: Int64(exact.count))) {
            try Gzip.decompress(exact, maximumOutputBytes: 4095)
        }
    }

    @Test func fileToFileStreams() throws {
        let dir = try IdsTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = dir.appendingPathComponent("in.igc").path
        let gz = dir.appendingPathComponent("in.igc.gz").path
        let back = dir.appendingPathComponent("back.igc").path
        let input = Self.igcLike + IdsTestSupport.pseudoRandomBytes(count: 200_000)
        try input.write(to: URL(fileURLWithPath: src))
        let written = try Gzip.compressFile(at: src, to: gz)
        let gzData = try Data(contentsOf: URL(fileURLWithPath: gz))
        #expect(Int64(gzData.count) == written)
        #expect(gzData == (try Gzip.compress(input)))
        let rawCount = try Gzip.decompressFile(at: gz, to: back)
        #expect(rawCount == Int64(input.count))
        #expect(try Data(contentsOf: URL(fileURLWithPath: back)) == input)
        // A broken file leaves no partial output behind.
        try gzData.prefix(gzData.count - 3).write(to: URL(fileURLWithPath: gz))
        #expect(throws: GzipError.truncated(offset: Int64(gzData.count - 3))) {
            try Gzip.decompressFile(at: gz, to: back)
        }
        #expect(!FileManager.default.fileExists(atPath: back))
        #expect {
            try Gzip.compressFile(at: dir.appendingPathComponent("missing").path, to: gz)
        } throws: { error in
            guard case .file(let e) = error as? GzipError else { return false }
            return e.operation == "open" && e.errno == ENOENT
        }
    }
}
