import Foundation
import Testing
import VultureChildProcess
import VultureEmulators
import VultureFirestore
import VultureSyncCommand
import VultureSyncEngine
import VultureSyncSchema

/// The built `vulture-sync` run as a child process and killed with SIGKILL at seeded random
/// moments of an import and of a sync: after every kill the state directory opens, and everything
/// the child printed as done (a flight imported, a sync done) is there. The delays are drawn from a
/// seeded generator, scaled to how long the unkilled command takes on this machine; what the child
/// had done by then depends on the machine's load, which is the point: many different moments.
@Suite(
    "vulture-sync killed at random moments loses nothing it reported",
    .enabled(if: KilledCommand.executable != nil, "vulture-sync is not built (swift build builds it)"))
struct SyncCommandKillTests {
    static let emulatorEnabled: Bool = {
        if case .available = FirestoreEmulator.availability() { return true }
        return FirestoreEmulator.isRequired
    }()

    /// Kills during imports, without a server: 200 kills.
    @Test func killedDuringImportsItLosesNoImportedFlight() throws {
        var random = SplitMix64(seed: 22)
        let dir = try SyncCommandFixtures.temporaryDirectory("kill-import")
        defer { try? FileManager.default.removeItem(at: dir) }
        var files: [String] = []
        var ids: [String: String] = [:]
        for k in 0..<30 {
            let bytes = SyncCommandFixtures.igc(1_000 + k)
            let path = dir.appendingPathComponent("flight-\(k).igc").path
            try bytes.write(to: URL(fileURLWithPath: path))
            files.append(path)
            ids[DocumentIds.flightId(igcBytes: bytes)] = path
        }
        // How long a whole import of the files takes here (the kill moments are drawn within it).
        let calibration = dir.appendingPathComponent("calibration")
        let full = try KilledCommand.run(
            ["--uid", "k0", "--state", calibration.path, "import"] + files, killAfter: nil)
        #expect(full.status == 0, "\(full.errors)")
        #expect(full.output.last == "30 imported, 0 already here")
        let duration = max(full.seconds, 0.05)

        var kills = 0
        var completions = 0
        var round = 0
        while kills < 200 {
            round += 1
            let state = dir.appendingPathComponent("state-\(round)")
            let args = ["--uid", "k\(round)", "--state", state.path, "import"] + files
            var reported: Set<String> = []
            while true {
                let delay = Double(random.next() % 1_000) / 1_000 * duration * 1.1
                let run = try KilledCommand.run(args, killAfter: delay)
                for line in run.output {
                    let parts = line.split(separator: " ")
                    if parts.count >= 2, line.hasPrefix("imported ") || line.hasPrefix("already here ") {
                        reported.insert(String(parts[line.hasPrefix("imported ") ? 1 : 2].dropFirst("flights/".count)))
                    }
                }
                if run.killed { kills += 1 } else { #expect(run.status == 0, "\(run.errors)") }
                // The state opens, and every flight reported is there, live, with its IGC file.
                guard FileManager.default.fileExists(atPath: state.appendingPathComponent("device.json").path) else {
                    #expect(reported.isEmpty)
                    continue
                }
                let store = try SQLiteLocalStore(directory: state)
                for id in reported {
                    let row = store.row(.flights, id: id)
                    #expect(row?.isTombstone == false, "round \(round): flights/\(id) was reported and is gone")
                    #expect(
                        (try? BlobPaths.igcObjectPath(uid: "k\(round)", flightId: id)).flatMap { store.blob($0) }
                            != nil, "round \(round): the IGC object of \(id)")
                }
                #expect(store.rows(.flights).allSatisfy { ids[$0.id] != nil })
                if !run.killed {
                    completions += 1
                    #expect(Set(store.rows(.flights).map(\.id)) == Set(ids.keys))
                    break
                }
            }
        }
        #expect(kills >= 200)
        #expect(completions == round)
        print("kill test, import: \(kills) kills in \(round) state directories (a whole import: \(duration) s)")
    }

