// VultureSyncCommand: `vulture-sync`, the reference sync engine as "the other device" on a developer's
// machine — a state directory, the Firestore emulator, and commands a person types.
import Foundation
import VultureCommandLine
import VultureFirestore
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// `vulture-sync`: the reference ``SyncEngine`` as one more device of a user, driven from the command
/// line against the Firestore emulator (README "vulture-sync"). The device's database is a
/// ``SQLiteLocalStore`` in the state directory (`DIR/state.sqlite`; a `state.json` an earlier version
/// wrote is migrated on first open); its clock is the system clock (the only place the
/// engine gets one); blobs go to a Cloud Storage emulator, or stay in the state directory.
///
/// Exit status: 0 done, 1 the sync stopped with a ``SyncError`` (its message on the error sink; what
/// was done before it is kept), 2 a usage error or a ``SyncCommandError`` (file, IGC, value).
public enum SyncCommand {
    /// The commands, in the order the usage lists them.
    public static let commands = ["import", "edit", "open", "delete", "push", "pull", "sync", "status", "dump"]

    /// The `--help` text.
    public static let usage = """
        usage: vulture-sync --uid UID --state DIR [--emulator HOST:PORT] [--project P] [--device NAME]
                            [--platform android|ios] [--storage-emulator HOST:PORT --bucket B] COMMAND …

        The reference sync engine as another device of user UID: its local database lives in DIR, it
        syncs with the Firestore emulator at HOST:PORT, so you can fill the emulator as the other
        platform's app would and look at what your app writes.

        Commands:
          import FILE.igc…                a flight per file (id: the SHA-256 of the file's bytes), in the logbook
          edit COLLECTION ID FIELD=VALUE… change fields; VALUE in canonical typed JSON: "text", 3, 5.0, true,
                                          {"$timestamp": "2026-10-20T14:03:07.123Z"}; FIELD=null clears it;
                                          a map value holds every key its schema requires.
                                          A record that is not here yet is made (its id must be its id rule's)
          open ID                         open a flight (lastOpenedAt now); its IGC file, downloaded if uploaded
          delete COLLECTION ID            delete a record (a tombstone, pushed by the next push)
          push                            pull, then push every changed row (schema §5.1)
          pull                            pull every collection from its cursor (schema §5.2)
          sync                            pull, push, purge old tombstones
          status                          rows per collection, dirty rows, cursors, storage, objects a
                                          stopped push left to upload, last error
          dump                            every row's fields, one canonical JSON line per row (sorted)

        Options:
          --uid UID              the Firebase Auth uid: documents under users/UID (fixed per DIR)
          --state DIR            the device's state directory (made when missing, except by status and
                                 dump): DIR/state.sqlite, the device's database, and DIR/device.json, whose
                                 user and device it is (a DIR/state.json of an earlier version is migrated)
          --emulator HOST:PORT   the Firestore emulator (push, pull, sync); token "owner" (rules bypassed)
          --project P            the emulator's project id (default demo-vulture)
          --device NAME          this device's id, written as updatedBy (default: chosen once per DIR)
          --platform NAME        android or ios (default android; fixed per DIR once set)
          --storage-emulator HOST:PORT --bucket B
                                 Cloud Storage (fake-gcs-server's JSON API) for IGC files; without it
                                 objects stay in DIR/bucket, where no other device can download them

        Collections: tasks, mapFiles, homebases, recentCompetitions, flights, settings.
        A progress line goes to stderr during long work. Exit status: 0 done, 1 the sync stopped with
        an error (kept in DIR, shown by status; what was done before it stays done), 2 usage or I/O
        error, or input refused (the file or argument, the field and the rule are named).
        """

    /// Where the command writes: results on `output`, the progress line and sync errors on `errors`.
    public struct Sinks: Sendable {
        /// Results (stdout).
        public var output: @Sendable (String) -> Void
        /// The progress line and errors (stderr).
        public var errors: @Sendable (String) -> Void
        /// Sinks.
        public init(output: @escaping @Sendable (String) -> Void, errors: @escaping @Sendable (String) -> Void) {
            self.output = output
            self.errors = errors
        }
        /// stdout and stderr; each result line is flushed as it is written, so a reader of a pipe
        /// (or a process killed the next moment) has every line printed so far.
        public static let standard = Sinks(
            output: {
                print($0)
                fflush(nil)
            }, errors: { printError($0) })
    }

