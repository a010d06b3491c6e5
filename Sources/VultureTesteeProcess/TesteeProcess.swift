import Foundation
import VultureConformance
import VultureSchemaCore
import VultureSyncSchema

/// A testee: another implementation run as one long-lived process (`/bin/sh -c COMMAND`) and
/// driven over ``TesteeProtocol``. Restarts the process after a crash, a protocol break or a
/// timeout; each case gets `timeout` seconds. A timeout of a case or of a restart's handshake counts
/// towards ``maximumConsecutiveTimeouts``.
public final class TesteeProcess: ConformanceImplementation, @unchecked Sendable {
    /// The shell command that starts the testee.
    public let command: String
    /// Seconds allowed for the start handshake and for each case.
    public let timeout: Double
    /// Seconds allowed for the start handshake: `timeout` unless set apart inside this package.
    package let startTimeout: Double
    /// The suite version sent in `start`.
    public let suiteVersion: String
    /// How many times the process was (re)started.
    public private(set) var starts = 0
    /// What the testee said about itself in `started`.
    public private(set) var implementation: String?

    private var process: Process?
    private var stdin: FileHandle?
    private var lines: LineQueue?
    private var seq: Int64 = 0
    private var ownGroup = false
    private var consecutiveTimeouts = 0
    /// The longest line read (``maximumLineBytes`` unless a test lowers it).
    private let lineCap: Int
    /// After this many timeouts in a row the testee is taken as hung: the remaining cases fail at
    /// once instead of each waiting for its own timeout.
    public static let maximumConsecutiveTimeouts = 3
    /// The longest per-case timeout accepted, seconds (one day).
    public static let maximumTimeout: Double = 86_400
    /// The longest line read from the testee, bytes (64 MiB): far above any answer or server
    /// request (a Firestore request holds at most 10 MiB), and a bound on the runner's memory when a
    /// testee writes without end.
    public static let maximumLineBytes = 64 << 20

    /// - Parameters:
    ///   - command: run with `/bin/sh -c`.
    ///   - timeout: seconds per case (and for the handshake).
    public convenience init(command: String, timeout: Double = 10, suiteVersion: String) {
        self.init(command: command, timeout: timeout, startTimeout: timeout, suiteVersion: suiteVersion)
    }

    /// A testee whose start handshake has its own bound: for tests of short case timeouts, whose
    /// testee may start slowly on a loaded machine.
    /// `maximumLineBytes` caps a line below ``maximumLineBytes`` for tests of the cap.
    package init(
        command: String, timeout: Double, startTimeout: Double, suiteVersion: String,
        maximumLineBytes: Int = TesteeProcess.maximumLineBytes
    ) {
        func bounded(_ seconds: Double) -> Double {
            seconds.isFinite ? min(max(seconds, 0.001), Self.maximumTimeout) : Self.maximumTimeout
        }
        self.command = command
        self.timeout = bounded(timeout)
        self.startTimeout = bounded(startTimeout)
        self.suiteVersion = suiteVersion
        self.lineCap = maximumLineBytes
        signal(SIGPIPE, SIG_IGN)
    }

    deinit { terminate() }

