import VultureSchemaCore

/// The settings codec: iOS key-value-store values ↔ the cloud's `settings/synced` values,
/// driven by the settings key table (schema §2 settings/synced and its unit table; 001 §3.2).
///
/// The iOS side is a dictionary of plist values by iOS key, in typed JSON: booleans, integers
/// (enum raw values, unit indexes, counts), doubles (coordinates, radii in m, angles in degrees,
/// opacity) and strings. The cloud side is a dictionary by key id of typed values: enums as their
/// case names (`"fiveTurnpoints"`), units as unit ids (`"kph"`), the home base as
/// `{name, latitude, longitude}` or null, each zone as `{type, isLine, r1, a1, r2, a2, a12}` with
/// `type` the CUP style integer 0–4.
///
/// Rules (schema §2, 001 §3.1–3.2):
/// - A key missing from the iOS store takes its default (`Spec/settings-keys.tsv`); MapStyle
///   `adaptive` is such a key (absent locally on iOS, raw 0 in iCloud; both read as `"adaptive"`).
/// - An unknown unit index or unit id falls back to the table's first unit, as iOS does.
/// - An unknown enum raw value or cloud value falls back to the key's default.
/// - `VultureShowTrack` is written to both `showOptimizedTrack` and `isInFlightCurrentTrackVisible`;
///   on the way back iOS reads `VultureShowTrack` from `showOptimizedTrack` only and stores
///   `isInFlightCurrentTrackVisible` in `VultureIsTrackVisible` (`Spec/pins.tsv` showTrackPull).
///   `VultureIsTrackVisible` is never read on the way to the cloud.
/// - The home base comes from three keys: a non-empty name gives `{name, latitude, longitude}`
///   (a missing coordinate reads 0.0, as iOS reads a missing Double); an empty or non-string name,
///   or coordinates without a name, give null (no home base); no key at all gives the default.
///   Null goes back to iOS as an empty name, the coordinates left alone.
/// - Each default zone comes from seven keys; a zone field whose key is missing or unusable takes
///   the key's default zone's value (the zone iOS seeds on first launch).
///
/// Pin notes (choices where the seeds are silent; rows settingsClamp, settingsPlistBridging,
/// settingsFloatOpacity, settingsHomeBaseFallback and settingsZoneFallback of `Spec/pins.tsv`):
/// - **Out of range → clamp.** A number outside its key's range (`flarmLoggerInterval` 1…8,
///   `skySightOverlayOpacity` 0.1…1.0) or its map field's limits (zone radii 0…50 000 m, angles
///   0…180°, latitude ±90°, longitude ±180°) is clamped into it, and a zone radius is rounded to
///   its step of 100 m (half away from zero). iOS clamps the opacity read to at least 0.1
///   (001 §3.2); clamping keeps the user's intent nearer than a reset to the default would.
///   A NaN or infinite number is unusable and takes the default instead.
/// - **Plist bridging.** Booleans, integers and doubles are all `NSNumber`s in a plist, so a key
///   reads any of them as its own type, as `NSNumber` does: `boolValue` (non-zero is true),
///   `int64Value` (a double truncated toward zero; NaN, ±∞ and values beyond int64 unusable),
///   `doubleValue` (true is 1.0). A string is never a number. A value of no usable kind takes the
///   key's default (or, for a unit index, the first unit).
/// - **Float opacity.** `skySightOverlayOpacity` is a `Float` on iOS; a double that is exactly a
///   `Float` is written as that `Float`'s shortest decimal (`0.30000001192092896` → `0.3`), so iOS
///   and Android write the same number.
/// - The same fallbacks apply to cloud values on the way to iOS (``normalizedCloudValue(_:of:)``).
public struct SettingsCodec: Sendable {
    /// The schema whose settings key, unit and enum tables drive the codec (normally `SyncSchema.vulture`).
    public let schema: SyncSchema

    /// A codec over `schema`'s settings tables.
    public init(schema: SyncSchema) {
        self.schema = schema
    }

    /// The zone map's fields in the order of the seven iOS keys (Type, Line, R1, A1, R2, A2, A12).
    public static let zoneFields = [
        ZoneValue.Field.type, ZoneValue.Field.isLine, ZoneValue.Field.r1, ZoneValue.Field.a1, ZoneValue.Field.r2,
        ZoneValue.Field.a2, ZoneValue.Field.a12,
    ]