    /// Runs one command line (the arguments after the program name).
    /// - Returns: the exit status: 0 done, 1 a sync error (written to `sinks.errors`).
    /// - Throws: `HelpRequest`, `UsageError`, ``SyncCommandError`` (exit status 2 under
    ///   `CommandLineTool.run`).
    public static func run(_ arguments: [String], sinks: Sinks = .standard) throws -> Int32 {
        let args = try CommandLineArguments(
            arguments,
            valueOptions: [
                "uid", "state", "emulator", "project", "device", "platform", "storage-emulator", "bucket",
            ])
        guard let command = args.positionals.first else {
            throw UsageError(message: "missing command: one of \(commands.joined(separator: ", "))")
        }
        guard commands.contains(command) else {
            throw UsageError(message: "unknown command '\(command)'; one of \(commands.joined(separator: ", "))")
        }
        let operands = Array(args.positionals.dropFirst())
        let uid = try args.requiredOption("uid")
        do { try BlobPaths.validate(uid: uid) } catch {
            throw UsageError(message: "--uid \(uid.shownArgument): \(error)")
        }
        let statePath = try args.requiredOption("state")
        guard !statePath.isEmpty else {
            throw UsageError(message: "--state names the device's folder, not an empty string")
        }
        let stateDirectory = URL(fileURLWithPath: statePath)
        var platform: Platform?
        if let name = args.option("platform") {
            guard let p = Platform(rawValue: name) else {
                throw UsageError(
                    message: "--platform is android or ios, not \(name.shownArgument)"
                )
            }
            platform = p
        }
        let emulator = try args.option("emulator").map { try baseURL($0, option: "emulator") }
        if ["push", "pull", "sync"].contains(command), emulator == nil {
            throw UsageError(message: "\(command) needs --emulator HOST:PORT")
        }
        let storageEmulator = try args.option("storage-emulator").map { try baseURL($0, option: "storage-emulator") }
        if (storageEmulator == nil) != (args.option("bucket") == nil) {
            throw UsageError(message: "--storage-emulator and --bucket go together")
        }
        if let project = args.option("project") { try checkProjectId(project) }
        if let bucket = args.option("bucket") { try checkBucketName(bucket) }
        try checkOperands(command, operands)

        var identity = try DeviceIdentity.open(
            stateDirectory, uid: uid, device: args.option("device"), platform: platform,
            existing: ["status", "dump"].contains(command))
        let store: SQLiteLocalStore
        do { store = try SQLiteLocalStore(directory: stateDirectory) } catch {
            throw SyncCommandError.state(path: error.path, reason: "\(error.rule.rawValue): \(error.message)")
        }
        let progress = SyncProgress(sink: sinks.errors)
        let project = args.option("project") ?? "demo-vulture"
        let database: FirestoreDatabase =
            emulator.map {
                ObservedFirestore(
                    FirestoreRESTClient(baseURL: $0, projectId: project, bearerToken: "owner"), progress: progress)
            } ?? NoFirestore()
        let storage: CloudStorage
        if let storageEmulator, let bucket = args.option("bucket") {
            let client = CloudStorageRESTClient(baseURL: storageEmulator, bucket: bucket)
            if ["push", "sync"].contains(command) {
                do { try client.createBucket(project: project) } catch {
                    sinks.errors("vulture-sync: bucket \(bucket): \(error)")
                    try identity.recordError("Cloud Storage: \(error)")
                    return 1
                }
            }
            storage = ObservedCloudStorage(client, progress: progress)
        } else {
            storage = ObservedCloudStorage(
                FolderCloudStorage(folder: stateDirectory.appendingPathComponent("bucket")), progress: progress)
        }
        let engine = SyncEngine(
            configuration: SyncConfiguration(uid: uid, deviceId: identity.deviceId, platform: identity.platform),
            database: database, storage: storage, store: store, clock: systemClock)
        var context = Context(
            engine: engine, store: store, identity: identity, sinks: sinks, progress: progress,
            storageLine: storageEmulator.map {
                "Cloud Storage: \($0.absoluteString) bucket \(args.option("bucket") ?? "")"
            }
                ?? "Cloud Storage: none — objects stay in \(stateDirectory.appendingPathComponent("bucket").path) "
                + "(no other device can download them; give --storage-emulator HOST:PORT --bucket B)")
        return try context.run(command, operands)
    }

