import Testing
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// The settings rule (schema §5.3, §5.5): per key the larger `t`, a tie to the cloud, t = 0 for a
/// value never changed; moved here with the merge from the settings codec.
@Suite struct SettingsEntryMergeTests {
    static func entry(_ v: FirestoreValue, _ t: Int64, _ d: String) -> FirestoreValue {
        .map(["v": v, "t": .integer(t), "d": .string(d)])
    }

    @Test(arguments: [
        (entry(.boolean(true), 200, "local"), entry(.boolean(false), 100, "cloud"), "local"),
        (entry(.boolean(true), 100, "local"), entry(.boolean(false), 200, "cloud"), "cloud"),
        (entry(.boolean(true), 100, "local"), entry(.boolean(false), 100, "cloud"), "cloud"),
        (entry(.boolean(true), 0, "local"), entry(.boolean(false), 0, "cloud"), "cloud"),
        (entry(.boolean(true), 0, "local"), entry(.boolean(false), 1, "cloud"), "cloud"),
        (
            entry(.boolean(true), 1, "local"), .map(["v": .boolean(false), "t": .double(5), "d": .string("cloud")]),
            "local"
        ),
        (entry(.boolean(true), 1, "local"), .string("garbage"), "local"),
    ])
    func largerTimeWinsTieGoesToTheCloud(local: FirestoreValue, remote: FirestoreValue, winner: String) {
        let merged = SettingsEntryMerge.merge(local: local, remote: remote, tie: .server)
        #expect(merged == (winner == "local" ? local : remote))
    }

    @Test func aLocalTieRuleKeepsTheLocalEntry() {
        let local = Self.entry(.string("kt"), 7, "a")
        let remote = Self.entry(.string("mph"), 7, "b")
        #expect(SettingsEntryMerge.merge(local: local, remote: remote, tie: .local) == local)
        #expect(SettingsEntryMerge.merge(local: nil, remote: remote, tie: .local) == remote)
        #expect(SettingsEntryMerge.merge(local: local, remote: nil, tie: .server) == local)
    }

    @Test func anUntouchedLocalStoreLosesToEveryCloudValue() {
        let codec = SettingsCodec(schema: .vulture)
        let local = codec.entries(fromIOS: [:], changedAt: [:], deviceId: "fresh")
        let remote = codec.entries(
            fromIOS: ["VultureAnnotationStyle": .integer(2), "VultureMapStyle": .integer(3)],
            changedAt: ["VultureAnnotationStyle": 1_700_000_000_000], deviceId: "old")
        #expect(local.count == remote.count && local != remote)
        #expect(SettingsEntryMerge.mergeValues(local: local, remote: remote) == remote)
    }

    @Test func mergeValuesPerKey() {
        let local: [String: FirestoreValue] = [
            "sport": Self.entry(.string("delta"), 500, "a"), "isPinned": Self.entry(.boolean(true), 10, "a"),
            "futureKey": Self.entry(.integer(1), 1, "a"),
        ]
        let remote: [String: FirestoreValue] = [
            "sport": Self.entry(.string("glider"), 400, "b"), "isPinned": Self.entry(.boolean(false), 10, "b"),
            "showWind": Self.entry(.boolean(false), 0, "b"),
        ]
        #expect(
            SettingsEntryMerge.mergeValues(local: local, remote: remote) == [
                "sport": Self.entry(.string("delta"), 500, "a"), "isPinned": Self.entry(.boolean(false), 10, "b"),
                "futureKey": Self.entry(.integer(1), 1, "a"), "showWind": Self.entry(.boolean(false), 0, "b"),
            ])
    }
}
