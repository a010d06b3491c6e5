import Foundation
import VultureSyncSchema

/// A testee: another implementation run as one long-lived process (`/bin/sh -c COMMAND`) and
/// driven over ``TesteeProtocol``. Restarts the process after a crash, a protocol break or a
/// timeout; each case gets `timeout` seconds.
public final class TesteeProcess: ConformanceImplementation, @unchecked Sendable {
    /// The shell command that starts the testee.
    public let command: String
    /// Seconds allowed for the start handshake and for each case.
    public let timeout: Double
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

    /// - Parameters:
    ///   - command: run with `/bin/sh -c`.
    ///   - timeout: seconds per case (and for the handshake).
    public init(command: String, timeout: Double = 10, suiteVersion: String) {
        self.command = command
        self.timeout = timeout
        self.suiteVersion = suiteVersion
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
        stdin = input.fileHandleForWriting
        lines = LineQueue(reading: output.fileHandleForReading)
        guard send(TesteeProtocol.startLine(suiteVersion: suiteVersion)) else {
            throw TesteeError(message: "the testee closed its input before the start handshake")
        }
        guard let reply = lines?.next(timeout: timeout) else {
            let exited = lines?.isClosed == true
            if exited { p.waitUntilExit() }
            let status = exited ? p.terminationStatus : 0
            terminate()
            throw TesteeError(
                message: exited
                    ? "the testee exited (status \(status)) before answering start; check the command `\(command)`"
                    : "the testee did not answer start within \(timeout) s")
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
        if case .string(let name)? = m.first(where: { $0.key == "implementation" })?.value.kind {
            implementation = name
        }
    }

    /// Sends one case and waits for its answer; a crash, protocol break or timeout answers
    /// `.broken` and restarts the process for the next case.
    public func answer(_ testCase: ConformanceCase) -> ImplementationAnswer {
        if process?.isRunning != true {
            do { try start() } catch { return .broken("\(error)") }
        }
        seq += 1
        guard send(TesteeProtocol.caseLine(seq: seq, testCase)) else {
            terminate()
            return .broken("the testee crashed (its input is closed)")
        }
        guard let reply = lines?.next(timeout: timeout) else {
            let crashed = lines?.isClosed == true
            terminate()
            return .broken(crashed ? "the testee crashed (exited without answering)" : "timeout after \(timeout) s")
        }
        let answer = TesteeProtocol.parseAnswer(reply, seq: seq)
        if case .broken = answer { terminate() }
        return answer
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
        if let p = process, p.isRunning {
            p.terminate()
            let deadline = Date().addingTimeInterval(1)
            while p.isRunning && Date() < deadline { usleep(5_000) }
            if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        }
        try? stdin?.close()
        process = nil
        stdin = nil
        lines = nil
    }
}

/// A testee failure that stops the run (it cannot even start): exit status 2.
public struct TesteeError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Lines read from a file handle on a background thread, waited for with a deadline.
final class LineQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines: [String] = []
    private var buffer = Data()
    private(set) var isClosed = false

    init(reading handle: FileHandle) {
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
                self.buffer.append(chunk)
                while let nl = self.buffer.firstIndex(of: 0x0A) {
                    let lineData = self.buffer[self.buffer.startIndex..<nl]
                    self.lines.append(String(decoding: lineData, as: UTF8.self))
                    self.buffer.removeSubrange(self.buffer.startIndex...nl)
                }
                self.condition.broadcast()
                self.condition.unlock()
            }
        }
        thread.start()
    }

    /// The next line, or nil when none arrives within `timeout` seconds or the stream ended.
    func next(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while lines.isEmpty {
            if isClosed { return nil }
            if !condition.wait(until: deadline) { return lines.isEmpty ? nil : lines.removeFirst() }
        }
        return lines.removeFirst()
    }
}
