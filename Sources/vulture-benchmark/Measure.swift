import Foundation

/// The package root: three levels above this file (`Sources/vulture-benchmark/…`).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Wall-clock seconds of one run of `body`.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// CPU seconds of one run of `body` on the calling thread (the machine may be shared: wall time would
/// count the time spent waiting for a core; the Python peers are timed the same way).
func cpuSeconds(_ body: () throws -> Void) rethrows -> Double {
    func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
    let start = now()
    try body()
    return now() - start
}

/// The calling thread's CPU time so far, user and system apart, and its page faults (Linux
/// `RUSAGE_THREAD`).
struct ThreadUsage {
    var user: Double
    var system: Double
    var faults: Int

    static func now() -> ThreadUsage {
        var u = rusage()
        getrusage(1, &u)  // RUSAGE_THREAD (Linux)
        return ThreadUsage(
            user: Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6,
            system: Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6, faults: u.ru_minflt)
    }
}

/// The median of `values` (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    guard !s.isEmpty else { return .nan }
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// Measurements taken in rounds, each round running every side once in turn, so that all sides see
/// the same machine (other load, caches, frequency) as nearly as can be; each side's median.
enum Rounds {
    /// Each side's median seconds over `rounds` rounds; a side returns its own seconds.
    static func medians(_ rounds: Int, _ sides: [() throws -> Double]) throws -> [Double] {
        var times = Array(repeating: [Double](), count: sides.count)
        for _ in 0..<rounds {
            for (k, side) in sides.enumerated() { times[k].append(try side()) }
        }
        return times.map(median)
    }
}

/// What the machine was doing: the load average, printed beside the figures it affects.
func machineLine() -> String {
    let load =
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
        .joined(separator: " ") ?? "unknown"
    return "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(load) "
        + "(other work on the machine slows both sides of a pairing alike; figures are medians of rounds)"
}

/// A child process run to its end.
struct ChildRun {
    /// Wall-clock seconds from spawn to exit.
    var seconds: Double
    /// The exit status (128 + signal when killed).
    var status: Int32
    /// Peak resident memory in bytes (`ru_maxrss` from `wait4`; at least this process's own peak, see
    /// ``ChildProcess/runMeasured(_:feed:)``).
    var peakBytes: Int
    /// What it wrote on stdout.
    var stdout: String
    /// What it wrote on stderr.
    var stderr: String
}