    /// Starts the process and performs the handshake.
    /// - Throws: `TesteeError` when the process cannot start, refuses the protocol version, or
    ///   does not answer in time.
    public func start() throws {
        terminate()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        let input = Pipe()
        let output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.standardError
        do {
            try p.run()
        } catch {
            throw TesteeError(message: "cannot start the testee `\(command)`: \(error)")
        }
        starts += 1
        process = p
        // Foundation starts the child as the leader of its own process group; terminating the
        // group also ends what the testee's shell started.
        ownGroup = getpgid(p.processIdentifier) == p.processIdentifier
        if ownGroup { runningTesteeGroup = p.processIdentifier }
        stdin = input.fileHandleForWriting
        lines = LineQueue(reading: output.fileHandleForReading, maximumLineBytes: lineCap)
        let sent = send(TesteeProtocol.startLine(suiteVersion: suiteVersion))
        let reply: String
        switch sent ? lines?.next(timeout: startTimeout) ?? .closed : .closed {
        case .line(let text):
            reply = text
        case .invalidUTF8(let bytes):
            terminate()
            throw TesteeError(message: "the testee's start answer is not UTF-8: \(Self.show(bytes))")
        case .tooLong:
            terminate()
            throw TesteeError(message: "the testee's start answer is longer than \(lineCap) bytes")
        case .closed:
            // Its output closed: wait (bounded) for the exit status, then end the group either way.
            let left = unfinishedLine()
            let exit = waitForExit(p, within: startTimeout)
            terminate()
            throw TesteeError(
                message: (exit.map {
                    "the testee \($0.description) before answering start; check the command `\(command)`"
                }
                    ?? "the testee closed its output before answering start; check the command `\(command)`") + left)
        case .timeout:
            let left = unfinishedLine()
            terminate()
            // A restart that hangs counts towards the timeouts in a row, as a hung case does: a testee
            // that never starts again must not make every remaining case wait for its own handshake.
            consecutiveTimeouts += 1
            throw TesteeError(message: "the testee did not answer start within \(startTimeout) s" + left)
        }
        guard case .object(let m)? = try? StrictJSONReader.parse(Array(reply.utf8)).kind else {
            terminate()
            throw TesteeError(message: "the testee's start answer is not a JSON object: \(reply.prefix(200))")
        }
        let type = m.first { $0.key == "type" }?.value.kind
        guard case .string("started")? = type else {
            terminate()
            throw TesteeError(
                message:
                    "the testee refused the start (protocol version \(TesteeProtocol.version)): \(reply.prefix(300))")
        }
        guard case .integer(TesteeProtocol.version)? = m.first(where: { $0.key == "protocolVersion" })?.value.kind
        else {
            terminate()
            throw TesteeError(
                message: "the testee's started answer must carry \"protocolVersion\": \(TesteeProtocol.version), "
                    + "the version it speaks: \(reply.prefix(300))")
        }
        if case .string(let name)? = m.first(where: { $0.key == "implementation" })?.value.kind {
            implementation = name
        }
    }

    /// Sends one case and waits for its answer; a crash, protocol break or timeout answers
    /// `.broken` and restarts the process for the next case.
    public func answer(_ testCase: ConformanceCase) -> ImplementationAnswer {
        answer(testCase, serving: nil)
    }

    /// Sends one engine operation and answers the testee's server requests with `server` until its
    /// answer arrives (Goldens/protocol/README.md, Engine operations).
    public func answer(_ testCase: ConformanceCase, server: EngineServerChannel) -> ImplementationAnswer {
        answer(testCase, serving: server)
    }

    private func answer(_ testCase: ConformanceCase, serving server: EngineServerChannel?) -> ImplementationAnswer {
        if consecutiveTimeouts >= Self.maximumConsecutiveTimeouts {
            return .broken("not run: the testee timed out on \(Self.maximumConsecutiveTimeouts) cases in a row")
        }
        if process?.isRunning != true {
            do { try start() } catch { return .broken("\(error)") }
        }
        seq += 1
        guard send(TesteeProtocol.caseLine(seq: seq, testCase)) else {
            terminate()
            return .broken("the testee crashed (its input is closed)")
        }
        var reply: String
        while true {
            switch lines?.next(timeout: timeout) ?? .closed {
            case .line(let text):
                reply = text
            case .invalidUTF8(let bytes):
                terminate()
                return .broken("protocol: the answer line is not UTF-8: \(Self.show(bytes))")
            case .tooLong:
                terminate()
                return .broken(
                    "protocol: a line of more than \(lineCap) bytes without a newline; "
                        + "the rest of the testee's output is not read, and it is restarted for the next case")
            case .closed:
                let left = unfinishedLine()
                let exit = process.flatMap { waitForExit($0) }
                terminate()
                return .broken(
                    Self.ended(exit) + " without answering case \(testCase.id) (op \(testCase.op)); "
                        + "it is restarted for the next case" + left)
            case .timeout:
                let left = unfinishedLine()
                terminate()
                consecutiveTimeouts += 1
                return .broken("timeout after \(timeout) s" + left)
            }
            // A server request of an engine operation: answered, then the case's answer is awaited again.
            guard let request = TesteeProtocol.serverRequest(reply, seq: seq) else { break }
            let answer =
                server?.request(request)
                ?? .map([
                    "error": .map([
                        "code": .string(ErrorCode.protocolShape.rawValue),
                        "message": .string("this case has no server"),
                    ])
                ])
            guard send(TesteeProtocol.serverAnswerLine(seq: seq, answer)) else {
                terminate()
                return .broken("the testee crashed (its input is closed)")
            }
        }
        consecutiveTimeouts = 0
        let answer = TesteeProtocol.parseAnswer(reply, seq: seq)
        if case .broken = answer { terminate() }
        return answer
    }

