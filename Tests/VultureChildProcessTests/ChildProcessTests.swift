import Foundation
import Testing
import VultureChildProcess

/// `ChildProcess.run`, which every test that starts an executable goes through.
struct ChildProcessTests {
    /// A child that writes more than a pipe holds to standard error before it writes to standard
    /// output: a runner that reads standard output to its end first waits forever.
    @Test func aFullStandardErrorDoesNotHoldTheChildBack() throws {
        let r = try ChildProcess.run("/bin/sh", ["-c", "head -c 300000 /dev/zero >&2; echo done"], killAfter: 60)
        #expect(!r.killed)
        #expect(r.status == 0)
        #expect(r.standardError.count == 300_000)
        #expect(r.stdout == "done\n")
    }

    /// Input written while the output is read: `cat` echoes 300,000 bytes, more than either pipe holds.
    @Test func theInputIsWrittenWhileTheOutputIsRead() throws {
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let r = try ChildProcess.run("/bin/cat", [], input: .bytes(bytes), killAfter: 60)
        #expect(!r.killed)
        #expect(r.status == 0)
        #expect(r.standardOutput == bytes)
    }

    /// A child that exits without reading its input: the write meets a closed pipe. Without SIGPIPE
    /// ignored, that signal ends the whole test process (status 141) instead of this test.
    @Test func aChildThatReadsNoInputEndsAlone() throws {
        let bytes = Data(count: 300_000)
        for _ in 0..<3 {
            let r = try ChildProcess.run("/bin/true", [], input: .bytes(bytes), killAfter: 60)
            #expect(!r.killed)
            #expect(r.reason == .exit)
            #expect(r.status == 0)
        }
    }

    @Test func theDefaultInputIsEmpty() throws {
        let r = try ChildProcess.run("/bin/cat", [], killAfter: 60)
        #expect(!r.killed)
        #expect(r.status == 0)
        #expect(r.standardOutput.isEmpty)
    }

    @Test func aFileIsReadAsTheInput() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vulture-child-\(getpid()).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("one\ntwo\n".utf8).write(to: file)
        let r = try ChildProcess.run("/usr/bin/wc", ["-l"], input: .file(file))
        #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "2")
    }

    @Test func aChildStillRunningIsKilledAfterItsTime() throws {
        let r = try ChildProcess.run("/bin/sh", ["-c", "echo started; exec sleep 30"], killAfter: 0.5)
        #expect(r.killed)
        #expect(r.reason == .uncaughtSignal)
        #expect(r.status == SIGKILL)
        #expect(r.stdout == "started\n")
        #expect(r.seconds >= 0.5 && r.seconds < 20, "\(r.seconds)")
    }

    @Test func aChildThatEndsInTimeIsNotKilled() throws {
        let r = try ChildProcess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"], killAfter: 60)
        #expect(!r.killed)
        #expect(r.reason == .exit)
        #expect(r.status == 3)
        #expect(r.stdout == "out\n")
        #expect(r.stderr == "err\n")
    }

    @Test func theWorkingDirectoryIsTheOneGiven() throws {
        let dir = URL(fileURLWithPath: "/usr")
        let r = try ChildProcess.run("/bin/pwd", [], currentDirectory: dir)
        #expect(r.stdout == "/usr\n")
    }

    @Test func anExecutableNotBuiltIsNil() throws {
        #expect(ChildProcess.builtExecutable(named: "vulture-no-such-executable") == nil)
        if let path = ChildProcess.builtExecutable(named: "vulture-conformance") {
            #expect(path.hasSuffix("/vulture-conformance"))
            #expect(FileManager.default.isExecutableFile(atPath: path))
        }
    }

    @Test func aProgramThatCannotStartThrows() {
        #expect(throws: (any Error).self) { try ChildProcess.run("/nonexistent/vulture-program", []) }
    }
}
