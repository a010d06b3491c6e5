import Foundation
import Testing
import VultureChildProcess

@testable import VultureSyncSchema

/// Our gzip output is read by other implementations (`gzip -t`, `gzip -dc`, python3's gzip module),
/// and ours reads theirs (schema §2 Storage objects: iOS and Android must read each other's objects).
/// Each tool is used when on PATH, otherwise that check is skipped with a message.
/// With VULTURE_GZIP_CROSSCHECK_DIR set, the .gz files are also left there for Tools/ci/gzip-crosscheck.sh.
@Suite("Gzip cross-check with gzip(1) and python3")
struct BlobCrossCheckTests {
    /// Inputs: the corpus IGC files when present, plus generated data (empty, binary, IGC-like).
    static func inputs() throws -> [(name: String, bytes: Data)] {
        var out: [(String, Data)] = [
            ("empty", Data()),
            ("random-300k", IdsTestSupport.pseudoRandomBytes(count: 300_000)),
            ("igc-like", BlobGzipTests.igcLike),
        ]
        if let dir = IdsTestSupport.corpusDirectory {
            let igcDir = dir.appendingPathComponent("igc")
            for file in try FileManager.default.contentsOfDirectory(atPath: igcDir.path).sorted()
            where file.hasSuffix(".igc") {
                out.append((file, try Data(contentsOf: igcDir.appendingPathComponent(file))))
            }
        } else {
            print(IdsTestSupport.corpusMissing + " (cross-check uses generated data only)")
        }
        return out
    }

    @Test func otherToolsReadOurGzipAndWeReadTheirs() throws {
        let gzipTool = IdsTestSupport.which("gzip")
        let python = IdsTestSupport.which("python3")
        if gzipTool == nil { print("BlobCrossCheckTests: gzip not on PATH; gzip(1) checks skipped") }
        if python == nil { print("BlobCrossCheckTests: python3 not on PATH; python checks skipped") }
        let keep = ProcessInfo.processInfo.environment["VULTURE_GZIP_CROSSCHECK_DIR"]
        let dir = try keep.map { URL(fileURLWithPath: $0) } ?? IdsTestSupport.temporaryDirectory()
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { if keep == nil { try? FileManager.default.removeItem(at: dir) } }

        for (name, bytes) in try Self.inputs() {
            let raw = dir.appendingPathComponent(name + ".raw")
            let ours = dir.appendingPathComponent(name + ".gz")
            try bytes.write(to: raw)
            let gz = try Gzip.compress(bytes)
            try gz.write(to: ours)
            if let gzipTool {
                let test = try IdsTestSupport.run(gzipTool, ["-t", ours.path])
                #expect(test.status == 0, "gzip -t \(name): \(test.stderr)")
                let dc = try IdsTestSupport.run(gzipTool, ["-dc", ours.path])
                #expect(dc.status == 0 && dc.standardOutput == bytes, "gzip -dc \(name)")
                // Theirs at the same level: we read it, and our size is within 1% (+ 64 bytes of slack for tiny inputs).
                let theirs = try IdsTestSupport.run(gzipTool, ["-6", "-n", "-c", raw.path])
                #expect(theirs.status == 0)
                #expect(try Gzip.decompress(theirs.standardOutput) == bytes, "our gunzip of gzip -6 \(name)")
                #expect(
                    Double(gz.count) <= Double(theirs.standardOutput.count) * 1.01 + 64,
                    "size \(name): ours \(gz.count), gzip -6 \(theirs.standardOutput.count)")
                // gzip(1) writes multi-member output for concatenated input; we read all members.
                let twice = try IdsTestSupport.run(gzipTool, ["-dc", ours.path, ours.path])
                #expect(try Gzip.decompress(gz + gz) == twice.standardOutput)
            }
            if let python {
                let script =
                    "import gzip,hashlib,sys; d=gzip.decompress(open(sys.argv[1],'rb').read()); print(len(d), hashlib.sha256(d).hexdigest())"
                let py = try IdsTestSupport.run(python, ["-c", script, ours.path])
                let expected = "\(bytes.count) \(SHA256Stream.hexDigest(of: bytes))\n"
                #expect(
                    py.status == 0 && py.stdout == expected,
                    "python3 gzip \(name): \(py.stderr)")
            }
            if keep == nil { try? FileManager.default.removeItem(at: raw) }
        }
    }
}
