import Foundation
import VultureSyncSchema

/// `vulture-benchmark ids`: flight id, gzip and gunzip of a generated 64 MiB IGC-like file against
/// `openssl dgst -sha256`, `gzip -6` and `gzip -dc` measured in the same run, plus the peak memory
/// of our streaming paths (schema §2 Storage objects, §4). Prints; never fails.
enum IdsBenchmark {
    static let fileBytes = 64 * 1024 * 1024

    static func run() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vulture-bench-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let igc = dir.appendingPathComponent("flight.igc").path
        let ours = dir.appendingPathComponent("ours.igc.gz").path
        let theirs = dir.appendingPathComponent("theirs.igc.gz").path
        let back = dir.appendingPathComponent("back.igc").path
        try writeIGCLike(to: igc, bytes: fileBytes)
        print("ids benchmark: \(fileBytes) bytes IGC-like input, best of 3 runs")

        // Flight id vs openssl dgst -sha256.
        var id = ""
        let tOurs = best { id = try DocumentIds.flightId(igcFileAt: igc) }
        if let openssl = which("openssl") {
            var out = ""
            let tRef = best { out = try runTool(openssl, ["dgst", "-sha256", "-r", igc], stdoutTo: nil) }
            let same = out.hasPrefix(id)
            report(
                "flight id (SHA-256)", ours: tOurs, reference: tRef, refName: "openssl dgst -sha256", target: 0.9,
                extra: same ? "digest matches" : "DIGEST DIFFERS")
        } else {
            print(String(format: "  flight id: %.3f s (%.0f MB/s); openssl not on PATH", tOurs, mbps(tOurs)))
        }

        // gzip vs gzip -6.
        let tGzip = best { try Gzip.compressFile(at: igc, to: ours, level: 6) }
        let oursSize = fileSize(ours)
        if let gzip = which("gzip") {
            let tRef = best { _ = try runTool(gzip, ["-6", "-n", "-c", igc], stdoutTo: theirs) }
            let theirsSize = fileSize(theirs)
            let sizeRatio = Double(oursSize) / Double(theirsSize)
            report(
                "gzip -6", ours: tGzip, reference: tRef, refName: "gzip -6", target: 1.0,
                extra: String(
                    format: "size %d vs %d bytes (%.2f%%, target within 1%%)", oursSize, theirsSize,
                    (sizeRatio - 1) * 100))
            let tGunzip = best { try Gzip.decompressFile(at: ours, to: back) }
            let tRefDc = best { _ = try runTool(gzip, ["-dc", ours], stdoutTo: back) }
            report("gunzip", ours: tGunzip, reference: tRefDc, refName: "gzip -dc", target: 1.0, extra: "")
        } else {
            print(String(format: "  gzip: %.3f s, %d bytes; gzip not on PATH", tGzip, oursSize))
        }

        // Peak memory of the streaming paths, each in a fresh child process.
        let baseline = childPeak(["none"])
        print(
            String(
                format: "  peak memory (VmHWM, child process; baseline %.1f MiB), target ≤ 32 MiB over baseline:",
                mib(baseline)))
        let cases: [(String, [String])] = [
            ("flight id of file", ["flight-id", igc]),
            ("gzip file → file", ["gzip", igc, dir.appendingPathComponent("m.gz").path]),
            ("gunzip file → file", ["gunzip", ours, dir.appendingPathComponent("m.igc").path]),
            ("verify download file", ["verify", ours, dir.appendingPathComponent("v.igc").path, id]),
        ]
        for (name, args) in cases {
            let peak = childPeak(args)
            let delta = peak - baseline
            print(
                String(
                    format: "    %@: %.1f MiB over baseline (peak %.1f MiB)  %@", name as NSString, mib(delta),
                    mib(peak),
                    (delta <= 32 * 1024 * 1024 ? "ok" : "OVER TARGET") as NSString))
        }
    }

    /// Child mode: run one streaming operation and print VmHWM in bytes.
    static func child(_ args: [String]) -> Int32 {
        do {
            switch args.first {
            case "none": break
            case "flight-id": _ = try DocumentIds.flightId(igcFileAt: args[1])
            case "gzip": try Gzip.compressFile(at: args[1], to: args[2])
            case "gunzip": try Gzip.decompressFile(at: args[1], to: args[2])
            case "verify": try IGCDownload.verifyFile(at: args[1], to: args[2], flightId: args[3])
            default: return 2
            }
        } catch {
            print("error: \(error)")
            return 1
        }
        print(peakResidentBytes())
        return 0
    }

    // MARK: Helpers

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

    static func best(_ body: () throws -> Void) -> Double {
        var bestTime = Double.infinity
        for _ in 0..<3 {
            let start = DispatchTime.now().uptimeNanoseconds
            do { try body() } catch {
                print("  error: \(error)")
                return .nan
            }
            bestTime = min(bestTime, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return bestTime
    }

    static func report(_ name: String, ours: Double, reference: Double, refName: String, target: Double, extra: String)
    {
        let ratio = reference / ours
        print(
            String(
                format: "  %-20@ ours %.3f s (%.0f MB/s)  %@ %.3f s  ratio %.2f× (target ≥ %.1f×: %@)  %@",
                name as NSString, ours, mbps(ours), refName as NSString, reference, ratio, target,
                (ratio >= target ? "ok" : "below") as NSString, extra as NSString))
    }

    static func mbps(_ seconds: Double) -> Double { Double(fileBytes) / seconds / 1e6 }
    static func mib(_ bytes: Int) -> Double { Double(bytes) / Double(1 << 20) }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
    }

    static func which(_ tool: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let p = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    /// Runs a tool; its stdout goes to `stdoutTo` (a file) or is returned.
    static func runTool(_ exe: String, _ args: [String], stdoutTo: String?) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        var pipe: Pipe?
        if let stdoutTo {
            _ = FileManager.default.createFile(atPath: stdoutTo, contents: nil)
            p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutTo))
        } else {
            pipe = Pipe()
            p.standardOutput = pipe
        }
        try p.run()
        let out = pipe.map { String(decoding: $0.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) } ?? ""
        p.waitUntilExit()
        return out
    }

    /// VmHWM (peak resident set) of this process in bytes, from /proc/self/status.
    static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kb = line.split(separator: " ").compactMap { Int($0) }.first ?? -1
            return kb * 1024
        }
        return -1
    }

    static func childPeak(_ args: [String]) -> Int {
        // This executable, wherever it was started from.
        let exe =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        do {
            let out = try runTool(exe, ["ids-child"] + args, stdoutTo: nil)
            guard let value = Int(out.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                print("  child \(args[0]) printed: \(out)")
                return -1
            }
            return value
        } catch {
            print("  child \(args[0]) failed: \(error)")
            return -1
        }
    }
}