    /// The cloud value of every settings key (all 42 of `Spec/settings-keys.tsv`), from an iOS
    /// key-value store; missing keys take their defaults and unusable values fall back as the type
    /// documentation says. Keys of `kvs` the table does not name are ignored.
    public func cloudValues(fromIOS kvs: [String: FirestoreValue]) -> [String: FirestoreValue] {
        var out: [String: FirestoreValue] = [:]
        for key in schema.settingsKeys {
            out[key.key] = cloudValue(of: key, kvs: kvs)
        }
        return out
    }

    /// The iOS key-value-store values (the iCloud KVS form: MapStyle `adaptive` as raw 0) for cloud
    /// values by key id. Keys absent from `values`, and key ids the table does not name, are left
    /// out; a value that does not fit its key is read as ``normalizedCloudValue(_:of:)`` says.
    public func iosValues(fromCloud values: [String: FirestoreValue]) -> [String: FirestoreValue] {
        var out: [String: FirestoreValue] = [:]
        for key in schema.settingsKeys {
            guard let raw = values[key.key] else { continue }
            let v = normalizedCloudValue(raw, of: key)
            switch key.iosMapping {
            case .direct, .showTrackShared:
                out[key.iosKeys[0]] = v
            case .showTrackWriteOnly:
                // Pin showTrackPull: never back into the shared VultureShowTrack (read from
                // showOptimizedTrack); stored in the second key, VultureIsTrackVisible.
                if key.iosKeys.count > 1 { out[key.iosKeys[1]] = v }
            case .enumRawValue:
                guard case .enumeration(let name) = key.type, let e = schema.enumeration(named: name),
                    let raw = e.cases.first(where: { $0.cloudValue == v })?.iosValue
                else { continue }
                out[key.iosKeys[0]] = .integer(Int64(raw))
            case .unitIndex:
                guard case .unit(let name) = key.type, let table = schema.unitTable(named: name),
                    case .string(let id) = v
                else { continue }
                out[key.iosKeys[0]] = .integer(Int64(table.iosIndex(unit: id)))
            case .homeBaseKeys:
                guard key.iosKeys.count == 3 else { continue }
                guard case .map(let m) = v else {
                    out[key.iosKeys[0]] = .string("")
                    continue
                }
                out[key.iosKeys[0]] = m[HomeBaseValue.Field.name] ?? .string("")
                out[key.iosKeys[1]] = m[HomeBaseValue.Field.latitude] ?? .double(0)
                out[key.iosKeys[2]] = m[HomeBaseValue.Field.longitude] ?? .double(0)
            case .zoneKeys:
                guard case .map(let m) = v, key.iosKeys.count == Self.zoneFields.count else { continue }
                for (i, field) in Self.zoneFields.enumerated() {
                    if let fv = m[field] { out[key.iosKeys[i]] = fv }
                }
            }
        }
        return out
    }

    /// The `values` map of settings/synced: `{keyId: {v, t, d}}` for every key (schema §2).
    ///
    /// - Parameters:
    ///   - kvs: the iOS key-value store.
    ///   - changedAt: when the user last changed each iOS key, epoch milliseconds (device clock);
    ///     a key the user never changed carries `t = 0`, so the cloud wins over a first-run default
    ///     (schema §5.3, settings key rule). A key id built from several iOS keys takes the latest;
    ///     `isInFlightCurrentTrackVisible` takes `VultureShowTrack`'s time only. A negative time
    ///     counts as 0.
    ///   - deviceId: `d`, the writing device's id.
    public func entries(
        fromIOS kvs: [String: FirestoreValue], changedAt: [String: Int64], deviceId: String
    ) -> [String: FirestoreValue] {
        var out: [String: FirestoreValue] = [:]
        for key in schema.settingsKeys {
            let keys = key.iosMapping == .showTrackWriteOnly ? Array(key.iosKeys.prefix(1)) : key.iosKeys
            let t = max(0, keys.compactMap { changedAt[$0] }.max() ?? 0)
            out[key.key] = .map([
                SettingsEntry.Field.v: cloudValue(of: key, kvs: kvs), SettingsEntry.Field.t: .integer(t),
                SettingsEntry.Field.d: .string(deviceId),
            ])
        }
        return out
    }

