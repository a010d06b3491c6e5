// Local servers for tests and benchmarks: the Firestore emulator started on a free loopback port,
// reset, and stopped by its process group. Process spawning lives here, outside the libraries an
// app or an iOS test imports.
import Dispatch
import Foundation
import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why the emulator could not be found, started or driven.
public struct FirestoreEmulatorError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and what to do.
    public var message: String
    /// An error.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

/// The Firestore emulator (package `google-cloud-cli-firestore-emulator`, Java 17) run as a child
/// process: `java -Duser.language=en -cp JAR com.google.cloud.datastore.emulator.firestore.CloudFirestore
/// --host 127.0.0.1 --port PORT --project_id demo-vulture [--rules FILE]`, on a free loopback port.
///
/// The process runs under a small `/bin/sh` guardian, spawned in its own process group with every
/// signal unblocked and at its default (a test runner's threads block signals, which children would
/// otherwise inherit): ``stop()`` ends the group (SIGTERM, SIGKILL after 5 s), and if this process
/// dies first the guardian sees its standard input close and ends the emulator. Its output goes to
/// a log file in a temporary directory (removed by ``stop()``), quoted when it fails to start.
public final class FirestoreEmulator: @unchecked Sendable {
    /// The project id tests use (`demo-` ids never reach a real project).
    public static let defaultProjectId = "demo-vulture"
    /// `VULTURE_REQUIRE_EMULATOR=1` (set by `.ci/run`) turns a missing jar or Java into a failure
    /// instead of a skip.
    public static var isRequired: Bool { ProcessInfo.processInfo.environment["VULTURE_REQUIRE_EMULATOR"] == "1" }

    /// The emulator jar.
    public let jar: String
    /// The loopback port it listens on.
    public let port: Int
    /// Its project id.
    public let projectId: String
    /// The guardian shell's process id, which is also the process group id.
    public let processIdentifier: Int32
    /// The log file of the emulator's output.
    public let logFile: String

    /// The guardian and the emulator it watches.
    private let process: GuardedProcess

