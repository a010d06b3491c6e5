import Foundation
import VultureSyncSchema

/// `vulture-benchmark ids`: flight id (SHA-256), gzip and gunzip of a generated 64 MiB IGC-like file,
/// whole process against whole process (`vulture-conformance id flight` beside `openssl dgst -sha256`,
/// this executable's child mode beside `gzip -6` and `gzip -dc`), in-memory SHA-256 against
/// `openssl speed -evp sha256` (the same libcrypto's limit), and the peak memory of the streaming paths
/// (schema §2 Storage objects, §4). Prints; never fails on a slow result.
enum IdsBenchmark {
    static let fileBytes = 64 * 1024 * 1024
    static let rounds = 5

    static func run() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vulture-bench-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let igc = dir.appendingPathComponent("flight.igc").path
        let ours = dir.appendingPathComponent("ours.igc.gz").path
        let theirs = dir.appendingPathComponent("theirs.igc.gz").path
        let back = dir.appendingPathComponent("back.igc").path
        try writeIGCLike(to: igc, bytes: fileBytes)
        print("ids: a generated \(Report.mib(fileBytes)) IGC-like file; medians of \(rounds) rounds")
        print(machineLine())
        let me = ChildProcess.ownExecutable
        let mb = Double(fileBytes) / 1e6

        // In memory: our SHA-256 of the bytes beside openssl's own measurement of the same library.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: igc)))
        var id = ""
        let inMemory = median((0..<rounds).map { _ in cpuSeconds { id = DocumentIds.flightId(igcBytes: bytes) } })
        if let openssl = ChildProcess.which("openssl"), let limit = opensslSpeed(openssl) {
            print("  SHA-256 in memory (no file, no process start; CPU time, as openssl speed counts it)")
            print(Report.line("ours: DocumentIds.flightId(igcBytes:)", Report.rate(mb / inMemory, "MB/s")))
            print(
                Report.line(
                    "openssl speed -evp sha256 -bytes 65536 (the limit)", Report.rate(limit / 1e6, "MB/s"),
                    ratio: mb / inMemory / (limit / 1e6)))
        }

        // Whole processes: the flight id of the file.
        if let cli = ChildProcess.sibling("vulture-conformance"), let openssl = ChildProcess.which("openssl") {
            var same = true
            let t = try Rounds.medians(
                rounds,
                [
                    {
                        let r = try ChildProcess.runChecked([cli, "id", "flight", igc])
                        same = same && r.stdout.hasPrefix(id)
                        return r.seconds
                    },
                    {
                        let r = try ChildProcess.runChecked([openssl, "dgst", "-sha256", "-r", igc])
                        same = same && r.stdout.hasPrefix(id)
                        return r.seconds
                    },
                ])
            print("  flight id of the file, whole processes (start, read, hash, print, exit)")
            print(Report.line("ours: vulture-conformance id flight FILE", Report.rate(mb / t[0], "MB/s")))
            print(
                Report.line(
                    "openssl dgst -sha256 FILE, \(same ? "same digest" : "DIGEST DIFFERS")",
                    Report.rate(mb / t[1], "MB/s"),
                    ratio: t[1] / t[0], goal: 0.9))
        }

        // Whole processes: gzip -6 and gunzip, file to file.
        if let gzip = ChildProcess.which("gzip") {
            let tz = try Rounds.medians(
                rounds,
                [
                    { try ChildProcess.runChecked([me, "ids-child", "gzip", igc, ours]).seconds },
                    { try ChildProcess.runChecked([gzip, "-6", "-n", "-c", igc], stdoutPath: theirs).seconds },
                ])
            let oursSize = fileSize(ours)
            let theirsSize = fileSize(theirs)
            print("  gzip -6 and gunzip, file to file, whole processes")
            print(
                Report.line(
                    "ours: Gzip.compressFile (level 6)", Report.rate(mb / tz[0], "MB/s") + "   \(oursSize) bytes"))
            print(
                Report.line(
                    "gzip -6 -n -c",
                    Report.rate(mb / tz[1], "MB/s") + "   \(theirsSize) bytes"
                        + String(format: " (ours %+.2f%%)", (Double(oursSize) / Double(theirsSize) - 1) * 100),
                    ratio: tz[1] / tz[0], goal: 1.0))
            let tu = try Rounds.medians(
                rounds,
                [
                    { try ChildProcess.runChecked([me, "ids-child", "gunzip", ours, back]).seconds },
                    { try ChildProcess.runChecked([gzip, "-dc", ours], stdoutPath: back).seconds },
                ])
            print(Report.line("ours: Gzip.decompressFile", Report.rate(mb / tu[0], "MB/s")))
            print(Report.line("gzip -dc", Report.rate(mb / tu[1], "MB/s"), ratio: tu[1] / tu[0], goal: 1.0))
        }