    /// A cloud value as its key's type and range allow it (the reading side of the fallbacks):
    /// numbers bridged and clamped, an unknown enum value → the key's default, an unknown unit id →
    /// the first unit, null only where the key is nullable, a home base without a non-empty name →
    /// null, zone fields completed from the key's default zone. Never fails.
    public func normalizedCloudValue(_ v: FirestoreValue, of key: SchemaSettingsKey) -> FirestoreValue {
        if v == .null { return key.isNullable ? .null : key.defaultValue }
        switch key.type {
        case .map("HomeBaseValue"):
            return homeBase(from: v.mapValue, key: key)
        case .map(let owner):
            guard case .map(let m) = v else { return key.defaultValue }
            return mapValue(m, owner: owner, defaults: key.defaultValue.mapValue ?? [:])
        case .unit(let name):
            guard let table = schema.unitTable(named: name), let first = table.units.first else {
                return key.defaultValue
            }
            if case .string(let id) = v, table.units.contains(id) { return v }
            return .string(first)
        default:
            var limits = SchemaFieldLimits()
            if let r = key.range {
                limits.minimum = r.lowerBound
                limits.maximum = r.upperBound
            }
            return scalar(v, type: key.type, limits: limits) ?? key.defaultValue
        }
    }

    // MARK: - iOS → cloud

    func cloudValue(of key: SchemaSettingsKey, kvs: [String: FirestoreValue]) -> FirestoreValue {
        guard let first = key.iosKeys.first else { return key.defaultValue }
        switch key.iosMapping {
        case .direct, .showTrackShared, .showTrackWriteOnly:
            guard var v = kvs[first] else { return key.defaultValue }
            if key.type == .double, let d = PlistNumber.double(v) { v = .double(Self.shortestFloatReading(d)) }
            return normalizedCloudValue(v, of: key)
        case .enumRawValue:
            guard let v = kvs[first] else { return key.defaultValue }
            guard let raw = PlistNumber.integer(v), case .enumeration(let name) = key.type,
                let e = schema.enumeration(named: name),
                let c = e.cases.first(where: { $0.iosValue.map(Int64.init) == raw })
            else { return key.defaultValue }
            return c.cloudValue
        case .unitIndex:
            guard let v = kvs[first] else { return key.defaultValue }
            guard case .unit(let name) = key.type, let table = schema.unitTable(named: name), !table.units.isEmpty
            else { return key.defaultValue }
            let index = PlistNumber.integer(v).flatMap { Int(exactly: $0) } ?? 0
            return .string(table.unit(iosIndex: index))
        case .homeBaseKeys:
            guard key.iosKeys.count == 3, key.iosKeys.contains(where: { kvs[$0] != nil }) else {
                return key.defaultValue
            }
            guard case .string(let name)? = kvs[key.iosKeys[0]], !name.isEmpty else { return .null }
            return homeBase(
                from: [
                    HomeBaseValue.Field.name: .string(name),
                    HomeBaseValue.Field.latitude: kvs[key.iosKeys[1]] ?? .double(0),
                    HomeBaseValue.Field.longitude: kvs[key.iosKeys[2]] ?? .double(0),
                ], key: key)
        case .zoneKeys:
            guard key.iosKeys.count == Self.zoneFields.count, key.iosKeys.contains(where: { kvs[$0] != nil }),
                case .map(let defaults) = key.defaultValue
            else { return key.defaultValue }
            var zone: [String: FirestoreValue] = [:]
            for (i, field) in Self.zoneFields.enumerated() {
                if let v = kvs[key.iosKeys[i]] { zone[field] = v }
            }
            return mapValue(zone, owner: "ZoneValue", defaults: defaults)
        }
    }

    /// `d` read as the `Float` iOS stores, when it is exactly one: that `Float`'s shortest decimal.
    static func shortestFloatReading(_ d: Double) -> Double {
        guard d.isFinite else { return d }
        let f = Float(d)
        guard f.isFinite, Double(f) == d, let shortest = Double(f.description) else { return d }
        return shortest
    }

    // MARK: - Values by type

