/// The settings codec: iOS key-value-store values ↔ the cloud's `settings/synced` values,
/// driven by the settings key table (schema §2 settings/synced and its unit table; 001 §3.2).
///
/// The iOS side is a dictionary of plist values by iOS key, in typed JSON: booleans, integers
/// (enum raw values, unit indexes, counts), doubles (coordinates, radii in m, angles in degrees,
/// opacity) and strings. The cloud side is a dictionary by key id of typed values: enums as their
/// case names (`"fiveTurnpoints"`), units as unit ids (`"kph"`), the home base as
/// `{name, latitude, longitude}` or null, each zone as `{type, isLine, r1, a1, r2, a2, a12}`.
///
/// Rules: an unknown enum raw value, unit index or unit id falls back to the key's default /
/// the first unit, as iOS does; `VultureShowTrack` is written to both `showOptimizedTrack` and
/// `isInFlightCurrentTrackVisible` and read back from `showOptimizedTrack`; a key missing from the
/// iOS store takes its default.
public struct SettingsCodec: Sendable {
    public let schema: SyncSchema

    public init(schema: SyncSchema) {
        self.schema = schema
    }

    /// The cloud value of every settings key, from an iOS key-value store (missing keys → defaults).
    public func cloudValues(fromIOS kvs: [String: FirestoreValue]) -> [String: FirestoreValue] {
        var out: [String: FirestoreValue] = [:]
        for key in schema.settingsKeys {
            out[key.key] = cloudValue(of: key, kvs: kvs) ?? key.defaultValue
        }
        return out
    }

    /// The iOS key-value-store entries for cloud values; keys absent from `values` are left out.
    public func iosValues(fromCloud values: [String: FirestoreValue]) -> [String: FirestoreValue] {
        var out: [String: FirestoreValue] = [:]
        for key in schema.settingsKeys {
            guard let v = values[key.key] else { continue }
            switch key.iosMapping {
            case .direct:
                out[key.iosKeys[0]] = v
            case .showTrackShared:
                out[key.iosKeys[0]] = v
            case .showTrackWriteOnly:
                // Read back from the shared key's own row (showOptimizedTrack), never from this one.
                continue
            case .enumRawValue:
                guard case .enumeration(let name) = key.type, let e = schema.enumeration(named: name),
                    let c = e.cases.first(where: { $0.cloudValue == v })
                        ?? e.cases.first(where: { $0.cloudValue == key.defaultValue }),
                    let raw = c.iosValue
                else { continue }
                out[key.iosKeys[0]] = .integer(Int64(raw))
            case .unitIndex:
                guard case .unit(let name) = key.type, let table = schema.unitTable(named: name) else { continue }
                let id: String = if case .string(let s) = v { s } else { table.units[0] }
                out[key.iosKeys[0]] = .integer(Int64(table.iosIndex(unit: id)))
            case .homeBaseKeys:
                guard case .map(let m) = v else {
                    // null: no home base; iOS stores no name.
                    out[key.iosKeys[0]] = .string("")
                    continue
                }
                out[key.iosKeys[0]] = m["name"] ?? .string("")
                out[key.iosKeys[1]] = m["latitude"] ?? .double(0)
                out[key.iosKeys[2]] = m["longitude"] ?? .double(0)
            case .zoneKeys:
                guard case .map(let m) = v else { continue }
                for (i, field) in Self.zoneFields.enumerated() {
                    guard var fv = m[field] else { continue }
                    if field == "type", case .integer = fv {
                    } else if field == "type" {
                        fv = .integer(1)
                    }
                    out[key.iosKeys[i]] = fv
                }
            }
        }
        return out
    }

    /// The zone map's fields in the order of the seven iOS keys (Type, Line, R1, A1, R2, A2, A12).
    public static let zoneFields = ["type", "isLine", "r1", "a1", "r2", "a2", "a12"]