    /// The system clock: the device time of this command (the engine itself takes it injected).
    @Sendable static func systemClock() -> FirestoreTimestamp {
        (try? FirestoreTimestamp(date: Date())) ?? .minimum
    }

    /// `http://HOST:PORT` from `HOST:PORT`.
    static func baseURL(_ text: String, option: String) throws(UsageError) -> URL {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]), (1...65_535).contains(port),
            let url = URL(string: "http://\(text)")
        else {
            throw UsageError(
                message:
                    "--\(option) is HOST:PORT (127.0.0.1:8080), not \(text.shownArgument)"
            )
        }
        return url
    }

    /// A Google Cloud project id: 6 to 30 lowercase ASCII letters, digits and hyphens, a letter
    /// first, no hyphen last (`demo-vulture`); anything else reaches the emulator as a broken path.
    static func checkProjectId(_ text: String) throws(UsageError) {
        let bytes = Array(text.utf8)
        let allowed = bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
        guard (6...30).contains(bytes.count), allowed, let first = bytes.first, (0x61...0x7A).contains(first),
            bytes.last != 0x2D
        else {
            throw UsageError(
                message: "--project is a project id: 6 to 30 lowercase letters, digits and hyphens, a letter "
                    + "first (demo-vulture), not \(text.shownArgument)")
        }
    }

    /// A Cloud Storage bucket name: 3 to 63 lowercase ASCII letters, digits, `-`, `_` and `.`, a
    /// letter or digit at each end (Cloud Storage's naming rules; no dotted names over 63).
    static func checkBucketName(_ text: String) throws(UsageError) {
        let bytes = Array(text.utf8)
        func isAlphanumeric(_ b: UInt8) -> Bool { (0x61...0x7A).contains(b) || (0x30...0x39).contains(b) }
        let allowed = bytes.allSatisfy { isAlphanumeric($0) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E }
        guard (3...63).contains(bytes.count), allowed, let first = bytes.first, let last = bytes.last,
            isAlphanumeric(first), isAlphanumeric(last)
        else {
            throw UsageError(
                message: "--bucket is a bucket name: 3 to 63 lowercase letters, digits, '-', '_' and '.', a "
                    + "letter or digit at each end (vulture-test), not \(text.shownArgument)")
        }
    }

    static func checkOperands(_ command: String, _ operands: [String]) throws(UsageError) {
        func expect(_ ok: Bool, _ form: String) throws(UsageError) {
            if !ok { throw UsageError(message: "\(command) takes \(form), got \(operands.count) argument(s)") }
        }
        switch command {
        case "import": try expect(!operands.isEmpty, "FILE.igc…")
        case "edit": try expect(operands.count >= 3, "COLLECTION ID FIELD=VALUE…")
        case "open": try expect(operands.count == 1, "ID")
        case "delete": try expect(operands.count == 2, "COLLECTION ID")
        default: try expect(operands.isEmpty, "no arguments")
        }
    }

    /// The collection named on the command line (not the profile: the engine keeps `users/{uid}`).
    static func collection(_ name: String) throws(SyncCommandError) -> SyncCollection {
        guard let c = SyncCollection(rawValue: name), c != .users else {
            let names = SyncCollection.pushOrder.map(\.rawValue).joined(separator: ", ")
            throw .record("no collection \(name.shownArgument); one of \(names)")
        }
        return c
    }

    /// A record id from the command line, checked by Firestore's document-id rules before any
    /// message names it: one over 1,500 bytes is refused, shown as an excerpt.
    /// - Throws: ``SyncCommandError/record(_:)`` naming the rule broken.
    static func recordId(_ id: String, in collection: SyncCollection) throws(SyncCommandError) -> String {
        do { try DocumentIds.validate(documentId: id) } catch {
            throw .record("\(collection.rawValue)/\(id.shownArgument): \(error)")
        }
        return id
    }
}