    /// `{name, latitude, longitude}` from a map, or null without a non-empty name; coordinates
    /// bridged, clamped to their limits, 0.0 when missing or unusable.
    func homeBase(from m: [String: FirestoreValue]?, key: SchemaSettingsKey) -> FirestoreValue {
        guard let m else { return key.isNullable ? .null : key.defaultValue }
        guard case .string(let name)? = m[HomeBaseValue.Field.name], !name.isEmpty else {
            return key.isNullable ? .null : key.defaultValue
        }
        var out: [String: FirestoreValue] = [HomeBaseValue.Field.name: .string(name)]
        for field in schema.fields(of: "HomeBaseValue") where field.name != HomeBaseValue.Field.name {
            out[field.name] =
                m[field.name].flatMap { scalar($0, type: field.type, limits: field.limits) }
                ?? field.defaultValue ?? .double(0)
        }
        return .map(out)
    }

    /// A map of `owner`'s fields (`ZoneValue`): each field bridged to its type and limits, or the
    /// default map's value when missing or unusable. Fields the owner does not declare are dropped.
    func mapValue(
        _ m: [String: FirestoreValue], owner: String, defaults: [String: FirestoreValue]
    ) -> FirestoreValue {
        var out: [String: FirestoreValue] = [:]
        for field in schema.fields(of: owner) {
            if let v = m[field.name], let s = scalar(v, type: field.type, limits: field.limits) {
                out[field.name] = s
            } else if let d = defaults[field.name] ?? field.defaultValue {
                out[field.name] = d
            }
        }
        return .map(out)
    }

    /// A scalar as `type` wants it (plist bridging, clamped to `limits`, rounded to the step), or
    /// nil when it cannot be read as that type.
    func scalar(_ v: FirestoreValue, type: SchemaFieldType, limits: SchemaFieldLimits) -> FirestoreValue? {
        switch type {
        case .boolean:
            return PlistNumber.bool(v).map { .boolean($0) }
        case .integer:
            guard let i = PlistNumber.integer(v) else { return nil }
            var d = Double(i)
            if let lo = limits.minimum, d < lo { d = lo.rounded(.up) }
            if let hi = limits.maximum, d > hi { d = hi.rounded(.down) }
            return .integer(Double(i) == d ? i : Int64(d))
        case .double:
            guard var d = PlistNumber.double(v) else { return nil }
            if let step = limits.step, step > 0 {
                d = (d / step).rounded(.toNearestOrAwayFromZero) * step
            }
            if let lo = limits.minimum, d < lo { d = lo }
            if let hi = limits.maximum, d > hi { d = hi }
            return .double(d == 0 ? 0 : d)  // never -0 (rounding -10 m to the step gives -0)
        case .string:
            if case .string = v { return v }
            return nil
        case .enumeration(let name):
            guard let e = schema.enumeration(named: name) else { return nil }
            if e.cases.contains(where: { $0.cloudValue == v }) { return v }
            // Integer-valued enums (ZoneType) bridge a number like any other integer.
            if case .integer? = e.cases.first?.cloudValue, let i = PlistNumber.integer(v),
                e.cases.contains(where: { $0.cloudValue == .integer(i) })
            {
                return .integer(i)
            }
            return nil
        default:
            return nil
        }
    }
}

/// `NSNumber` bridging of plist values (booleans, integers and doubles are all numbers).
enum PlistNumber {
    /// `boolValue`: non-zero is true; NaN and non-numbers are unusable.
    static func bool(_ v: FirestoreValue) -> Bool? {
        switch v {
        case .boolean(let b): b
        case .integer(let i): i != 0
        case .double(let d) where !d.isNaN: d != 0
        default: nil
        }
    }

    /// `int64Value`: a double truncated toward zero; NaN, ±∞ and doubles beyond int64 are unusable.
    static func integer(_ v: FirestoreValue) -> Int64? {
        switch v {
        case .integer(let i): i
        case .boolean(let b): b ? 1 : 0
        case .double(let d): d.isFinite ? Int64(exactly: d.rounded(.towardZero)) : nil
        default: nil
        }
    }

    /// `doubleValue`; NaN and ±∞ are unusable.
    static func double(_ v: FirestoreValue) -> Double? {
        switch v {
        case .double(let d): d.isFinite ? d : nil
        case .integer(let i): Double(i)
        case .boolean(let b): b ? 1 : 0
        default: nil
        }
    }
}