    /// Kills during syncs against the Firestore emulator (objects in the state directory's bucket):
    /// 100 kills. After each the state opens with every imported flight; after a sync that said
    /// done, nothing is dirty; and once a sync completes, a second device pulls the same logbook.
    @Test(.enabled(if: Self.emulatorEnabled, "the Firestore emulator jar is not installed"))
    func killedDuringSyncsItLosesNothingAndConverges() throws {
        var random = SplitMix64(seed: 2_222)
        let emulator = try FirestoreEmulator.start()
        defer { emulator.stop() }
        let dir = try SyncCommandFixtures.temporaryDirectory("kill-sync")
        defer { try? FileManager.default.removeItem(at: dir) }
        var files: [String] = []
        for k in 0..<8 {
            let path = dir.appendingPathComponent("flight-\(k).igc").path
            try SyncCommandFixtures.igc(2_000 + k).write(to: URL(fileURLWithPath: path))
            files.append(path)
        }
        let server = ["--emulator", "127.0.0.1:\(emulator.port)"]
        func device(_ round: Int, _ name: String) -> [String] {
            server + ["--uid", "kill-\(round)", "--state", dir.appendingPathComponent("\(name)-\(round)").path]
        }
        // How long the first sync of the logbook takes here.
        _ = try KilledCommand.run(device(0, "a") + ["import"] + files, killAfter: nil)
        let full = try KilledCommand.run(device(0, "a") + ["sync"], killAfter: nil)
        #expect(full.status == 0, "\(full.errors)")
        let duration = max(full.seconds, 0.05)

        var kills = 0
        var round = 0
        while kills < 100 {
            round += 1
            let imported = try KilledCommand.run(device(round, "a") + ["import"] + files, killAfter: nil)
            #expect(imported.status == 0, "\(imported.errors)")
            let state = dir.appendingPathComponent("a-\(round)")
            let flightIds = Set(try SQLiteLocalStore(directory: state).rows(.flights).map(\.id))
            #expect(flightIds.count == files.count)
            while true {
                let delay = Double(random.next() % 1_000) / 1_000 * duration * 1.1
                let run = try KilledCommand.run(device(round, "a") + ["sync"], killAfter: delay)
                if run.killed { kills += 1 } else { #expect(run.status == 0, "\(run.errors)") }
                let store = try SQLiteLocalStore(directory: state)
                #expect(Set(store.rows(.flights).filter { !$0.isTombstone }.map(\.id)) == flightIds, "round \(round)")
                if run.output.contains("sync done") {
                    #expect(SyncCollection.allCases.allSatisfy { c in store.rows(c).allSatisfy { !$0.isDirty } })
                }
                if !run.killed { break }
            }
            // A second device pulls what the killed one pushed: the same rows, field for field.
            let pulled = try KilledCommand.run(device(round, "b") + ["--platform", "ios", "pull"], killAfter: nil)
            #expect(pulled.status == 0, "\(pulled.errors)")
            let dumpA = try KilledCommand.run(device(round, "a") + ["dump"], killAfter: nil).output
            let dumpB = try KilledCommand.run(device(round, "b") + ["dump"], killAfter: nil).output
            #expect(dumpA.count == files.count)
            #expect(dumpA == dumpB, "round \(round)")
        }
        #expect(kills >= 100)
        print("kill test, sync: \(kills) kills in \(round) state directories (a whole sync: \(duration) s)")
    }
}

/// One `vulture-sync` child process, killed with SIGKILL after a delay unless it ended first.
struct KilledCommand {
    var status: Int32
    var killed: Bool
    var output: [String]
    var errors: String
    var seconds: Double

    static let executable = ChildProcess.builtExecutable(named: "vulture-sync")

    static func run(_ arguments: [String], killAfter delay: Double?) throws -> KilledCommand {
        let r = try ChildProcess.run(try #require(executable), arguments, killAfter: delay)
        return KilledCommand(
            status: r.status, killed: r.killed, output: r.stdout.split(separator: "\n").map(String.init),
            errors: r.stderr, seconds: r.seconds)
    }
}
