import Foundation
import Testing
import VultureChildProcess
import VultureSimulation
import VultureSyncTesting

/// `vulture-simulate` as CI runs it. `--jobs N` runs seeds on N worker threads: each seed is a world of
/// its own, so the output is the same for every N, in seed order, and each seed's trace hash is the one
/// a run of that seed alone gives. `--known-failures FILE` lets listed seeds break their invariant, and
/// fails when a listed seed does not.
@Suite struct SimulateCommandTests {
    static let executable = ChildProcess.builtExecutable(named: "vulture-simulate")

    static func simulate(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let r = try ChildProcess.run(try #require(executable, "vulture-simulate is built with the tests"), arguments)
        return (r.status, r.stdout, r.stderr)
    }

    @Test func oneJobAndTwoJobsPrintTheSameHashesInSeedOrder() throws {
        let seeds = 5
        let one = try Self.simulate(["--seeds", "\(seeds)", "--start-seed", "11", "--jobs", "1", "--print-hashes"])
        let two = try Self.simulate(["--seeds", "\(seeds)", "--start-seed", "11", "--jobs", "2", "--print-hashes"])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(two.status == 0, "\(two.stderr)")
        #expect(one.stdout == two.stdout)
        let expected = (11..<(11 + seeds)).map { seed in
            "seed \(seed) trace \(Simulation.run(SimulationOptions(seed: UInt64(seed))).traceHash)"
        }
        #expect(one.stdout == (expected + ["\(seeds) passed, 0 failed"]).joined(separator: "\n") + "\n")
        // The speed goes to standard error, where it may differ from run to run.
        #expect(one.stderr.contains("seeds/s with 1 job,"), "\(one.stderr)")
        #expect(two.stderr.contains("seeds/s with 2 jobs,"), "\(two.stderr)")
    }

    @Test func theBatchReportsEveryOutcomeInOrderWhateverTheWorkers() {
        let options = (1...9).map { SimulationOptions(seed: UInt64($0), steps: 30) }
        var one: [String] = []
        SimulationBatch.run(options, jobs: 1) { one.append("\($0.options.seed) \($0.traceHash)") }
        var four: [String] = []
        SimulationBatch.run(options, jobs: 4) { four.append("\($0.options.seed) \($0.traceHash)") }
        #expect(one.count == 9)
        #expect(one == four)
        #expect(one == options.map { "\($0.seed) \(Simulation.run($0).traceHash)" })
    }

    @Test func jobsMustBeAWholeNumberOfAtLeastOne() throws {
        let zero = try Self.simulate(["--seeds", "1", "--jobs", "0"])
        #expect(zero.status == 2)
        #expect(zero.stderr.contains("--jobs needs at least 1"), "\(zero.stderr)")
        let word = try Self.simulate(["--seeds", "1", "--jobs", "many"])
        #expect(word.status == 2)
        #expect(word.stderr.contains("--jobs needs a whole number, not many"), "\(word.stderr)")
    }

    /// A file in a fresh temporary directory.
    static func file(_ text: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "simulate-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent("known-failures.txt")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func aListedSeedThatBreaksItsInvariantIsKnownAndTheBatchPasses() throws {
        // The bug makes seed 1 download an object its record does not say was uploaded (SimulationTests.firstCatch).
        let list = try Self.file("# a comment\n\n1 downloadOnlyWhenUploaded  # the injected bug\n")
        let run = try Self.simulate(["--seeds", "1", "--inject", "downloadBeforeUploaded", "--known-failures", list])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.hasPrefix("seed 1: known (\(list)): step "), "\(run.stdout)")
        #expect(run.stdout.hasSuffix("0 passed, 0 failed, 1 known\n"), "\(run.stdout)")
    }