/// Whole-process runs: `posix_spawn` and `wait4`, so the time is the process's whole life and the peak
/// memory is that child's own.
enum ChildProcess {
    /// Runs `argv` (argv[0] a path or a name on PATH) to its end.
    /// - Parameters:
    ///   - stdinPath: a file for standard input (default /dev/null).
    ///   - feed: when given, standard input is a pipe and `feed` writes to its file descriptor (then it
    ///     is closed); the time includes the feeding.
    ///   - stdoutPath: a file for standard output, left there (by default it is read into ``ChildRun/stdout``).
    static func run(
        _ argv: [String], stdinPath: String? = nil, stdoutPath: String? = nil, feed: ((Int32) -> Void)? = nil
    ) throws -> ChildRun {
        let dir = FileManager.default.temporaryDirectory
        let tag = "vulture-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let outPath = stdoutPath ?? dir.appendingPathComponent(tag + ".out").path
        let errPath = dir.appendingPathComponent(tag + ".err").path
        defer {
            if stdoutPath == nil { unlink(outPath) }
            unlink(errPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeFDs: [Int32] = [-1, -1]
        if feed != nil {
            guard pipe(&pipeFDs) == 0 else { throw BenchmarkError.setup("pipe: \(String(cString: strerror(errno)))") }
            posix_spawn_file_actions_adddup2(&actions, pipeFDs[0], 0)
            posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
            posix_spawn_file_actions_addclose(&actions, pipeFDs[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, stdinPath ?? "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let cArgs = argv.map { strdup($0) }
        defer { for a in cArgs { free(a) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let spawned = (cArgs + [nil]).withUnsafeBufferPointer { args -> Int32 in
            guard let base = args.baseAddress else { return EINVAL }
            return posix_spawnp(&pid, argv[0], &actions, nil, UnsafeMutablePointer(mutating: base), environ)
        }
        if feed != nil { close(pipeFDs[0]) }
        guard spawned == 0 else {
            if feed != nil { close(pipeFDs[1]) }
            throw BenchmarkError.setup("cannot start \(argv[0]): \(String(cString: strerror(spawned)))")
        }
        if let feed {
            feed(pipeFDs[1])
            close(pipeFDs[1])
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let out = stdoutPath == nil ? (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" : ""
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return ChildRun(seconds: elapsed, status: exit, peakBytes: usage.ru_maxrss * 1024, stdout: out, stderr: err)
    }

    /// ``run(_:stdinPath:feed:)`` that must exit 0 (or one of `accepted`).
    static func runChecked(
        _ argv: [String], accepted: Set<Int32> = [0], stdoutPath: String? = nil, feed: ((Int32) -> Void)? = nil
    ) throws -> ChildRun {
        let r = try run(argv, stdoutPath: stdoutPath, feed: feed)
        guard accepted.contains(r.status) else {
            throw BenchmarkError.setup(
                "\(argv.joined(separator: " ")) exited with \(r.status): \(r.stderr.prefix(2000))\(r.stdout.prefix(500))"
            )
        }
        return r
    }

    /// Runs `argv` through this executable's `child measure` mode, a small process of its own, so
    /// that the peak memory is the command's: a process started straight from this one would report
    /// at least this process's peak (Linux keeps the larger high-water mark across `exec`).
    static func runMeasured(_ argv: [String], feed: ((Int32) -> Void)? = nil) throws -> ChildRun {
        var r = try run([ownExecutable, "child", "measure"] + argv, feed: feed)
        var lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        guard let last = lines.last, last.hasPrefix(measuredPrefix),
            let numbers = Optional(last.dropFirst(measuredPrefix.count).split(separator: " ").compactMap { Int($0) }),
            numbers.count == 2
        else { throw BenchmarkError.setup("child measure \(argv.joined(separator: " ")): \(r.stdout.suffix(300))") }
        lines.removeLast()
        r.stdout = lines.map { $0 + "\n" }.joined()
        r.status = Int32(numbers[0])
        r.peakBytes = numbers[1]
        return r
    }

    static let measuredPrefix = "vulture-benchmark child measure: "

    /// Child mode `child measure ARGV…`: runs ARGV with this process's standard input and output, then
    /// prints `vulture-benchmark child measure: STATUS PEAK-BYTES` (the command's `ru_maxrss`).
    static func measureChild(_ argv: [String]) -> Int32 {
        let cArgs = argv.map { strdup($0) }
        defer { for a in cArgs { free(a) } }
        var pid: pid_t = 0
        let spawned = (cArgs + [nil]).withUnsafeBufferPointer { args -> Int32 in
            guard let base = args.baseAddress else { return EINVAL }
            return posix_spawnp(&pid, argv[0], nil, nil, UnsafeMutablePointer(mutating: base), environ)
        }
        guard spawned == 0 else { return 127 }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        print("\(measuredPrefix)\(exit) \(usage.ru_maxrss * 1024)")
        return 0
    }

    /// The full path of `tool` on PATH, or nil.
    static func which(_ tool: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let p = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    /// This executable's path, and the folder of the package's other executables.
    static var ownExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// `name` (`vulture-conformance`) built beside this executable.
    static func sibling(_ name: String) -> String? {
        let path = URL(fileURLWithPath: ownExecutable).deletingLastPathComponent().appendingPathComponent(name).path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }
}

/// VmHWM (peak resident set) of this process in bytes, from /proc/self/status.
func peakResidentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let kb = line.split(separator: " ").compactMap { Int($0) }.first ?? -1
        return kb * 1024
    }
    return -1
}

/// Formatting of the report lines: a rate or size and the ratio this project ÷ the anchor.
enum Report {
    static func mib(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / Double(1 << 20)) }

    /// A count with thousands separators (`100,000`), as `Int.formatted()` writes it in English, on
    /// every OS version the package supports (`formatted()` needs macOS 12).
    static func count(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (k, c) in digits.enumerated() {
            if k > 0 && (digits.count - k) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }

    static func rate(_ value: Double, _ unit: String) -> String {
        // Counts per second (documents, writes) as whole numbers; bytes per second with a decimal.
        unit == "MB/s" ? String(format: "%8.1f %@", value, unit) : String(format: "%10.0f %@", value, unit)
    }

    /// `  label  value  ratio R× (goal …: met/not met)` — the ratio is ours ÷ anchor (higher is better).
    static func line(_ label: String, _ value: String, ratio: Double? = nil, goal: Double? = nil) -> String {
        var s = "  " + label.padding(toLength: max(58, label.count), withPad: " ", startingAt: 0) + "  " + value
        if let ratio {
            // Three decimals where two would round across the goal.
            let close = goal.map { abs(ratio - $0) < 0.01 } ?? false
            s += String(format: close ? "   ratio %.3f×" : "   ratio %.2f×", ratio)
            if let goal { s += String(format: " (goal ≥ %.2g×: %@)", goal, ratio >= goal ? "met" : "NOT MET") }
        }
        return s
    }
}

/// Why a benchmark stopped: results that differ between the sides, or a broken setup.
enum BenchmarkError: Error, CustomStringConvertible {
    case mismatch(String)
    case setup(String)
    var description: String {
        switch self {
        case .mismatch(let what): "results differ: \(what)"
        case .setup(let what): "setup: \(what)"
        }
    }
}