    /// `; its output ends in an unfinished line: …` (cut, as ``show(_:)`` shows bytes) when the
    /// testee began a line it did not end, else empty: the message then shows what it did write.
    private func unfinishedLine() -> String {
        guard let bytes = lines?.unfinished, !bytes.isEmpty else { return "" }
        return "; its output ends in an unfinished line: \(Self.show(bytes))"
    }

    /// Sends `stop` and waits briefly for the process to exit; kills it otherwise.
    public func stop() {
        guard let p = process, p.isRunning else { return }
        _ = send(TesteeProtocol.stopLine)
        try? stdin?.close()
        let deadline = Date().addingTimeInterval(2)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        terminate()
    }

    /// How a process ended: its termination reason and status.
    struct Exit {
        var reason: Process.TerminationReason
        var status: Int32

        /// `exited with status 3`, `was killed by signal 11 (SIGSEGV)`.
        var description: String { TesteeProcess.describeExit(reason: reason, status: status) }
        /// An exit with status 0: no crash.
        var isClean: Bool { reason == .exit && status == 0 }
    }

    /// How the process ended, waiting up to two seconds (at most the timeout); nil when it is still running.
    private func waitForExit(_ p: Process, within seconds: Double? = nil) -> Exit? {
        let deadline = Date().addingTimeInterval(min(seconds ?? timeout, 2))
        while p.isRunning && Date() < deadline { usleep(5_000) }
        guard !p.isRunning else { return nil }
        return Exit(reason: p.terminationReason, status: p.terminationStatus)
    }

    /// How a testee ended before its answer, for the failure: a signal or a non-zero status is a
    /// crash; status 0 is a clean exit, and an output closed by a process still running is neither.
    static func ended(_ exit: Exit?) -> String {
        guard let exit else { return "the testee closed its output" }
        return exit.isClean ? "the testee \(exit.description)" : "the testee crashed: it \(exit.description)"
    }

    /// `exited with status N`, `was killed by signal N (SIGNAME)`; a status above 128 is how a shell
    /// reports a child killed by signal status − 128, and says so.
    static func describeExit(reason: Process.TerminationReason, status: Int32) -> String {
        if reason == .uncaughtSignal { return "was killed by signal \(status)\(signalName(status))" }
        if status > 128, status < 128 + 65 {
            return
                "exited with status \(status) (a shell's report of signal \(status - 128)\(signalName(status - 128)))"
        }
        return "exited with status \(status)"
    }

    static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV",
            SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
        ]
        return names[signal].map { " (\($0))" } ?? ""
    }

    /// Bytes of a line that is not UTF-8: repaired text (invalid bytes as U+FFFD), cut, and the first
    /// bytes in hex.
    static func show(_ bytes: [UInt8]) -> String {
        let text = FailureExplanation.cut(String(decoding: bytes, as: UTF8.self), to: 200)
        let hex = bytes.prefix(32).map { String(format: "%02x", $0) }.joined(separator: " ")
        return
            "\(CanonicalJSON.compactString(.string(text))) (\(bytes.count) bytes: \(hex)\(bytes.count > 32 ? " …" : ""))"
    }

    private func send(_ line: String) -> Bool {
        guard let stdin else { return false }
        do {
            try stdin.write(contentsOf: Data((line + "\n").utf8))
            return true
        } catch {
            return false
        }
    }

    private func terminate() {
        if let p = process {
            let pid = p.processIdentifier
            let target = ownGroup ? -pid : pid
            if p.isRunning {
                kill(target, SIGTERM)
                let deadline = Date().addingTimeInterval(0.3)
                while p.isRunning && Date() < deadline { usleep(2_000) }
            }
            // The group may outlive its leader (a shell's children): end it whatever the leader did.
            kill(target, SIGKILL)
            if runningTesteeGroup == pid { runningTesteeGroup = 0 }
        }
        try? stdin?.close()
        process = nil
        stdin = nil
        lines = nil
    }
}