    func cloudValue(of key: SchemaSettingsKey, kvs: [String: FirestoreValue]) -> FirestoreValue? {
        switch key.iosMapping {
        case .direct, .showTrackShared, .showTrackWriteOnly:
            guard let v = kvs[key.iosKeys[0]] else { return nil }
            return coerce(v, to: key.type) ?? key.defaultValue
        case .enumRawValue:
            guard case .integer(let raw)? = kvs[key.iosKeys[0]], case .enumeration(let name) = key.type,
                let e = schema.enumeration(named: name)
            else { return kvs[key.iosKeys[0]] == nil ? nil : key.defaultValue }
            return e.cases.first(where: { $0.iosValue.map(Int64.init) == raw })?.cloudValue ?? key.defaultValue
        case .unitIndex:
            guard case .unit(let name) = key.type, let table = schema.unitTable(named: name),
                let v = kvs[key.iosKeys[0]]
            else { return nil }
            let index: Int = if case .integer(let i) = v, let small = Int(exactly: i) { small } else { -1 }
            return .string(table.unit(iosIndex: index))
        case .homeBaseKeys:
            guard let nameValue = kvs[key.iosKeys[0]] else {
                return kvs[key.iosKeys[1]] == nil && kvs[key.iosKeys[2]] == nil ? nil : .null
            }
            guard case .string(let name) = nameValue, !name.isEmpty else { return .null }
            return .map([
                "name": .string(name),
                "latitude": coerce(kvs[key.iosKeys[1]] ?? .double(0), to: .double) ?? .double(0),
                "longitude": coerce(kvs[key.iosKeys[2]] ?? .double(0), to: .double) ?? .double(0),
            ])
        case .zoneKeys:
            guard key.iosKeys.contains(where: { kvs[$0] != nil }), case .map(let defaults) = key.defaultValue else {
                return nil
            }
            var zone = defaults
            for (i, field) in Self.zoneFields.enumerated() {
                guard let v = kvs[key.iosKeys[i]] else { continue }
                let type: SchemaFieldType = field == "type" ? .integer : field == "isLine" ? .boolean : .double
                if let c = coerce(v, to: type) { zone[field] = c }
            }
            if let e = schema.enumeration(named: "ZoneType"), let t = zone["type"],
                !e.cases.contains(where: { $0.cloudValue == t })
            {
                zone["type"] = defaults["type"]
            }
            return .map(zone)
        }
    }

    /// A plist value as the cloud type wants it: integers widen to doubles, 0/1 integers to booleans
    /// (NSNumber's bridging); anything else that does not fit is nil.
    func coerce(_ v: FirestoreValue, to type: SchemaFieldType) -> FirestoreValue? {
        switch (type, v) {
        case (.boolean, .boolean), (.integer, .integer), (.double, .double), (.string, .string): return v
        case (.double, .integer(let i)): return .double(Double(i))
        case (.boolean, .integer(let i)) where i == 0 || i == 1: return .boolean(i == 1)
        case (.integer, .double(let d)) where d.rounded() == d && abs(d) < 9e15: return .integer(Int64(d))
        default: return nil
        }
    }

    /// The `values` map of settings/synced: `{keyId: {v, t, d}}` for every key (schema §2).
    ///
    /// - Parameters:
    ///   - kvs: the iOS key-value store.
    ///   - changedAt: when the user last changed each iOS key, epoch milliseconds (device clock);
    ///     a key the user never changed carries `t = 0`, so the cloud wins over a first-run default
    ///     (schema §5.3, settings key rule). A key id built from several iOS keys takes the latest.
    ///   - deviceId: `d`, the writing device's id.
    public func entries(
        fromIOS kvs: [String: FirestoreValue], changedAt: [String: Int64], deviceId: String
    ) -> [String: FirestoreValue] {
        let values = cloudValues(fromIOS: kvs)
        var out: [String: FirestoreValue] = [:]
        for key in schema.settingsKeys {
            let keys = key.iosMapping == .showTrackWriteOnly ? [key.iosKeys[0]] : key.iosKeys
            let t = keys.compactMap { changedAt[$0] }.max() ?? 0
            out[key.key] = .map(["v": values[key.key] ?? key.defaultValue, "t": .integer(t), "d": .string(deviceId)])
        }
        return out
    }
}

extension SettingsCodec {
    /// Merges one settings key (schema §5.3 settings rule, §5.5): the entry with the larger `t`
    /// wins; the same `t` goes to the cloud (`remote`), so every device converges.
    /// Entries are `{v, t, d}` maps; a malformed `t` counts as 0.
    public static func mergeEntry(local: FirestoreValue, remote: FirestoreValue) -> FirestoreValue {
        func t(_ e: FirestoreValue) -> Int64 {
            if case .integer(let t)? = e.mapValue?["t"] { return t }
            return 0
        }
        return t(local) > t(remote) ? local : remote
    }

    /// Merges two `values` maps key by key with ``mergeEntry(local:remote:)``; a key on one side
    /// only is kept.
    public static func mergeValues(local: [String: FirestoreValue], remote: [String: FirestoreValue]) -> [String:
        FirestoreValue]
    {
        var out = remote
        for (k, l) in local {
            out[k] = remote[k].map { mergeEntry(local: l, remote: $0) } ?? l
        }
        return out
    }
}
