import Foundation
import Testing
import VultureConformance
import VultureSchemaCore
import VultureSyncSchema
import VultureTesteeProcess

/// A small Python testee whose ops misbehave on purpose: echo, reject, skip, crash, hang, wrong seq.
let fakeTestee = #"""
    import json, sys, time
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "start":
            if msg["protocolVersion"] != 1:
                print(json.dumps({"type": "error", "error": {"code": "protocol.unsupported-version", "message": "v"}}), flush=True)
                sys.exit(1)
            print(json.dumps({"type": "started", "protocolVersion": 1, "implementation": "fake 0"}), flush=True)
            continue
        if msg["type"] == "stop":
            sys.exit(0)
        seq, op = msg["seq"], msg["op"]
        if op == "echo":
            print(json.dumps({"seq": seq, "output": msg["input"]}), flush=True)
        elif op == "reject":
            print(json.dumps({"seq": seq, "error": {"code": "value.array-in-array", "message": "no"}}), flush=True)
        elif op == "skip":
            print(json.dumps({"seq": seq, "skipped": "not implemented"}), flush=True)
        elif op == "crash":
            sys.exit(3)
        elif op == "hang":
            time.sleep(30)
        elif op == "badseq":
            print(json.dumps({"seq": seq + 7, "output": None}), flush=True)
        elif op == "segfault":
            import os, signal
            os.kill(os.getpid(), signal.SIGSEGV)
        elif op == "garbage":
            print("not json \u0085 here", flush=True)
        elif op == "endless":
            sys.stdout.write("x" * (3 << 20))
            sys.stdout.flush()
            time.sleep(30)
        elif op == "partial":
            sys.stdout.write('{"seq": %d, "outp' % seq)
            sys.stdout.flush()
            sys.exit(0)
        elif op == "quit":
            sys.exit(0)
        elif op == "latin1":
            sys.stdout.buffer.write(b'{"seq": 1, "output": "caf\xe9"}\n')
            sys.stdout.flush()
    """#

@Suite(.serialized) struct TesteeProcessTests {
    /// The start handshake's bound: Python starts in well under a second, but not always while the
    /// other suites load both cores; the short case timeouts under test stay short.
    static let startTimeout = 60.0

    static func testeeCommand() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vulture-fake-testee-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let script = dir.appendingPathComponent("testee.py")
        try Data(fakeTestee.utf8).write(to: script)
        return "python3 '\(script.path)'"
    }

    /// Each case's failure message, or its outcome when it did not fail, in case order.
    static func messages(_ run: ConformanceRun) -> [String] {
        run.results.map { r in
            if case .failed(let m, _) = r.outcome { return m }
            return "\(r.outcome)"
        }
    }

    static func c(_ id: String, _ op: String, _ expected: ConformanceCase.Expectation) -> ConformanceCase {
        ConformanceCase(id: id, section: "§test", op: op, input: .map(["x": .double(1)]), expected: expected)
    }

    @Test func drivesATesteeThroughCrashesAndTimeouts() throws {
        var testee = TesteeProcess(
            command: try Self.testeeCommand(), timeout: 5, startTimeout: Self.startTimeout, suiteVersion: "0.0.0")
        let cases = [
            Self.c("required.echo.ok", "echo", .output(.map(["x": .double(1)]))),
            Self.c("required.echo.wrong", "echo", .output(.map(["x": .integer(1)]))),
            Self.c("required.reject.ok", "reject", .error(code: "value.array-in-array")),
            Self.c("recommended.skip", "skip", .output(.null)),
            Self.c("required.crash", "crash", .output(.null)),
            Self.c("required.after-crash", "echo", .output(.map(["x": .double(1)]))),
            Self.c("required.hang", "hang", .output(.null)),
            Self.c("required.badseq", "badseq", .output(.null)),
            Self.c("required.last", "echo", .output(.map(["x": .double(1)]))),
        ]
        let list = try FailureList(
            text: "required.echo.wrong\nrequired.crash\nrequired.hang\nrequired.badseq\n", file: "f")
        let run = ConformanceRunner.run(cases, on: &testee, failureList: list)
        testee.stop()
        let outcomes = Dictionary(uniqueKeysWithValues: run.results.map { ($0.id, $0.outcome) })
        #expect(outcomes["required.echo.ok"] == .passed)
        #expect(outcomes["required.reject.ok"] == .passed)
        #expect(outcomes["recommended.skip"] == .skipped(reason: "not implemented"))
        #expect(outcomes["required.after-crash"] == .passed, "the runner restarted the crashed testee")
        #expect(outcomes["required.last"] == .passed)
        guard case .failed(let m1, _)? = outcomes["required.crash"] else {
            Issue.record("crash not failed")
            return
        }
        #expect(
            m1
                == "the testee crashed: it exited with status 3 without answering case required.crash (op crash); it is restarted for the next case"
        )
        guard case .failed(let m2, _)? = outcomes["required.hang"] else {
            Issue.record("hang not failed")
            return
        }
        #expect(m2 == "timeout after 5.0 s")
        guard case .failed(let m3, _)? = outcomes["required.badseq"] else {
            Issue.record("badseq not failed")
            return
        }
        #expect(m3 == #"protocol: answered seq 15, expected 8; the line: {"seq": 15, "output": null}"#)
        guard case .failed(_, let diffs)? = outcomes["required.echo.wrong"] else {
            Issue.record("wrong echo passed")
            return
        }
        #expect(diffs.first?.hint == "a double where the schema wants an integer: write 1")
        #expect(run.reconciliation.isExact)
        #expect(run.exitStatus == 0)
        #expect(run.summary.line == "4 passed, 0 failed, 5 skipped")
        #expect(testee.starts == 4, "started once, then after the crash, the timeout and the protocol break")
    }

    /// A crash names the signal, a protocol break the offending line (invisible characters escaped), a
    /// line that is not UTF-8 its bytes.
    @Test func crashesAndProtocolBreaksExplainThemselves() throws {
        var testee = TesteeProcess(
            command: try Self.testeeCommand(), timeout: 5, startTimeout: Self.startTimeout, suiteVersion: "0.0.0")
        let cases = [
            Self.c("required.segfault", "segfault", .output(.null)),
            Self.c("required.garbage", "garbage", .output(.null)),
            Self.c("required.latin1", "latin1", .output(.null)),
        ]
        let run = ConformanceRunner.run(cases, on: &testee)
        testee.stop()
        let messages = Self.messages(run)
        #expect(
            messages[0].hasPrefix("the testee crashed: it was killed by signal 11 (SIGSEGV) without answering")
                || messages[0].hasPrefix(
                    "the testee crashed: it exited with status 139 (a shell's report of signal 11 (SIGSEGV)) without"),
            "\(messages[0])")
        #expect(messages[1].hasPrefix("protocol: unreadable answer line ("))
        #expect(messages[1].hasSuffix("; the line: not json \\u0085 here"), "\(messages[1])")
        #expect(
            messages[2]
                == #"protocol: the answer line is not UTF-8: "{\"seq\": 1, \"output\": \"caf\#u{FFFD}\"}" (28 bytes: 7b 22 73 65 71 22 3a 20 31 2c 20 22 6f 75 74 70 75 74 22 3a 20 22 63 61 66 e9 22 7d)"#,
            "\(messages[2])")
    }

    @Test func staleEntryFailsTheRun() throws {
        var testee = TesteeProcess(
            command: try Self.testeeCommand(), timeout: 2, startTimeout: Self.startTimeout, suiteVersion: "0.0.0")
        let cases = [Self.c("required.echo.ok", "echo", .output(.map(["x": .double(1)])))]
        let list = try FailureList(text: "required.echo.ok\nrequired.gone\n", file: "f.txt")
        let run = ConformanceRunner.run(cases, on: &testee, failureList: list)
        testee.stop()
        #expect(run.reconciliation.unexpectedPasses == ["required.echo.ok"])
        #expect(run.reconciliation.unknownEntries.map(\.id) == ["required.gone"])
        #expect(run.exitStatus == 1)
        let lines = ConformanceRunner.report(run, failureList: list)
        #expect(lines.contains("STALE f.txt:1: required.echo.ok is listed but passed; remove the entry"))
        #expect(lines.last == "0 passed, 2 failed", "a stale entry's case counts as failed, once")
        #expect(lines.contains("UNKNOWN f.txt:2: required.gone matches no case"))
    }

    /// Entries that match no case are reported in the file's order, as a person fixing it reads it.
    @Test func unknownEntriesComeInTheFilesOrder() throws {
        let list = try FailureList(text: "required.zeta\n# note\nrequired.alpha\n", file: "f.txt")
        let r = list.reconcile([], allCaseIDs: [])
        #expect(r.unknownEntries.map(\.id) == ["required.zeta", "required.alpha"])
        #expect(r.unknownEntries.map(\.line) == [1, 3])
    }

    @available(macOS 13, iOS 16, *)  // ContinuousClock
    @Test func testeeThatCannotStartIsAnError() {
        let testee = TesteeProcess(command: "exit 3", timeout: 5, suiteVersion: "0.0.0")
        let started = ContinuousClock.now
        #expect {
            try testee.start()
        } throws: { error in
            "\(error)" == "the testee exited with status 3 before answering start; check the command `exit 3`"
        }
        #expect(
            ContinuousClock.now - started < .seconds(4), "an exited testee is reported at once, not after the timeout")
    }

    @Test func startedWithoutTheProtocolVersionIsRefused() {
        let command =
            #"python3 -c 'import sys; sys.stdin.readline(); print("{\"type\": \"started\"}", flush=True); sys.stdin.read()'"#
        let testee = TesteeProcess(command: command, timeout: 5, suiteVersion: "0.0.0")
        #expect {
            try testee.start()
        } throws: { "\($0)".hasPrefix("the testee's started answer must carry \"protocolVersion\": 1") }
    }

    /// A required case that is skipped fails unless the failure list names it; a recommended one
    /// may be skipped.
    @Test func skippedRequiredCaseFailsUnlessListed() throws {
        var testee = TesteeProcess(
            command: try Self.testeeCommand(), timeout: 2, startTimeout: Self.startTimeout, suiteVersion: "0.0.0")
        let cases = [
            Self.c("required.echo.ok", "echo", .output(.map(["x": .double(1)]))),
            Self.c("required.skip", "skip", .output(.null)),
        ]
        let unlisted = ConformanceRunner.run(cases, on: &testee)
        #expect(unlisted.summary.line == "1 passed, 1 failed")
        #expect(unlisted.exitStatus == 1)
        #expect(
            unlisted.results[1].outcome
                == .failed(
                    message:
                        "skipped by the implementation (not implemented); a required case fails unless the failure list names it",
                    differences: []))
        let listed = ConformanceRunner.run(
            cases, on: &testee, failureList: try FailureList(text: "required.skip\n", file: "f"))
        testee.stop()
        #expect(listed.summary.line == "1 passed, 0 failed, 1 skipped")
        #expect(listed.exitStatus == 0)
    }

    @Test func skippingEveryCaseIsNotConformant() throws {
        var testee = TesteeProcess(
            command: try Self.testeeCommand(), timeout: 2, startTimeout: Self.startTimeout, suiteVersion: "0.0.0")
        let run = ConformanceRunner.run([Self.c("recommended.skip", "skip", .output(.null))], on: &testee)
        testee.stop()
        #expect(run.summary.line == "0 passed, 0 failed, 1 skipped")
        #expect(run.exitStatus == 1)
        #expect(ConformanceRunner.report(run, failureList: nil).contains { $0.hasPrefix("no case passed") })
    }

    /// The last two cases are not sent at all (their message says so), rather than each waiting for
    /// its timeout; no wall-clock bound is asserted (a loaded machine restarts Python slowly).
    @Test func aHungTesteeIsGivenUpAfterThreeTimeoutsInARow() throws {
        var testee = TesteeProcess(
            command: try Self.testeeCommand(), timeout: 0.5, startTimeout: Self.startTimeout, suiteVersion: "0.0.0")
        let cases = (1...5).map { Self.c("required.hang.\($0)", "hang", .output(.null)) }
        let run = ConformanceRunner.run(cases, on: &testee)
        testee.stop()
        let messages = Self.messages(run)
        #expect(messages.prefix(3).allSatisfy { $0 == "timeout after 0.5 s" })
        #expect(messages.suffix(2).allSatisfy { $0 == "not run: the testee timed out on 3 cases in a row" })
        #expect(testee.starts == 3)
    }

    /// A testee that crashes and then hangs at every restart (a lock its crash left behind) is given
    /// up after three handshake timeouts in a row, as a testee that hangs on cases is: the remaining
    /// cases are not sent, rather than each waiting for a handshake of its own.
    @Test func aTesteeThatNeverStartsAgainIsGivenUpAfterThreeTimeoutsInARow() throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vulture-started-once-\(getpid())")
        try? FileManager.default.removeItem(at: marker)
        defer { try? FileManager.default.removeItem(at: marker) }
        let command =
            "if [ -e '\(marker.path)' ]; then exec sleep 30; fi; touch '\(marker.path)'; " + (try Self.testeeCommand())
        var testee = TesteeProcess(command: command, timeout: 30, startTimeout: 2, suiteVersion: "0.0.0")
        let cases =
            [Self.c("required.crash", "crash", .output(.null))]
            + (1...5).map { Self.c("required.echo.\($0)", "echo", .output(.map(["x": .double(1)]))) }
        let run = ConformanceRunner.run(cases, on: &testee)
        testee.stop()
        let messages = Self.messages(run)
        #expect(
            messages == [
                "the testee crashed: it exited with status 3 without answering case required.crash (op crash); "
                    + "it is restarted for the next case",
                "the testee did not answer start within 2.0 s",
                "the testee did not answer start within 2.0 s",
                "the testee did not answer start within 2.0 s",
                "not run: the testee timed out on 3 cases in a row",
                "not run: the testee timed out on 3 cases in a row",
            ])
        #expect(testee.starts == 4)
    }

    /// An answer whose seq is an earlier case's is a second answer to that case, and the message
    /// says so: the case awaited now is not the one that broke the protocol.
    @Test func aSecondAnswerToAnEarlierCaseIsNamedSo() {
        #expect(
            TesteeProtocol.parseAnswer(#"{"seq": 1, "output": null}"#, seq: 2)
                == .broken(
                    "protocol: answered seq 1, expected 2 (a second answer to an earlier case: its first was taken); "
                        + #"the line: {"seq": 1, "output": null}"#))
        #expect(
            TesteeProtocol.parseAnswer(#"{"seq": 3, "output": null}"#, seq: 2)
                == .broken(#"protocol: answered seq 3, expected 2; the line: {"seq": 3, "output": null}"#))
    }

    /// A line without end fails its case once it passes the cap, instead of growing the runner's
    /// memory until the timeout; a line begun and not ended before the testee exits is shown.
    @Test func anEndlessLineIsCutAtTheCapAndAnUnfinishedOneIsShown() throws {
        var testee = TesteeProcess(
            command: try Self.testeeCommand(), timeout: 20, startTimeout: Self.startTimeout, suiteVersion: "0.0.0",
            maximumLineBytes: 1 << 20)
        let cases = [
            Self.c("required.endless", "endless", .output(.null)),
            Self.c("required.partial", "partial", .output(.null)),
            Self.c("required.after", "echo", .output(.map(["x": .double(1)]))),
        ]
        let run = ConformanceRunner.run(cases, on: &testee)
        testee.stop()
        let messages = Self.messages(run)
        #expect(
            messages == [
                "protocol: a line of more than 1048576 bytes without a newline; the rest of the testee's output is "
                    + "not read, and it is restarted for the next case",
                "the testee exited with status 0 without answering case required.partial (op partial); "
                    + "it is restarted for the next case; its output ends in an unfinished line: "
                    + #""{\"seq\": 2, \"outp" (16 bytes: 7b 22 73 65 71 22 3a 20 32 2c 20 22 6f 75 74 70)"#,
                "\(CaseOutcome.passed)",
            ])
        #expect(testee.starts == 3)
    }

    /// Only a signal or a non-zero status is called a crash: a testee that exits with status 0 before
    /// its answer is named for what it did.
    @Test func aCleanExitIsNotCalledACrash() throws {
        var testee = TesteeProcess(
            command: try Self.testeeCommand(), timeout: 20, startTimeout: Self.startTimeout, suiteVersion: "0.0.0")
        let cases = [
            Self.c("required.quit", "quit", .output(.null)),
            Self.c("required.crash", "crash", .output(.null)),
        ]
        let run = ConformanceRunner.run(cases, on: &testee)
        testee.stop()
        #expect(
            Self.messages(run) == [
                "the testee exited with status 0 without answering case required.quit (op quit); "
                    + "it is restarted for the next case",
                "the testee crashed: it exited with status 3 without answering case required.crash (op crash); "
                    + "it is restarted for the next case",
            ])
        #expect(testee.starts == 2)
    }

    /// Ending the testee ends what its shell started too: no process outlives the run.
    @available(macOS 13, iOS 16, *)  // ContinuousClock
    @Test func whatTheTesteeStartedEndsWithIt() throws {
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vulture-child-\(UUID().uuidString).pid")
        defer { try? FileManager.default.removeItem(at: pidFile) }
        let command = "sleep 1000 & echo $! > '\(pidFile.path)'; " + (try Self.testeeCommand())
        var testee = TesteeProcess(
            command: command, timeout: 2, startTimeout: Self.startTimeout, suiteVersion: "0.0.0")
        let run = ConformanceRunner.run(
            [Self.c("required.echo.ok", "echo", .output(.map(["x": .double(1)])))], on: &testee)
        #expect(run.summary.passed == 1)
        testee.stop()
        let pidText = try String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let pid = try #require(Int32(pidText))
        let deadline = ContinuousClock.now + .seconds(3)
        func alive() -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
            // The state follows the parenthesised command name; a zombie (Z) or dead (X) process is gone.
            guard let close = stat.lastIndex(of: ")") else { return false }
            let state = stat[stat.index(close, offsetBy: 2)]
            return state != "Z" && state != "X"
        }
        while alive() && ContinuousClock.now < deadline { usleep(20_000) }
        #expect(!alive(), "sleep (pid \(pid)) started by the testee's shell survived the run")
    }
}
