import Foundation

/// Many independent runs at once on worker threads, the outcomes in the order of the options. Each
/// run is a world of its own (its server, stores, clocks and seeded generator; nothing shared), so
/// how many threads run it, and in which order they finish, changes no outcome: one seed, one trace
/// hash, whatever `jobs` is.
public enum SimulationBatch {
    /// Runs every options' seed, each against a server of its own: in memory, or what `backend`
    /// makes for the run (an emulator project and bucket of its own); a run whose backend cannot
    /// be made fails with ``Invariant/serverAnswered``. On every core.
    public static func run(
        _ options: [SimulationOptions],
        backend: (@Sendable (SimulationOptions) throws -> SimulationBackend)? = nil
    ) -> [SimulationOutcome] {
        var outcomes: [SimulationOutcome] = []
        outcomes.reserveCapacity(options.count)
        run(options, jobs: ProcessInfo.processInfo.activeProcessorCount, backend: backend) { outcomes.append($0) }
        return outcomes
    }

    /// Runs every options' seed on `jobs` worker threads (at least 1) and hands each outcome to
    /// `report` on the calling thread, in the order of `options`, as soon as it and every earlier one
    /// are done. Workers run at most a few seeds ahead of the one `report` waits for, so the outcomes
    /// held at once stay bounded however many seeds there are.
    /// - Throws: what `report` throws; the workers then stop after the seeds they are running.
    /// `options` may make each run's options as it is read (``SimulationSeeds``), so a batch of
    /// billions of seeds holds no more than the window.
    public static func run<Runs: RandomAccessCollection & Sendable, Failure: Error>(
        _ options: Runs, jobs: Int,
        backend: (@Sendable (SimulationOptions) throws -> SimulationBackend)? = nil,
        report: (SimulationOutcome) throws(Failure) -> Void
    ) throws(Failure) where Runs.Element == SimulationOptions {
        guard !options.isEmpty else { return }
        let count = options.count
        let workers = max(1, min(jobs, count))
        let queue = OutcomeQueue(count: count, window: max(16, 8 * workers))
        for _ in 0..<workers {
            let thread = Thread {
                while let i = queue.claim() {
                    let run = options[options.index(options.startIndex, offsetBy: i)]
                    queue.finish(i, runOne(run, backend: backend))
                }
                queue.workerExited()
            }
            // The engine's merge recurses into nested maps: the main thread's stack size, not a
            // secondary thread's default.
            thread.stackSize = 8 << 20
            thread.start()
        }
        defer {
            queue.cancel()
            queue.waitForWorkers(workers)
        }
        for i in 0..<count { try report(queue.take(i)) }
    }

    /// One run against its own in-memory server or the backend made for it.
    static func runOne(
        _ options: SimulationOptions, backend: (@Sendable (SimulationOptions) throws -> SimulationBackend)?
    ) -> SimulationOutcome {
        guard let backend else { return Simulation.run(options) }
        do {
            return Simulation.run(options, backend: try backend(options))
        } catch {
            return SimulationOutcome(
                options: options, choices: [], trace: [], steps: [], devices: [], pageSize: 0,
                start: Simulation.start,
                failure: (0, InvariantViolation(invariant: .serverAnswered, message: "\(error)")))
        }
    }
}

/// The options of `count` consecutive seeds from `start`, each made when it is read: a batch of
/// any size without an array of all of them. Every run but its seed is `template`.
public struct SimulationSeeds: RandomAccessCollection, Sendable {
    /// The first seed.
    public let start: UInt64
    /// How many seeds, from `start` on.
    public let count: Int
    /// Every run's options but the seed.
    public let template: SimulationOptions

    /// The seeds `start` to `start + count - 1`.
    /// - Precondition: `count` ≥ 0 and the last seed, `start + count - 1`, is at most `UInt64.max`.
    public init(start: UInt64, count: Int, template: SimulationOptions) {
        precondition(count >= 0 && (count == 0 || UInt64(count - 1) <= UInt64.max - start))
        self.start = start
        self.count = count
        self.template = template
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> SimulationOptions {
        var options = template
        options.seed = start + UInt64(position)
        return options
    }
}

/// The hand-over between the workers and the reporting thread: the next seed to claim, the outcomes
/// done but not yet reported, and how many workers have exited.
private final class OutcomeQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private let count: Int
    private let window: Int
    private var next = 0
    private var reported = 0
    private var done: [Int: SimulationOutcome] = [:]
    private var cancelled = false
    private var exited = 0

    init(count: Int, window: Int) {
        self.count = count
        self.window = window
    }

    /// The index of the next run, waiting while the workers are `window` runs ahead of the report;
    /// nil when every run is claimed or the batch is cancelled.
    func claim() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while !cancelled && next < count && next >= reported + window { condition.wait() }
        guard !cancelled, next < count else { return nil }
        next += 1
        return next - 1
    }

    func finish(_ i: Int, _ outcome: SimulationOutcome) {
        condition.lock()
        done[i] = outcome
        condition.broadcast()
        condition.unlock()
    }

    /// The outcome of run `i`, waiting until it is done; every run before `i` has been taken.
    func take(_ i: Int) -> SimulationOutcome {
        condition.lock()
        defer { condition.unlock() }
        while done[i] == nil { condition.wait() }
        let outcome = done.removeValue(forKey: i)!
        reported = i + 1
        condition.broadcast()
        return outcome
    }

    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    func workerExited() {
        condition.lock()
        exited += 1
        condition.broadcast()
        condition.unlock()
    }

    func waitForWorkers(_ workers: Int) {
        condition.lock()
        while exited < workers { condition.wait() }
        condition.unlock()
    }
}
