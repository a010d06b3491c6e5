// A child process group run under a small `/bin/sh` guardian: spawned with every signal unblocked
// and at its default, stopped as a group, and ended by the guardian when this process dies.
import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a guarded process could not be spawned.
struct GuardedProcessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A `/bin/sh` guardian in its own process group (a test runner's threads block signals, which
/// children would otherwise inherit), holding a server as its child: ``stop()`` ends the group
/// (SIGTERM, SIGKILL after 5 s); the guardian's script ends the server when its standard input —
/// the pipe this object holds — closes, so a server never outlives this process.
final class GuardedProcess: @unchecked Sendable {
    /// The guardian's process id, which is also the process group id.
    let processIdentifier: Int32
    /// The write end of the guardian's standard input (close-on-exec).
    private let guardianInput: Int32
    private let lock = NSLock()
    private var stopped = false
    private var reaped = false

    private init(pid: Int32, input: Int32) {
        processIdentifier = pid
        guardianInput = input
    }

    deinit { stop() }

    /// Stops the whole process group (SIGTERM, then SIGKILL after 5 s) and waits until none of its
    /// processes is alive. Returns false when it was stopped before.
    @discardableResult
    func stop() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if stopped { return false }
        stopped = true
        close(guardianInput)
        let group = processIdentifier
        func wait(seconds: UInt64) {
            let deadline = DispatchTime.now().uptimeNanoseconds + seconds * 1_000_000_000
            while isRunningUnlocked, DispatchTime.now().uptimeNanoseconds < deadline { usleep(20_000) }
        }
        kill(-group, SIGTERM)
        wait(seconds: 5)
        if isRunningUnlocked {
            kill(-group, SIGKILL)
            wait(seconds: 5)
        }
        return true
    }

    /// Whether any process of the group is still alive (exited processes not yet reaped by their
    /// parent do not count).
    var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isRunningUnlocked
    }

    private var isRunningUnlocked: Bool {
        _ = guardianIsRunning()  // reaps the guardian once it has exited
        #if os(Linux)
            return Self.liveMembers(ofGroup: processIdentifier) > 0
        #else
            return kill(-processIdentifier, 0) == 0
        #endif
    }

    /// Whether the guardian shell still runs; reaps it once it has exited.
    func guardianIsRunning() -> Bool {
        if reaped { return false }
        var status: Int32 = 0
        let r = waitpid(processIdentifier, &status, WNOHANG)
        if r == processIdentifier || (r < 0 && errno == ECHILD) {
            reaped = true
            return false
        }
        return true
    }

    #if os(Linux)
        /// Adds to `actions` the closing of every descriptor from `lowest` up: glibc's
        /// `posix_spawn_file_actions_addclosefrom_np` (2.34 and later, looked up at run time as the
        /// Glibc module does not export it), else one close per descriptor open now.
        private static func closeDescriptors(from lowest: Int32, in actions: inout posix_spawn_file_actions_t) {
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
                let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
                if closeFrom(&actions, lowest) == 0 { return }
            }
            let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            for fd in open.compactMap({ Int32($0) }) where fd >= lowest {
                posix_spawn_file_actions_addclose(&actions, fd)
            }
        }
    #endif

    /// Spawns `argv` in a new process group with an empty signal mask and default signal
    /// handlers, standard input a pipe whose close-on-exec write end this object holds, standard
    /// output and error /dev/null, and no other descriptor of this process.
    /// - Throws: ``GuardedProcessError`` when the pipe or the process cannot be made.
    static func spawn(_ argv: [String]) throws(GuardedProcessError) -> GuardedProcess {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw GuardedProcessError("cannot create a pipe for \(argv[0])") }
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // No other descriptor of this process reaches the emulator: a long-lived child holding the
        // write end of another child's pipe would keep its reader from ever seeing end of file.
        #if os(Linux)
            closeDescriptors(from: 3, in: &actions)
        #endif
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        #if os(Linux)
            let closeOthers: Int32 = 0
        #else
            let closeOthers = Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP | closeOthers))
        var cArguments = argv.map { strdup($0) }
        cArguments.append(nil)
        defer { for a in cArguments { free(a) } }
        var pid: Int32 = 0
        let result = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, environ)
        close(fds[0])
        guard result == 0 else {
            close(fds[1])
            throw GuardedProcessError("cannot start \(argv[0]): error \(result)")
        }
        return GuardedProcess(pid: pid, input: fds[1])
    }

    /// How many processes of process group `group` are alive, from `/proc/*/stat` (zombies, state
    /// `Z`, excluded).
    static func liveMembers(ofGroup group: Int32) -> Int {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else {
            return kill(-group, 0) == 0 ? 1 : 0
        }
        var count = 0
        for entry in entries where entry.allSatisfy(\.isNumber) {
            guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After "pid (comm)": state, ppid, pgrp, …
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, fields[2] == Substring(String(group)) else { continue }
            if fields[0] != "Z" { count += 1 }
        }
        return count
    }
}

/// One server of a kind for the whole test process (``FirestoreEmulator/shared()``,
/// ``CloudStorageEmulator/shared()``): started on first use, its first failure remembered so
/// that later callers fail at once with the same message.
final class ProcessWideServer<Server>: @unchecked Sendable {
    private let lock = NSLock()
    private var instance: Server?
    private var failure: String?

    /// The running server, started by `start` on the first call; `atFirstStart` runs once, after
    /// the first start succeeded (to stop the server when the process exits).
    /// - Throws: what `start` throws; later, `failed(message)` of that first failure.
    func get(start: () throws -> Server, failed: (String) -> any Error, atFirstStart: () -> Void) throws -> Server {
        lock.lock()
        defer { lock.unlock() }
        if let instance { return instance }
        if let failure { throw failed(failure) }
        do {
            let server = try start()
            instance = server
            atFirstStart()
            return server
        } catch {
            failure = "\(error)"
            throw error
        }
    }

    /// The running server, taken out (nil when none was started or it was taken already).
    func take() -> Server? {
        lock.lock()
        defer { lock.unlock() }
        let server = instance
        instance = nil
        return server
    }
}
