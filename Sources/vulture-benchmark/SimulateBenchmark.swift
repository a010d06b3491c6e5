import Foundation
import VultureSimulation

/// `simulate`: seeded multi-device runs of ``Simulation`` (80 random steps each, 2–4 devices, faults,
/// every invariant checked after every step), on every core as `vulture-simulate` runs them, then a
/// few seeds on one core. No peer does this work — the world, its faults and its invariants exist
/// only here — so the rates are absolute, with the speed-up of all cores over one beside them.
enum SimulateBenchmark {
    /// `--seeds N` (default 10,000).
    nonisolated(unsafe) static var seeds = 10_000

    static func run() throws {
        let count = seeds
        print("simulate: \(Report.count(count)) seeds of VultureSimulation (80 steps, 2–4 devices, faults)")
        print(machineLine())
        print("  no peer: no other implementation of this world exists; absolute rates (wall time)")
        var steps = 0
        var failed: [UInt64] = []
        var done = 0
        let interactive = isatty(STDERR_FILENO) != 0
        let cpuBefore = processCPUSeconds()
        let elapsed = seconds {
            SimulationBatch.run(
                (0..<count).map { SimulationOptions(seed: UInt64(1 + $0)) },
                jobs: ProcessInfo.processInfo.activeProcessorCount
            ) { o in
                steps += o.steps.count
                if o.failure != nil { failed.append(o.options.seed) }
                done += 1
                if done % 1_000 == 0 || done == count {
                    let line = "  \(done)/\(count) seeds"
                    FileHandle.standardError.write(Data((interactive ? "\r\(line)" : line + "\n").utf8))
                }
            }
        }
        if interactive { FileHandle.standardError.write(Data("\n".utf8)) }
        let cpu = processCPUSeconds() - cpuBefore
        let allCores = Double(count) / elapsed
        print(
            "  \(Report.count(count)) seeds, \(Report.count(steps)) steps in \(String(format: "%.1f", elapsed)) s; "
                + (failed.isEmpty
                    ? "every invariant held"
                    : "\(failed.count) broke an invariant (first seed \(failed[0]): vulture-simulate --replay)"))
        print(
            Report.line(
                "every core (\(ProcessInfo.processInfo.activeProcessorCount))", Report.rate(allCores, "seeds/s")))
        print(Report.line("", Report.rate(Double(steps) / elapsed, "steps/s")))
        // Per CPU second of this process: what the work costs whatever else the machine is doing.
        print(
            Report.line(
                "per CPU second (\(String(format: "%.1f", cpu)) CPU s)", Report.rate(Double(count) / cpu, "seeds/s")))
        print(Report.line("", Report.rate(Double(steps) / cpu, "steps/s")))
        // One core: the first 200 seeds on this thread.
        let sample = min(200, count)
        var sampleSteps = 0
        let one = seconds {
            for seed in 1...sample { sampleSteps += Simulation.run(SimulationOptions(seed: UInt64(seed))).steps.count }
        }
        print(
            Report.line(
                "one core (the first \(Report.count(sample)) seeds)", Report.rate(Double(sample) / one, "seeds/s"),
                ratio: allCores / (Double(sample) / one)))
        print("    (ratio: every core ÷ one core)")
    }

    /// User and system CPU seconds of this whole process (every thread).
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return s(usage.ru_utime) + s(usage.ru_stime)
    }
}