/// The process group of the testee running now (0: none), for the signal handlers.
nonisolated(unsafe) private var runningTesteeGroup: pid_t = 0

extension TesteeProcess {
    /// Makes SIGINT, SIGTERM and SIGHUP end the running testee's process group before the runner
    /// dies of the signal, so that an interrupted run leaves no testee behind. Call once, early.
    public static func endTesteesOnSignals() {
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig) { received in
                if runningTesteeGroup > 0 { kill(-runningTesteeGroup, SIGKILL) }
                signal(received, SIG_DFL)
                raise(received)
            }
        }
    }
}

/// A testee failure that stops the run (it cannot even start): exit status 2.
public struct TesteeError: Error, Sendable, CustomStringConvertible {
    /// Why the testee could not be run, printed as is.
    public var message: String
    public var description: String { message }
}

/// What waiting for a line gave.
enum LineRead: Sendable, Equatable {
    case line(String)
    /// A line that is not UTF-8, with its bytes.
    case invalidUTF8([UInt8])
    /// More than ``TesteeProcess/maximumLineBytes`` bytes without a newline: the rest of the
    /// output is not read.
    case tooLong
    case timeout
    case closed
}

/// Lines read from a file handle on a background thread, waited for with a deadline. Scans each
/// byte once, however long the line.
final class LineQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines: [LineRead] = []
    private var buffer: [UInt8] = []
    private var scanned = 0
    private(set) var isClosed = false
    /// A line passed the cap: what follows is read and dropped, so that the testee never blocks on
    /// a full pipe and the runner's memory stays bounded.
    private var overflowed = false

    /// - Parameter maximumLineBytes: the longest line kept; a longer one gives ``LineRead/tooLong``.
    init(reading handle: FileHandle, maximumLineBytes: Int) {
        let thread = Thread { [weak self] in
            while true {
                let chunk = handle.availableData
                guard let self else { return }
                self.condition.lock()
                if chunk.isEmpty {
                    self.isClosed = true
                    self.condition.broadcast()
                    self.condition.unlock()
                    return
                }
                if self.overflowed {
                    self.condition.unlock()
                    continue
                }
                self.buffer.append(contentsOf: chunk)
                var start = 0
                while let nl = self.buffer[self.scanned...].firstIndex(of: 0x0A) {
                    let bytes = self.buffer[start..<nl]
                    self.lines.append(String(validUTF8: bytes).map(LineRead.line) ?? .invalidUTF8(Array(bytes)))
                    start = nl + 1
                    self.scanned = start
                }
                if start > 0 {
                    self.buffer.removeFirst(start)
                    self.scanned -= start
                }
                self.scanned = self.buffer.count
                if self.buffer.count > maximumLineBytes {
                    self.lines.append(.tooLong)
                    self.buffer = []
                    self.scanned = 0
                    self.overflowed = true
                }
                self.condition.broadcast()
                self.condition.unlock()
            }
        }
        thread.start()
    }

    /// The bytes after the last newline so far: a line the testee has begun and not ended.
    var unfinished: [UInt8] {
        condition.lock()
        defer { condition.unlock() }
        return buffer
    }

    /// The next line, `.timeout` when none arrives within `timeout` seconds, `.closed` when the
    /// stream ended.
    func next(timeout: Double) -> LineRead {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while lines.isEmpty {
            if isClosed { return .closed }
            if !condition.wait(until: deadline) { return lines.isEmpty ? .timeout : lines.removeFirst() }
        }
        return lines.removeFirst()
    }
}