    @Test func aListedSeedThatKeepsEveryInvariantFailsTheBatch() throws {
        let list = try Self.file("2 convergence\n")
        let run = try Self.simulate(["--seeds", "2", "--known-failures", list])
        #expect(run.status == 1)
        #expect(
            run.stdout
                == "seed 2: listed in \(list) as breaking convergence, but it kept every invariant: take it off the list\n"
                + "1 passed, 1 failed, 0 known\n")
    }

    @Test func aMalformedListIsAnInputErrorNamingItsLine() throws {
        let list = try Self.file("1 convergence\n7 noSuchInvariant\n")
        let run = try Self.simulate(["--seeds", "1", "--known-failures", list])
        #expect(run.status == 2)
        #expect(run.stderr.contains("\(list):2: `SEED INVARIANT` expected"), "\(run.stderr)")
    }

    /// The rules are read before any emulator starts: a missing file is an I/O error in the system's words.
    @Test func unreadableRulesSayWhyBeforeAnyEmulatorStarts() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-dir/firestore.rules").path
        let run = try Self.simulate(["--seeds", "1", "--backend", "emulator", "--rules", missing])
        #expect(run.status == 2)
        #expect(
            run.stderr.contains("cannot read the security rules \(missing): No such file or directory"), "\(run.stderr)"
        )
    }

    /// --start-seed takes a seed as --replay does (0 to UInt64.max); a batch that would pass the
    /// last seed is a usage error naming both options, not an overflow trap.
    @Test func startSeedRunsUpToTheLastSeedAndNoFurther() throws {
        let last = try Self.simulate([
            "--start-seed", "18446744073709551614", "--seeds", "2", "--steps", "5", "--print-hashes",
        ])
        #expect(last.status == 0, "\(last.stderr)")
        let hashes = [UInt64.max - 1, UInt64.max].map { seed in
            "seed \(seed) trace \(Simulation.run(SimulationOptions(seed: seed, steps: 5)).traceHash)"
        }
        #expect(last.stdout == (hashes + ["2 passed, 0 failed"]).joined(separator: "\n") + "\n")
        let past = try Self.simulate(["--start-seed", "9223372036854775807", "--seeds", "2", "--steps", "5"])
        #expect(past.status == 0, "\(past.stderr)")
        let over = try Self.simulate(["--start-seed", "18446744073709551615", "--seeds", "2"])
        #expect(over.status == 2)
        #expect(
            over.stderr.hasPrefix(
                "vulture-simulate: --start-seed 18446744073709551615 with --seeds 2 runs past the last seed, "
                    + "18446744073709551615\n"), "\(over.stderr)")
        let word = try Self.simulate(["--start-seed", "-1"])
        #expect(word.status == 2)
        #expect(word.stderr.contains("--start-seed needs a seed (0 to 18446744073709551615), not -1"), "\(word.stderr)")
    }

    /// --steps is bounded: a run's world grows with its steps, and one seed of a huge count would run
    /// for hours with no line. The bound itself is taken (the check after it, of --devices, speaks;
    /// a run of 10,000 steps would take half a minute here).
    @Test func stepsPastTheBoundAreAUsageError() throws {
        for mode in [["--seeds", "1"], ["--replay", "1"]] {
            let over = try Self.simulate(mode + ["--steps", "10001"])
            #expect(over.status == 2)
            #expect(over.stderr.hasPrefix("vulture-simulate: --steps is at most 10000, not 10001\n"), "\(over.stderr)")
        }
        let atBound = try Self.simulate(["--replay", "1", "--steps", "10000", "--devices", "9"])
        #expect(atBound.stderr.hasPrefix("vulture-simulate: --devices is 2, 3 or 4, not 9\n"), "\(atBound.stderr)")
    }

    /// A batch of 10^11 seeds starts at once: each run's options are made as a worker claims it,
    /// not held in an array of all of them (which ran out of memory before the first seed).
    @Test func aHugeBatchMakesEachSeedAsItRuns() throws {
        struct Enough: Error {}
        let seeds = SimulationSeeds(start: 5, count: 100_000_000_000, template: SimulationOptions(seed: 0, steps: 3))
        #expect(seeds.count == 100_000_000_000)
        #expect(seeds[2] == SimulationOptions(seed: 7, steps: 3))
        var reported: [UInt64] = []
        #expect(throws: Enough.self) {
            try SimulationBatch.run(seeds, jobs: 2) { outcome throws(Enough) in
                reported.append(outcome.options.seed)
                if reported.count == 3 { throw Enough() }
            }
        }
        #expect(reported == [5, 6, 7])
    }

    /// A scenario file that cannot be written mid-batch is named with the system's reason; the
    /// batch goes on to its summary, and the exit status is 2 (an output asked for is missing).
    @Test func aScenarioFileThatCannotBeWrittenIsNamedAndTheBatchEnds() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("simulate-\(getpid())-unwritten")
        defer { try? FileManager.default.removeItem(at: dir) }
        let blocked = dir.appendingPathComponent("simulation-seed-298.json")
        try FileManager.default.createDirectory(at: blocked, withIntermediateDirectories: true)
        for mode in [["--start-seed", "298", "--seeds", "2"], ["--replay", "298"]] {
            let run = try Self.simulate(mode + ["--inject", "clearDoesNotTravel", "--write-scenario", dir.path])
            #expect(run.status == 2)
            #expect(
                run.stderr.contains("vulture-simulate: cannot write \(blocked.path): Is a directory\n"), "\(run.stderr)"
            )
            #expect(run.stdout.contains("seed 298: step 58: acknowledgedEditKept"), "\(run.stdout)")
            #expect(run.stdout.hasSuffix(mode[0] == "--replay" ? "0 passed, 1 failed\n" : "1 passed, 1 failed\n"))
        }
    }

    /// The --write-scenario folder is made before the first seed: a plain file there, or a folder
    /// under one, is an I/O error with the system's reason before any seed runs.
    @Test func aScenarioFolderThatCannotBeMadeStopsBeforeTheFirstSeed() throws {
        let file = try Self.file("not a folder\n")
        for (dir, reason) in [(file, "a file, not a folder"), (file + "/sub", "Not a directory")] {
            for mode in [["--seeds", "3"], ["--replay", "1"]] {
                let run = try Self.simulate(mode + ["--steps", "3", "--write-scenario", dir])
                #expect(run.status == 2)
                #expect(run.stdout == "", "\(run.stdout)")
                #expect(
                    run.stderr == "vulture-simulate: --write-scenario \(dir): cannot make the folder: \(reason)\n",
                    "\(run.stderr)")
            }
        }
    }

    /// An option the mode does not take is a usage error naming it, not silently ignored: --check
    /// replays its file with --inject alone (not over the SDK surface), --replay runs one seed,
    /// and only --replay prints a trace.
    @Test func anOptionTheModeDoesNotTakeIsAUsageError() throws {
        let cases: [([String], String)] = [
            (["--check", "f.json", "--sdk-surface"], "--sdk-surface does not apply to --check"),
            (["--check", "f.json", "--shrink"], "--shrink does not apply to --check"),
            (["--check", "f.json", "--known-failures", "/nonexistent"], "--known-failures does not apply to --check"),
            (["--check", "f.json", "--seeds", "5"], "--seeds does not apply to --check"),
            (["--check", "f.json", "--replay", "1"], "--replay does not apply to --check"),
            (["--replay", "1", "--seeds", "5"], "--seeds does not apply to --replay"),
            (["--replay", "1", "--print-hashes"], "--print-hashes does not apply to --replay"),
            (["--seeds", "3", "--trace"], "--trace does not apply to a batch of seeds"),
        ]
        for (arguments, message) in cases {
            let run = try Self.simulate(arguments)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stdout == "", "\(arguments): \(run.stdout)")
            #expect(run.stderr.hasPrefix("vulture-simulate: \(message)\n"), "\(arguments): \(run.stderr)")
        }
    }

    /// A list or rules file that is not UTF-8 is named with the rule it breaks, not Foundation's
    /// `NSCocoaErrorDomain Code=259` without a file name.
    @Test func aFileThatIsNotUTF8IsNamedWithItsRule() throws {
        let binary = try Self.file("")
        try Data([0x31, 0x20, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: binary))
        let list = try Self.simulate(["--seeds", "1", "--known-failures", binary])
        #expect(list.status == 2)
        #expect(
            list.stderr == "vulture-simulate: \(binary): not UTF-8 text: the list is `SEED INVARIANT` lines\n",
            "\(list.stderr)")
        let rules = try Self.simulate(["--seeds", "1", "--backend", "emulator", "--rules", binary])
        #expect(rules.status == 2)
        #expect(
            rules.stderr.hasPrefix(
                "vulture-simulate: cannot read the security rules \(binary): not UTF-8 text"
                    + " (--rules takes a firestore.rules text file)\n"), "\(rules.stderr)")
    }

    /// A given server that does not answer is an I/O error before the first seed, not a failed
    /// invariant on every seed; and a usage error comes before any emulator starts or file is read.
    @Test func anUnansweringServerOrAUsageErrorStopsBeforeTheFirstSeed() throws {
        let rules = try Self.file("rules_version = '2';\n")
        let free = ["--storage-emulator", "127.0.0.1:2", "--rules", rules]
        for mode in [["--seeds", "2"], ["--replay", "1"]] {
            let run = try Self.simulate(mode + ["--backend", "emulator", "--emulator", "127.0.0.1:1"] + free)
            #expect(run.status == 2)
            #expect(run.stdout == "", "\(run.stdout)")
            #expect(run.stderr.hasPrefix("vulture-simulate: --emulator 127.0.0.1:1: no answer: "), "\(run.stderr)")
        }
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-dir/firestore.rules").path
        let shrink = try Self.simulate(["--replay", "1", "--backend", "emulator", "--shrink", "--rules", missing])
        #expect(shrink.status == 2)
        #expect(shrink.stderr.hasPrefix("vulture-simulate: --shrink runs in memory: "), "\(shrink.stderr)")
    }

    /// Small messages: an unknown short option is named; a scenario that is not an object says
    /// what was expected; the speed line gives the workers the batch ran, at most one per seed.
    @Test func messagesSayWhatIsMeant() throws {
        let short = try Self.simulate(["-x"])
        #expect(short.status == 2)
        #expect(short.stderr.hasPrefix("vulture-simulate: unknown option -x\n"), "\(short.stderr)")
        let list = try Self.file("[]\n")
        let check = try Self.simulate(["--check", list])
        #expect(check.status == 2)
        #expect(check.stderr == "vulture-simulate: \(list): /: expected an object\n", "\(check.stderr)")
        let speed = try Self.simulate(["--seeds", "2", "--steps", "3", "--jobs", "100000"])
        #expect(speed.status == 0)
        #expect(speed.stderr.contains("seeds/s with 2 jobs,"), "\(speed.stderr)")
    }

    /// A failure's step is numbered as --trace numbers steps: seed 298 with the bug breaks an
    /// invariant at the quiet end, whose first step (faults cleared) is trace step 58; it was
    /// reported as step 80, the --steps count, past the last traced step (66).
    @Test func aFailuresStepIsNumberedAsTheTrace() throws {
        let outcome = Simulation.run(SimulationOptions(seed: 298, injectedBug: .clearDoesNotTravel))
        let failure = try #require(outcome.failure)
        #expect(failure.violation.invariant == .acknowledgedEditKept)
        #expect(failure.step == 58)
        #expect(outcome.steps.count == 67)
        #expect(outcome.trace.contains("58 a faults cleared"), "\(outcome.trace.suffix(10))")
    }
}
