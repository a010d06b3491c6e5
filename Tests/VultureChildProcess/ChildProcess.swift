import Foundation

/// What a child process left when it ended: its status, how it ended, everything it wrote, and how
/// long it ran.
public struct ChildProcessResult: Sendable {
    /// The exit status, or the signal's number when it ended by a signal.
    public var status: Int32
    /// Whether it exited or ended by a signal.
    public var reason: Process.TerminationReason
    /// Everything it wrote to its standard output.
    public var standardOutput: Data
    /// Everything it wrote to its standard error.
    public var standardError: Data
    /// Wall seconds from its start to its end.
    public var seconds: Double
    /// Whether `run` sent it SIGKILL and it ended by that signal (one that exited just before the
    /// signal was not killed).
    public var killed: Bool

    /// The standard output as UTF-8 text (invalid bytes replaced).
    public var stdout: String { String(decoding: standardOutput, as: UTF8.self) }
    /// The standard error as UTF-8 text (invalid bytes replaced).
    public var stderr: String { String(decoding: standardError, as: UTF8.self) }
}

/// Runs the package's executables and system tools from tests.
public enum ChildProcess {
    /// What the child reads on its standard input.
    public enum Input: Sendable {
        /// Nothing: the null device, so a child that reads waits on no terminal.
        case empty
        /// These bytes, then end of file.
        case bytes(Data)
        /// The file at this URL.
        case file(URL)
    }

    /// Runs `executable` with `arguments` to its end, or kills it with SIGKILL after `killAfter`
    /// seconds. Its standard output and error are each read on a thread of their own while it runs:
    /// a child that fills one pipe (64 KiB) never waits for the test to read the other.
    /// - Parameters:
    ///   - executable: the program's path.
    ///   - arguments: its arguments, without the program name.
    ///   - input: its standard input (default: the null device).
    ///   - currentDirectory: its working directory (default: the test's).
    ///   - killAfter: seconds after which it is killed if it has not ended (default: never).
    /// - Throws: what `Process.run()` throws when the program cannot be started.
    public static func run(
        _ executable: String, _ arguments: [String], input: Input = .empty, currentDirectory: URL? = nil,
        killAfter: Double? = nil
    ) throws -> ChildProcessResult {
        _ = ignoreBrokenPipes
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let inputPipe = Pipe()
        switch input {
        case .empty: process.standardInput = FileHandle.nullDevice
        case .bytes: process.standardInput = inputPipe
        case .file(let url): process.standardInput = try FileHandle(forReadingFrom: url)
        }
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()

        let readers = DispatchGroup()
        let output = Drained(outputPipe.fileHandleForReading, group: readers)
        let errors = Drained(errorPipe.fileHandleForReading, group: readers)
        if case .bytes(let bytes) = input {
            readers.enter()
            Thread {
                // A child that exits without reading all of it closes the pipe: the write fails with
                // EPIPE (SIGPIPE is ignored), and the child's status tells what happened.
                try? inputPipe.fileHandleForWriting.write(contentsOf: bytes)
                try? inputPipe.fileHandleForWriting.close()
                readers.leave()
            }.start()
        }
        var killed = false
        if let killAfter, ended.wait(timeout: .now() + killAfter) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            killed = true
            ended.wait()
        } else if killAfter == nil {
            ended.wait()
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        readers.wait()
        process.waitUntilExit()
        return ChildProcessResult(
            status: process.terminationStatus, reason: process.terminationReason, standardOutput: output.data,
            standardError: errors.data, seconds: seconds,
            killed: killed && process.terminationReason == .uncaughtSignal)
    }

    /// The built executable `name` of this package: beside the test bundle (where `swift build
    /// --build-tests` puts it), else in `.build/debug`; nil when it is not built.
    public static func builtExecutable(named name: String) -> String? {
        let beside = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name).path
        let debug = packageRoot.appendingPathComponent(".build/debug/\(name)").path
        return [beside, debug].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The package root (three levels above this file).
    private static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Ignores SIGPIPE in this process, once: a child that closes its input early must not end the
    /// test run (the default action of the signal) when `run` writes to it.
    private static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// One output pipe, read to its end on a thread of its own; `data` is complete once `group` is
    /// left.
    private final class Drained: @unchecked Sendable {
        private(set) var data = Data()

        init(_ handle: FileHandle, group: DispatchGroup) {
            group.enter()
            Thread {
                self.data = handle.readDataToEndOfFile()
                group.leave()
            }.start()
        }
    }
}