    private init(jar: String, port: Int, projectId: String, process: GuardedProcess, logFile: String) {
        self.jar = jar
        self.port = port
        self.projectId = projectId
        self.processIdentifier = process.processIdentifier
        self.process = process
        self.logFile = logFile
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// A REST client for this emulator; the token `owner` bypasses security rules.
    public func client(bearerToken: String? = "owner", timeout: Double = 60) -> FirestoreRESTClient {
        FirestoreRESTClient(baseURL: baseURL, projectId: projectId, bearerToken: bearerToken, timeout: timeout)
    }

    // MARK: - Finding

    /// Where the jar and Java are, or why they are not available.
    public enum Availability: Sendable {
        /// Both found.
        case available(jar: String, java: String)
        /// What is missing, for a person ("skipped: …").
        case unavailable(String)
    }

    /// Looks for the jar (`VULTURE_FIRESTORE_EMULATOR_JAR`, then `dpkg -L
    /// google-cloud-cli-firestore-emulator`, then the package's usual path) and for `java`
    /// (`JAVA_HOME/bin/java`, then `PATH`).
    public static func availability() -> Availability {
        let env = ProcessInfo.processInfo.environment
        let fm = FileManager.default
        var jar: String?
        if let path = env["VULTURE_FIRESTORE_EMULATOR_JAR"], !path.isEmpty {
            guard fm.fileExists(atPath: path) else {
                return .unavailable("VULTURE_FIRESTORE_EMULATOR_JAR names \(path), which does not exist")
            }
            jar = path
        }
        if jar == nil, let listing = run("/usr/bin/dpkg", ["-L", "google-cloud-cli-firestore-emulator"]) {
            jar = listing.split(separator: "\n").map(String.init).first {
                $0.hasSuffix("emulator.jar") && fm.fileExists(atPath: $0)
            }
        }
        let usual = "/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator/cloud-firestore-emulator.jar"
        if jar == nil, fm.fileExists(atPath: usual) { jar = usual }
        guard let jar else {
            return .unavailable(
                "the Firestore emulator jar is not installed (Debian package google-cloud-cli-firestore-emulator; "
                    + "or set VULTURE_FIRESTORE_EMULATOR_JAR)")
        }
        var java: String?
        if let home = env["JAVA_HOME"], fm.isExecutableFile(atPath: home + "/bin/java") { java = home + "/bin/java" }
        if java == nil {
            for dir in (env["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            where fm.isExecutableFile(atPath: "\(dir)/java") {
                java = "\(dir)/java"
                break
            }
        }
        guard let java else {
            return .unavailable("java is not on PATH (the emulator needs Java 17: openjdk-17-jdk-headless)")
        }
        return .available(jar: jar, java: java)
    }

    // MARK: - Starting and stopping

    /// Starts an emulator on a free loopback port and waits until it answers.
    /// - Parameters:
    ///   - projectId: the project id (`demo-vulture`).
    ///   - rulesFile: a security rules file (`--rules`), if any.
    ///   - timeout: seconds to wait for it to answer.
    /// - Throws: `FirestoreEmulatorError` when the jar or Java is missing, the process cannot start,
    ///   or it does not answer in time (the log's tail is quoted); the process is stopped then.
    public static func start(projectId: String = defaultProjectId, rulesFile: String? = nil, timeout: Double = 90)
        throws -> FirestoreEmulator
    {
        guard case .available(let jar, let java) = availability() else {
            if case .unavailable(let why) = availability() { throw FirestoreEmulatorError(why) }
            throw FirestoreEmulatorError("the Firestore emulator is not available")
        }
        var lastError = FirestoreEmulatorError("the emulator did not start")
        for _ in 0..<3 {
            let port = try freeLoopbackPort()
            do {
                return try launch(
                    jar: jar, java: java, port: port, projectId: projectId, rulesFile: rulesFile, timeout: timeout)
            } catch let e as FirestoreEmulatorError {
                lastError = e
            }
        }
        throw lastError
    }

    private static func launch(
        jar: String, java: String, port: Int, projectId: String, rulesFile: String?, timeout: Double
    ) throws -> FirestoreEmulator {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vulture-firestore-emulator-\(getpid())-\(port)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("emulator.log").path
        // $0 java, $1 jar, $2 port, $3 project, $4 log, $5 rules (may be empty). The guardian ends
        // when the emulator does; a watcher ends the emulator when the guardian's standard input
        // (held by this process) closes. fd 3 carries that input to the watcher, whose own standard
        // input the shell sets to /dev/null.
        let script = """
            java=$0; jar=$1; port=$2; project=$3; log=$4; rules=$5
            if [ -n "$rules" ]; then set -- --rules "$rules"; else set --; fi
            "$java" -Duser.language=en -cp "$jar" com.google.cloud.datastore.emulator.firestore.CloudFirestore \
              --host 127.0.0.1 --port "$port" --project_id "$project" "$@" >"$log" 2>&1 </dev/null &
            child=$!
            exec 3<&0
            (read ignored <&3; kill "$child" 2>/dev/null) &
            wait "$child"
            """
        let process: GuardedProcess
        do {
            process = try GuardedProcess.spawn(
                ["/bin/sh", "-c", script, java, jar, String(port), projectId, log, rulesFile ?? ""])
        } catch { throw FirestoreEmulatorError("cannot start the Firestore emulator: \(error)") }
        let emulator = FirestoreEmulator(jar: jar, port: port, projectId: projectId, process: process, logFile: log)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        while DispatchTime.now().uptimeNanoseconds < deadline {
            if !emulator.process.guardianIsRunning() { break }
            if case .success((200, let body)) = http("GET", emulator.baseURL.absoluteString + "/", timeout: 2),
                body.hasPrefix("Ok")
            {
                return emulator
            }
            usleep(100_000)
        }
        let exited = !emulator.process.guardianIsRunning()
        let tail = (try? String(contentsOfFile: log, encoding: .utf8)).map { String($0.suffix(2000)) } ?? "(no log)"
        emulator.stop()
        throw FirestoreEmulatorError(
            "the Firestore emulator on port \(port) "
                + (exited ? "exited before it answered" : "did not answer within \(timeout) s") + "; log:\n\(tail)")
    }

    /// Loads security rules for one project (`PUT /emulator/v1/projects/{project}:securityRules`,
    /// as the Firebase CLI does), replacing the project's earlier rules; requests with a user's
    /// token are judged by them from then on, `owner` still bypasses them.
    /// - Parameters:
    ///   - rules: the rules source (`firestore.rules`).
    ///   - projectId: the project (``projectId`` unless named).
    /// - Returns: the emulator's warnings about the rules, one line each
    ///   (`firestore.rules:59:56: WARNING: Invalid type. …`); empty when they load cleanly.
    /// - Throws: `FirestoreEmulatorError` with the emulator's message (line and column) when the
    ///   rules do not compile, or when it does not answer 200.
    @discardableResult
    public func loadRules(_ rules: String, projectId: String? = nil) throws -> [String] {
        try Self.loadRules(rules, projectId: projectId ?? self.projectId, emulator: baseURL)
    }

    /// Loads security rules for one project into the emulator at `emulator` (one this process did
    /// not start: `--emulator HOST:PORT`), as ``loadRules(_:projectId:)`` does.
    /// - Returns: the emulator's warnings, one line each.
    /// - Throws: `FirestoreEmulatorError` when the rules do not compile or the emulator does not answer 200.
    @discardableResult
    public static func loadRules(_ rules: String, projectId project: String, emulator baseURL: URL) throws
        -> [String]
    {
        let body = CanonicalJSON.compactString(
            .map([
                "rules": .map([
                    "files": .array([.map(["name": .string("firestore.rules"), "content": .string(rules)])])
                ])
            ]))
        let url = baseURL.absoluteString + "/emulator/v1/projects/\(project):securityRules"
        switch http("PUT", url, body: Data(body.utf8), timeout: 60) {
        case .success((200, let answer)): return ruleIssues(answer)
        case .success((let status, let answer)):
            throw FirestoreEmulatorError(
                "the emulator refused the rules for \(project) (HTTP \(status)): \(answer.prefix(2000))")
        case .failure(let e):
            throw e
        }
    }

    /// The `issues` of a rules answer as `FILE:LINE:COLUMN: SEVERITY: description` lines.
    static func ruleIssues(_ answer: String) -> [String] {
        guard let root = try? CanonicalJSON.decode(Array(answer.utf8), file: "rules answer"),
            case .array(let issues)? = root[fieldPath: "issues"]
        else { return [] }
        return issues.map { issue in
            func text(_ path: String) -> String {
                switch issue[fieldPath: path] {
                case .string(let s)?: s
                case .integer(let i)?: String(i)
                default: "?"
                }
            }
            return
                "\(text("sourcePosition.fileName")):\(text("sourcePosition.line")):\(text("sourcePosition.column")): "
                + "\(text("severity")): \(text("description"))"
        }
    }

    /// Deletes every document (`DELETE /emulator/v1/projects/{p}/databases/(default)/documents`).
    /// - Throws: `FirestoreEmulatorError` when the emulator does not answer 200.
    public func reset() throws {
        let url = baseURL.absoluteString + "/emulator/v1/projects/\(projectId)/databases/(default)/documents"
        switch Self.http("DELETE", url, timeout: 60) {
        case .success((200, _)): return
        case .success((let status, let body)):
            throw FirestoreEmulatorError("resetting the emulator answered HTTP \(status): \(body.prefix(300))")
        case .failure(let e):
            throw e
        }
    }

    /// Stops the emulator and its guardian (the whole process group: SIGTERM, then SIGKILL after
    /// 5 s) and waits until none of its processes is alive. Safe to call more than once.
    public func stop() {
        guard process.stop() else { return }
        try? FileManager.default.removeItem(atPath: (logFile as NSString).deletingLastPathComponent)
    }

    /// Whether any process of the emulator's group is still alive (exited processes not yet
    /// reaped by their parent do not count).
    public var isRunning: Bool { process.isRunning }

    // MARK: - One emulator per process

    private static let processWide = ProcessWideServer<FirestoreEmulator>()

    /// One emulator for the whole test process, started on first use and stopped when the process
    /// exits (and by the guardian if it is killed).
    /// - Throws: `FirestoreEmulatorError` when it cannot start (the first failure is remembered).
    public static func shared() throws -> FirestoreEmulator {
        try processWide.get(
            start: { try start() }, failed: { FirestoreEmulatorError($0) },
            atFirstStart: { atexit { FirestoreEmulator.processWide.take()?.stop() } })
    }

    // MARK: - Helpers

    /// A port on 127.0.0.1 that nothing listens on right now.
    static func freeLoopbackPort() throws -> Int {
        #if os(Linux)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw FirestoreEmulatorError("cannot open a socket to find a free port") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw FirestoreEmulatorError("cannot bind 127.0.0.1:0 to find a free port") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw FirestoreEmulatorError("cannot read the bound port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private final class Box: @unchecked Sendable {
        var result: Result<(Int, String), FirestoreEmulatorError> = .failure(FirestoreEmulatorError("no answer"))
    }

    /// One blocking HTTP request, with a JSON body or none: (status, body text).
    static func http(_ method: String, _ url: String, body: Data? = nil, timeout: Double) -> Result<
        (Int, String), FirestoreEmulatorError
    > {
        guard let u = URL(string: url) else { return .failure(FirestoreEmulatorError("bad URL \(url)")) }
        var request = URLRequest(url: u, timeoutInterval: timeout)
        request.httpMethod = method
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        request.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            if let error {
                box.result = .failure(FirestoreEmulatorError("\(method) \(url): \(error.localizedDescription)"))
            } else {
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                box.result = .success((status, String(decoding: data ?? Data(), as: UTF8.self)))
            }
            done.signal()
        }.resume()
        done.wait()
        return box.result
    }

    /// Runs a program and returns its standard output, or nil when it cannot run or fails.
    static func run(_ executable: String, _ arguments: [String]) -> String? {
        guard FileManager.default.isExecutableFile(atPath: executable) else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return p.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }
}
