import Foundation
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// Who the state directory is: `DIR/device.json` (canonical typed JSON) holds the uid, the device
/// id and platform chosen when it was made, and the last sync error (`status` shows it).
struct DeviceIdentity {
    let file: URL
    let uid: String
    let deviceId: String
    let platform: Platform
    private(set) var lastError: String?

    /// Opens the identity of `directory`, or makes one (unless `existing`): the device id `--device`
    /// names, or a new one.
    /// - Parameter existing: the command only reads the state (`status`, `dump`): a folder without
    ///   one is refused rather than made, so a mistyped `--state` is not shown as an empty device.
    /// - Throws: ``SyncCommandError/state(path:reason:)`` for a directory made for another uid,
    ///   device or platform, a file this version did not write, a database without its `device.json`
    ///   (whose user cannot be told), or no state where `existing` wants one;
    ///   ``SyncCommandError/file(path:reason:)``.
    static func open(
        _ directory: URL, uid: String, device: String?, platform: Platform?, existing: Bool = false
    ) throws(SyncCommandError) -> DeviceIdentity {
        let file = directory.appendingPathComponent("device.json")
        if let data = FileManager.default.contents(atPath: file.path) {
            let value: FirestoreValue
            do { value = try CanonicalJSON.decode(data, file: file.path) } catch {
                throw .state(path: file.path, reason: "\(error)")
            }
            guard case .map(let m) = value, m["formatVersion"] == .integer(1), case .string(let storedUid)? = m["uid"],
                case .string(let storedDevice)? = m["deviceId"], case .string(let p)? = m["platform"],
                let storedPlatform = Platform(rawValue: p)
            else {
                throw .state(path: file.path, reason: "not a device file of format 1 (uid, deviceId, platform)")
            }
            if storedUid != uid {
                throw .state(
                    path: file.path, reason: "this state is user \(storedUid), not \(uid): use another --state")
            }
            if let device, device != storedDevice {
                throw .state(
                    path: file.path,
                    reason: "this state is device \(storedDevice), not \(device.shownArgument): --device is "
                        + "fixed when the folder is made; leave it out, or use another --state")
            }
            if let platform, platform != storedPlatform {
                throw .state(
                    path: file.path,
                    reason: "this state is platform \(storedPlatform.rawValue), not \(platform.rawValue): "
                        + "--platform is fixed when the folder is made; leave it out, or use another --state")
            }
            var lastError: String?
            if case .string(let e)? = m["lastError"] { lastError = e }
            return DeviceIdentity(
                file: file, uid: uid, deviceId: storedDevice, platform: storedPlatform, lastError: lastError)
        }
        var isFolder: ObjCBool = false
        let folderExists = FileManager.default.fileExists(atPath: directory.path, isDirectory: &isFolder)
        if folderExists, !isFolder.boolValue {
            throw .file(path: directory.path, reason: "a file, not a folder (--state names the device's folder)")
        }
        // A database whose device file is gone belongs to a user nobody can name: taking it over
        // under this --uid would push another pilot's records into this account.
        for name in [SQLiteLocalStore.fileName, "state.json"]
        where FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path) {
            throw .state(
                path: file.path,
                reason: "missing beside \(name), so this state's user and device cannot be told: "
                    + "restore device.json, or use another --state")
        }
        if existing {
            throw .state(
                path: directory.path,
                reason: "no device state here (no device.json): status and dump read a state that import, "
                    + "edit, open, delete, push, pull or sync made; check --state")
        }
        if let device {
            do { try DocumentIds.validate(documentId: device) } catch {
                throw .state(
                    path: file.path,
                    reason: "--device \(device.shownArgument): \(error)")
            }
        }
        let random = UUID().uuidString.lowercased().prefix(8)
        let identity = DeviceIdentity(
            file: file, uid: uid, deviceId: device ?? "vulture-sync-\(random)", platform: platform ?? .android,
            lastError: nil)
        do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            throw .file(path: directory.path, reason: systemReason(of: error))
        }
        try identity.save()
        return identity
    }

    func save() throws(SyncCommandError) {
        let value: FirestoreValue = .map([
            "formatVersion": .integer(1), "uid": .string(uid), "deviceId": .string(deviceId),
            "platform": .string(platform.rawValue), "lastError": lastError.map { .string($0) } ?? .null,
        ])
        do { try Data(CanonicalJSON.encode(value)).write(to: file, options: .atomic) } catch {
            throw .file(path: file.path, reason: systemReason(of: error))
        }
    }

    /// Keeps `message` (with the time) as the last error, or clears it with nil.
    mutating func recordError(_ message: String?) throws(SyncCommandError) {
        lastError = message.map { "\(SyncCommand.systemClock().rfc3339): \($0)" }
        try save()
    }
}
