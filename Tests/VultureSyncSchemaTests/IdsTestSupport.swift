import Foundation
import VultureChildProcess

/// Paths and process running shared by the Ids*/Blob* tests.
enum IdsTestSupport {
    /// The package root (two levels above this file's directory).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// ../shared/corpus relative to the package root, or nil when absent.
    static let corpusDirectory: URL? = {
        let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus").standardizedFileURL
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("SOURCES.md").path) ? url : nil
    }()

    static let corpusMissing =
        "corpus absent: ../shared/corpus (relative to the package root) holds the real input files; skipped"

    /// The full path of `tool` on PATH, or nil.
    static func which(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `executable` with `arguments`, feeding `input` on stdin; collects stdout and stderr.
    static func run(_ executable: String, _ arguments: [String], input: Data? = nil, currentDirectory: URL? = nil)
        throws -> ChildProcessResult
    {
        try ChildProcess.run(
            executable, arguments, input: input.map { .bytes($0) } ?? .empty, currentDirectory: currentDirectory)
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vulture-ids-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Deterministic pseudo-random bytes (xorshift), `count` long.
    static func pseudoRandomBytes(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> Data {
        var state = seed
        var out = Data(count: count)
        out.withUnsafeMutableBytes { (buf: UnsafeMutableRawBufferPointer) in
            for i in 0..<count {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                buf[i] = UInt8(truncatingIfNeeded: state)
            }
        }
        return out
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    /// Whether `java` is Java 17 (the JVM the generated tables follow).
    static func isJava17(_ java: String) throws -> Bool {
        let version = try run(java, ["-XshowSettings:properties", "-version"])
        return version.stderr.contains("java.specification.version = 17")
    }

    static let conformanceExecutable = ChildProcess.builtExecutable(named: "vulture-conformance")
}
