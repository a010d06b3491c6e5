import VultureConformance
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// The settings operations of the testee protocol (schema §2 settings/synced, §5.3, §5.5),
/// answered by ``SettingsCodec`` and, for the merge, the engine's ``SettingsEntryMerge``:
///
/// - `settings.fromIOS`: `{"kvs": {iosKey: value}, "changedAt": {iosKey: ms}, "deviceId": "…"}` →
///   `{"values": {keyId: {v, t, d}}}`, one entry for each of the 42 keys. `kvs` holds the iOS
///   key-value store's plist values (booleans, integers, doubles, strings); `changedAt` (optional,
///   epoch milliseconds of the device clock) names the keys the user changed — the others carry
///   `t = 0`.
/// - `settings.toIOS`: `{"values": {keyId: value}}` (plain values, not entries) →
///   `{"kvs": {iosKey: value}}` in the iCloud KVS form (enum raw values, unit indexes).
/// - `settings.merge`: `{"local": {keyId: entry}, "remote": {keyId: entry}}` →
///   `{"values": merged}`: per key the larger `t` wins, a tie goes to `remote` (the cloud).
///
/// Errors: `input.shape` when a member is missing or of the wrong kind (`kvs`, `values`, `local`,
/// `remote` not maps; `changedAt` not a map of integers; `deviceId` not a string). Values inside
/// the maps are never rejected: the codec's fallbacks (defaults, first unit, clamping) decide them.
enum SettingsOperations {
    /// The three operations over `schema`'s settings tables; empty without a schema.
    static func table(schema: SyncSchema?) -> [String: ReferenceImplementation.Operation] {
        guard let schema else { return [:] }
        let codec = SettingsCodec(schema: schema)
        return [
            "settings.fromIOS": { input throws(OperationError) in
                let i = try OperationInput(input)
                let kvs = try i.map("kvs")
                let deviceId = try i.string("deviceId")
                var changedAt: [String: Int64] = [:]
                switch i.fields["changedAt"] {
                case nil, .null?:
                    break
                case .map(let m)?:
                    for (key, value) in m {
                        guard case .integer(let ms) = value else {
                            throw OperationError(
                                .inputShape,
                                message: "input.changedAt.\(key) must be an integer (epoch milliseconds)")
                        }
                        changedAt[key] = ms
                    }
                default:
                    throw OperationError(.inputShape, message: "input.changedAt must be a map")
                }
                let entries = codec.entries(fromIOS: kvs, changedAt: changedAt, deviceId: deviceId)
                return .map(["values": .map(entries)])
            },
            "settings.toIOS": { input throws(OperationError) in
                let values = try OperationInput(input).map("values")
                return .map(["kvs": .map(codec.iosValues(fromCloud: values))])
            },
            "settings.merge": { input throws(OperationError) in
                let i = try OperationInput(input)
                let merged = SettingsEntryMerge.mergeValues(local: try i.map("local"), remote: try i.map("remote"))
                return .map(["values": .map(merged)])
            },
        ]
    }
}