        // Peak memory of the streaming paths, each in a fresh child process.
        let baseline = try ChildProcess.runMeasured([me, "ids-child", "none"]).peakBytes
        print(
            "  peak memory of the streaming paths (each in a child process of its own; baseline \(Report.mib(baseline)))"
        )
        let cases: [(String, [String])] = [
            ("flight id of file", ["flight-id", igc]),
            ("gzip file → file", ["gzip", igc, dir.appendingPathComponent("m.gz").path]),
            ("gunzip file → file", ["gunzip", ours, dir.appendingPathComponent("m.igc").path]),
            ("verify download file", ["verify", ours, dir.appendingPathComponent("v.igc").path, id]),
        ]
        for (name, args) in cases {
            let peak = try ChildProcess.runMeasured([me, "ids-child"] + args).peakBytes
            let delta = peak - baseline
            print(
                Report.line(
                    name,
                    "\(Report.mib(delta)) over baseline (goal ≤ 32 MiB: \(delta <= 32 << 20 ? "met" : "NOT MET"))"))
        }
    }

    /// `openssl speed -evp sha256 -bytes 65536 -seconds 2`: bytes per second, or nil.
    static func opensslSpeed(_ openssl: String) -> Double? {
        guard let r = try? ChildProcess.run([openssl, "speed", "-evp", "sha256", "-bytes", "65536", "-seconds", "2"]),
            r.status == 0
        else { return nil }
        // The last table line: `sha256   1234567.89k` (thousands of bytes per second).
        for line in r.stdout.split(separator: "\n").reversed() where line.lowercased().hasPrefix("sha256") {
            guard let last = line.split(separator: " ").last, last.hasSuffix("k"),
                let k = Double(last.dropLast())
            else { continue }
            return k * 1000
        }
        return nil
    }

    /// Child mode: run one streaming operation and print VmHWM in bytes.
    static func child(_ args: [String]) -> Int32 {
        do {
            switch args.first {
            case "none": break
            case "flight-id" where args.count == 2: _ = try DocumentIds.flightId(igcFileAt: args[1])
            case "gzip" where args.count == 3: try Gzip.compressFile(at: args[1], to: args[2])
            case "gunzip" where args.count == 3: try Gzip.decompressFile(at: args[1], to: args[2])
            case "verify" where args.count == 4: try IGCDownload.verifyFile(at: args[1], to: args[2], flightId: args[3])
            default: return 2
            }
        } catch {
            print("error: \(error)")
            return 1
        }
        print(peakResidentBytes())
        return 0
    }

    static func writeIGCLike(to path: String, bytes: Int) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var header = "AXCSAAA\r\nHFDTE081116\r\nHFPLTPILOTINCHARGE:BENCH MARK\r\nHFGTYGLIDERTYPE:DUO DISCUS\r\n"
        header += "I023638FXA3940SIU\r\n"
        var written = 0
        var chunk = Data(header.utf8)
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        var lat = 4_612_345
        var lon = 612_345
        var alt = 1200
        var seconds = 36_000
        while written < bytes {
            while chunk.count < 1 << 20 {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                lat += Int(state % 41) - 20
                lon += Int((state >> 8) % 61) - 30
                alt = max(0, alt + Int((state >> 16) % 7) - 3)
                seconds += 1
                let h = (seconds / 3600) % 24
                let m = (seconds / 60) % 60
                let s = seconds % 60
                let line = String(
                    format: "B%02d%02d%02d%07dN%08dEA%05d%05d%03d%02d\r\n",
                    h, m, s, lat, lon, alt, alt + 15, Int((state >> 24) % 40), Int((state >> 32) % 12))
                chunk.append(contentsOf: line.utf8)
            }
            let take = min(chunk.count, bytes - written)
            handle.write(chunk.prefix(take))
            written += take
            chunk.removeAll(keepingCapacity: true)
        }
    }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
    }
}
