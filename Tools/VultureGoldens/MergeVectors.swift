import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// Instants of the engine vectors: 2026-11-01T10:00:00Z plus `seconds` and `micros`.
func at(_ seconds: Int64, _ micros: Int32 = 0) -> FirestoreValue {
    guard let t = try? FirestoreTimestamp(seconds: 1_793_527_200 + seconds, microseconds: micros) else {
        fatalError("bad instant \(seconds)s \(micros)µs in a vector definition")
    }
    return .timestamp(t)
}

/// A Storage object path built by the schema module (never spelt out here).
func objectPath(_ build: () throws -> String) -> String {
    guard let path = try? build() else { fatalError("bad object path in a vector definition") }
    return path
}

/// A live stored document edited at `clock` (seconds after 10:00), with the common fields.
func stored(
    _ clock: Int64, _ fields: [String: FirestoreValue], micros: Int32 = 0, by device: String = "android-1"
) -> [String: FirestoreValue] {
    var d: [String: FirestoreValue] = [
        "schema": .integer(1), "updatedAt": at(1), "clientUpdatedAt": at(clock, micros), "updatedBy": .string(device),
        "platform": .string(device.hasPrefix("ios") ? "ios" : "android"), "deleted": .boolean(false),
        "deletedAt": .null,
    ]
    d.merge(fields) { _, new in new }
    return d
}

/// A stored tombstone deleted at `clock`: the common fields only (schema §5.4).
func storedTombstone(_ clock: Int64, by device: String = "ios-2") -> [String: FirestoreValue] {
    [
        "schema": .integer(1), "updatedAt": at(clock + 1), "clientUpdatedAt": at(clock), "updatedBy": .string(device),
        "platform": .string(device.hasPrefix("ios") ? "ios" : "android"), "deleted": .boolean(true),
        "deletedAt": at(clock),
    ]
}

/// `Goldens/vectors/merge.json`: the per-field three-way merge, at least three cases for every row
/// of `Spec/merge-rules.tsv` (schema §5.3–§5.5). A case id is `LEVEL.merge.ROW.NAME`, ROW the
/// row's document (`flight`, `any` for `*`) and field path (`any` for `*`), so a test can count the
/// cases of each row; LEVEL follows from the pins the case rests on (`recommended` for a choice).
struct MergeVectors {
    var cases: [VectorDefinition] = []

    /// A case of row `row` (`flight.igc.uploaded`).
    mutating func add(
        _ row: String, _ name: String, _ collection: String, base: [String: FirestoreValue]?,
        local: [String: FirestoreValue], remote: [String: FirestoreValue], context: [String: FirestoreValue] = [:],
        section: String = "schema §5.3", _ note: String, error: String? = nil, pins: [SchemaPin] = []
    ) {
        var input: [String: FirestoreValue] = [
            "collection": .string(collection), "base": base.map { .map($0) } ?? .null, "local": .map(local),
            "remote": .map(remote),
        ]
        input.merge(context) { _, new in new }
        cases.append(
            VectorDefinition(
                id: "merge.\(row).\(name)", section: section, op: "merge.document", input: .map(input),
                note: note, expectedError: error, pins: Self.rowPins[row, default: []] + pins))
    }

    /// The pins a whole row rests on: the rules of `Spec/merge-rules.tsv` the seed gives for another
    /// collection only.
    static let rowPins: [String: [SchemaPin]] = [
        "task.importedAt": [.importedAtEverywhere], "mapFile.importedAt": [.importedAtEverywhere],
        "recentCompetition.lastOpenedAt": [.lastOpenedAtEverywhere],
    ]

    static func summary(_ version: Int64, _ duration: Int64) -> FirestoreValue {
        .map([
            "analysisVersion": .integer(version), "takeoffAt": at(-7_200), "duration": .integer(duration),
            "altitudeGained": .integer(1_250),
        ])
    }

    static let flightHash = DocumentIds.flightId(igcBytes: Data("HFPLTPILOT:Ann\r\n".utf8))
    static let otherHash = DocumentIds.flightId(igcBytes: Data("HFPLTPILOT:Bob\r\n".utf8))

    static func igc(_ hash: String = flightHash, gz: Int64 = 48_213, uploaded: Bool) -> FirestoreValue {
        .map([
            "path": .string(objectPath { try BlobPaths.igcObjectPath(uid: "u1", flightId: hash) }),
            "sizeBytes": .integer(241_007), "gzBytes": .integer(gz),
            "sha256": .string(hash), "uploaded": .boolean(uploaded),
        ])
    }

    static func content(_ hash: String, gz: Int64 = 9_120, uploaded: Bool) -> FirestoreValue {
        .map([
            "path": .string(objectPath { try BlobPaths.contentObjectPath(uid: "u1", contentHash: hash) }),
            "sizeBytes": .integer(60_311), "gzBytes": .integer(gz),
            "uploaded": .boolean(uploaded),
        ])
    }

    static func entry(_ v: FirestoreValue, _ t: Int64, _ d: String) -> FirestoreValue {
        .map(["v": v, "t": .integer(t), "d": .string(d)])
    }

    static var file: VectorFile {
        var v = MergeVectors()
        v.defaultRule()
        v.tombstones()
        v.clocks()
        v.flags()
        v.earliest()
        v.latest()
        v.ranked()
        v.blobs()
        v.tasks()
        v.settings()
        v.contentHash()
        v.add(
            "input", "sentinel-in-stored-form", "flights", base: nil,
            local: stored(20, ["updatedAt": .serverTimestamp]), remote: stored(10, [:]),
            "documents are in the stored form: a sentinel is refused", error: "value.sentinel-in-stored-form")
        return VectorFile(
            area: "merge",
            summary: "the per-field three-way merge of one document (base, local, remote → the new local row)",
            cases: v.cases)
    }

    // MARK: * * (threeWayLatestClientUpdatedAt)

    mutating func defaultRule() {
        let base = stored(10, ["comments": .string("Wave at Hahnweide"), "rating": .integer(3)])
        add(
            "any.any", "one-side-changed", "flights", base: base,
            local: stored(20, ["comments": .string("Wave at Hahnweide, 5 m/s"), "rating": .integer(3)]),
            remote: stored(30, ["comments": .string("Wave at Hahnweide"), "rating": .integer(5)]),
            "changed only locally → local (comments); only on the server → server (rating)")
        add(
            "any.any", "both-changed-later-clock-wins", "flights", base: base,
            local: stored(40, ["comments": .string("local note"), "rating": .integer(3)]),
            remote: stored(30, ["comments": .string("server note"), "rating": .integer(3)]),
            "changed on both sides: the later clientUpdatedAt (local, 10 s later)")
        add(
            "any.any", "tie-goes-to-server", "tasks", base: stored(10, ["notes": .string("Start at 12:00")]),
            local: stored(30, ["notes": .string("Start at 12:30")], by: "ios-2"),
            remote: stored(30, ["notes": .string("Start at 13:00")]), section: "schema §5.5",
            "both changed at the same clientUpdatedAt: the server's value, so every device converges")
        add(
            "any.any", "microseconds-decide", "homebases", base: stored(10, ["name": .string("Aalen")]),
            local: stored(30, ["name": .string("Aalen-Heidenheim")], micros: 901),
            remote: stored(30, ["name": .string("Elchingen")], micros: 900), section: "schema §5.5",
            "clocks one microsecond apart are no tie: the later (local) wins; compared at milliseconds they would tie")
        add(
            "any.any", "unknown-fields-kept", "flights",
            base: stored(10, ["glideRatio": .double(42.5), "x-ios": .map(["a": .integer(1)])]),
            local: stored(20, ["glideRatio": .double(42.5), "x-ios": .map(["a": .integer(2)])]),
            remote: stored(
                30, ["glideRatio": .double(44.0), "x-ios": .map(["a": .integer(1)]), "winglets": .boolean(true)]),
            "fields this version does not know are kept and merged by the default rule (a map whole)")
        add(
            "any.any", "new-on-both-sides", "recentCompetitions", base: nil,
            local: stored(20, ["name": .string("Hahnweide 2026"), "location": .null]),
            remote: stored(30, ["name": .string("Hahnweide Glider Trophy"), "location": .string("Kirchheim")]),
            "no base (the record is new on both sides): every set field counts as changed; null counts as unset")
        add(
            "any.any", "absent-equals-null", "flights", base: stored(10, ["skylinesFlightId": .null]),
            local: stored(20, [:]), remote: stored(30, ["skylinesFlightId": .null]),
            "an absent field and null are alike: no change on either side")
        add(
            "any.any", "absent-reads-as-default", "flights", base: stored(10, ["comments": .string("first notes")]),
            local: stored(
                20, ["comments": .string("first notes"), "isFavorite": .boolean(true), "waterBallast": .integer(80)]),
            remote: stored(
                30,
                ["comments": .string("notes rewritten"), "isFavorite": .boolean(false), "waterBallast": .integer(0)]),
            "an absent field with a default reads as that default (Goldens/FORMAT.md, The stored form): the server's explicit false and 0 are no change, so the local isFavorite and waterBallast stand; its comments are",
            pins: [.fieldDefaults])
    }

    // MARK: * deleted (tombstoneWins)

    mutating func tombstones() {
        let base = stored(10, ["comments": .string("before")])
        add(
            "any.deleted", "delete-wins-over-edit", "flights", base: base,
            local: stored(90, ["comments": .string("edited after the delete")]), remote: storedTombstone(50),
            context: ["localCreatedAt": at(5)], section: "schema §5.4",
            "the server's tombstone wins over a later local edit of a row that existed before the delete")
        add(
            "any.deleted", "local-delete-wins", "tasks", base: stored(10, ["notes": .string("x")]),
            local: storedTombstone(20), remote: stored(40, ["notes": .string("edited elsewhere")]),
            section: "schema §5.4", "a local delete wins over the server's edit")
        add(
            "any.deleted", "reimport-after-delete-lives", "flights", base: nil,
            local: stored(90, ["comments": .null, "inLogbook": .boolean(true)]), remote: storedTombstone(50),
            context: ["localCreatedAt": at(50, 1)], section: "schema §5.4",
            "a local row created after the remote deletedAt (a re-import) lives again; revived asks for a re-upload")
        add(
            "any.deleted", "created-at-the-delete-instant", "flights", base: nil,
            local: stored(90, ["inLogbook": .boolean(true)]), remote: storedTombstone(50),
            context: ["localCreatedAt": at(50)], section: "schema §5.4 (pinned)",
            "pinned: created at the very instant of the delete is not after it: the tombstone wins",
            pins: [.deleteRevival])
        add(
            "any.deleted", "unknown-creation-time", "homebases", base: stored(10, ["name": .string("Aalen")]),
            local: stored(20, ["name": .string("Aalen")]), remote: storedTombstone(15), section: "schema §5.4 (pinned)",
            "pinned: without the local row's creation time nothing revives", pins: [.deleteRevival])
        add(
            "any.deleted", "revived-elsewhere", "flights", base: storedTombstone(50), local: storedTombstone(50),
            remote: stored(60, ["comments": .string("imported again on Android")]), section: "schema §5.4 (pinned)",
            "pinned: the server revived a tombstone this device still holds unchanged: the live document",
            pins: [.deleteRevival])
    }

    // MARK: * clientUpdatedAt (latestNonNull)

    mutating func clocks() {
        add(
            "any.clientUpdatedAt", "later-remote-clock", "flights", base: stored(10, ["rating": .integer(1)]),
            local: stored(20, ["rating": .integer(2)]), remote: stored(30, ["rating": .integer(1)]),
            section: "schema §5.3 (pinned)", "pinned: the merged row carries the later clock (the server's)",
            pins: [.mergedClientTime])
        add(
            "any.clientUpdatedAt", "later-local-clock", "mapFiles", base: stored(10, ["isVisible": .boolean(true)]),
            local: stored(40, ["isVisible": .boolean(false)]), remote: stored(30, ["isVisible": .boolean(true)]),
            section: "schema §5.3 (pinned)", "pinned: the merged row carries the later clock (the local one)",
            pins: [.mergedClientTime])
        add(
            "any.clientUpdatedAt", "earlier-remote-clock-ignored", "tasks", base: stored(30, ["notes": .null]),
            local: stored(30, ["notes": .string("local")]), remote: stored(25, ["name": .string("Day 3")]),
            section: "schema §5.3 (pinned)",
            "pinned: a remote clock behind the base (a device clock running late) does not take the merged row back",
            pins: [.mergedClientTime])
    }

    // MARK: FlightDocument inLogbook (logicalOr)

    mutating func flags() {
        add(
            "flight.inLogbook", "or-true-wins", "flights", base: stored(10, ["inLogbook": .boolean(true)]),
            local: stored(40, ["inLogbook": .boolean(false)]), remote: stored(30, ["inLogbook": .boolean(true)]),
            "local OR remote: adding a flight to the logbook is never lost, even against a later local change")
        add(
            "flight.inLogbook", "added-on-one-side", "flights", base: stored(10, ["inLogbook": .boolean(false)]),
            local: stored(20, ["inLogbook": .boolean(true)]), remote: stored(30, ["inLogbook": .boolean(false)]),
            "one side added it: true")
        add(
            "flight.inLogbook", "both-false", "flights", base: nil, local: stored(20, ["inLogbook": .boolean(false)]),
            remote: stored(30, ["inLogbook": .boolean(false)]), "neither side has it in the logbook: false")
    }

    // MARK: importedAt, createdAt (earliestNonNull)

    mutating func earliest() {
        for (row, collection, field) in [
            ("flight.createdAt", "flights", "createdAt"), ("flight.importedAt", "flights", "importedAt"),
            ("task.importedAt", "tasks", "importedAt"), ("mapFile.importedAt", "mapFiles", "importedAt"),
        ] {
            add(
                row, "earliest-wins", collection, base: stored(10, [field: at(-3_600)]),
                local: stored(40, [field: at(-1_800)]), remote: stored(30, [field: at(-5_400)]),
                "the earliest non-null time, whatever the clocks")
            add(
                row, "null-side-takes-other", collection, base: stored(10, [field: at(-3_600)]),
                local: stored(40, [field: .null]), remote: stored(30, [field: at(-3_600)]),
                "a side without a time never clears the other's")
            add(
                row, "microseconds", collection, base: nil, local: stored(20, [field: at(-60, 250_001)]),
                remote: stored(30, [field: at(-60, 250_000)]), "times one microsecond apart: the earlier one")
        }
    }

    // MARK: lastOpenedAt, usedAt (latestClearTravels)

    mutating func latest() {
        for (row, collection, field) in [
            ("flight.lastOpenedAt", "flights", "lastOpenedAt"),
            ("recentCompetition.lastOpenedAt", "recentCompetitions", "lastOpenedAt"),
            ("homebase.usedAt", "homebases", "usedAt"),
        ] {
            add(
                row, "latest-of-both", collection, base: stored(10, [field: at(5)]),
                local: stored(40, [field: at(35)]), remote: stored(50, [field: at(32)]),
                "both sides set a new date: the latest, whatever the clocks")
            add(
                row, "clear-travels", collection, base: stored(10, [field: at(5)]), local: stored(40, [field: at(5)]),
                remote: stored(30, [field: .null]), section: "schema §5.5",
                "one side cleared it (Remove from Recents) and the other left the agreed value: the clear wins")
            add(
                row, "new-date-beats-clear", collection, base: stored(10, [field: at(5)]),
                local: stored(50, [field: .null]), remote: stored(30, [field: at(25)]),
                section: "schema §5.5 (pinned)", "pinned: one side cleared it, the other set a new date: the date",
                pins: [.latestClearAgainstNewDate])
        }
    }

    // MARK: summary, trackPreview, trackPreviewVersion (ranked)

    mutating func ranked() {
        add(
            "flight.summary", "higher-version-wins", "flights", base: stored(10, ["summary": Self.summary(1, 19_800)]),
            local: stored(40, ["summary": Self.summary(1, 19_860)]),
            remote: stored(30, ["summary": Self.summary(2, 19_801)]),
            "the whole summary of the higher analysisVersion, even against a later local edit")
        add(
            "flight.summary", "higher-local-kept", "flights", base: stored(10, ["summary": Self.summary(2, 19_800)]),
            local: stored(20, ["summary": Self.summary(2, 19_800)]),
            remote: stored(30, ["summary": Self.summary(1, 19_500)]),
            "an older analysis arriving from the server never replaces a higher version")
        add(
            "flight.summary", "tie-keeps-local", "flights", base: stored(10, ["summary": Self.summary(1, 19_800)]),
            local: stored(20, ["summary": Self.summary(2, 19_840)]),
            remote: stored(30, ["summary": Self.summary(2, 19_850)]),
            "both sides re-analysed with the same version: the local summary")
        add(
            "flight.summary", "tie-only-server-changed", "flights",
            base: stored(10, ["summary": Self.summary(2, 19_800)]),
            local: stored(40, ["summary": Self.summary(2, 19_800)]),
            remote: stored(30, ["summary": Self.summary(2, 19_810)]),
            section: "schema §5.3 (pinned)",
            "pinned: the same version and only the server changed it: the server's, so devices converge",
            pins: [.rankedMergeThreeWay])

        func preview(_ version: Int64, _ bytes: [UInt8]?) -> [String: FirestoreValue] {
            ["trackPreviewVersion": .integer(version), "trackPreview": bytes.map { .bytes(Data($0)) } ?? .null]
        }
        let notMade = preview(0, nil)
        add(
            "flight.trackPreview", "failed-beats-not-made", "flights", base: stored(10, notMade),
            local: stored(40, notMade), remote: stored(30, preview(-1, nil)), section: "schema §5.5",
            "ranked 0 < -1: a failed preview replaces one not made yet")
        add(
            "flight.trackPreview", "positive-beats-failed", "flights", base: stored(10, notMade),
            local: stored(40, preview(-1, nil)), remote: stored(30, preview(2, [0x01, 0x7F, 0x10])),
            section: "schema §5.5", "ranked -1 < positive: a real preview is never replaced by a failed one")
        add(
            "flight.trackPreview", "other-negative-ranks-as-failed", "flights", base: stored(10, notMade),
            local: stored(40, notMade), remote: stored(30, preview(-3, nil)), section: "schema §5.5 (pinned)",
            "pinned: any negative version ranks as -1, above 0", pins: [.trackPreviewNegativeRank])
        add(
            "flight.trackPreview", "equal-rank-keeps-local", "flights", base: stored(10, notMade),
            local: stored(20, preview(-2, nil)), remote: stored(30, preview(-1, nil)), section: "schema §5.5 (pinned)",
            "pinned: two failed versions have one rank; both changed: the local one", pins: [.trackPreviewNegativeRank])
        add(
            "flight.trackPreviewVersion", "moves-with-preview", "flights", base: stored(10, preview(1, [0x01])),
            local: stored(20, preview(3, [0x03, 0x03])), remote: stored(30, preview(2, [0x02])),
            section: "schema §5.5", "the higher positive version wins together with its preview bytes")
        add(
            "flight.trackPreviewVersion", "server-higher", "flights", base: stored(10, preview(1, [0x01])),
            local: stored(40, preview(1, [0x01])), remote: stored(30, preview(4, [0x04])),
            section: "schema §5.5", "the server's higher version and its preview")
        add(
            "flight.trackPreviewVersion", "same-version-keeps-local", "flights", base: stored(10, preview(1, [0x01])),
            local: stored(20, preview(2, [0x0A])), remote: stored(30, preview(2, [0x0B])), section: "schema §5.5",
            "the same version on both sides with different bytes: the local preview (the tie)")
    }

    // MARK: igc, content (blobMapNeverDropped) and their uploaded (logicalOr)

    mutating func blobs() {
        add(
            "flight.igc", "missing-map-takes-other", "flights", base: stored(10, ["igc": Self.igc(uploaded: true)]),
            local: stored(40, ["igc": .null]), remote: stored(30, ["igc": Self.igc(uploaded: true)]),
            section: "schema §5.5", "a side without the map takes the other's: a blob map is never dropped")
        add(
            "flight.igc", "absent-map-takes-other", "flights", base: nil,
            local: stored(40, ["comments": .string("no igc key at all")]),
            remote: stored(30, ["igc": Self.igc(uploaded: false)]), section: "schema §5.5",
            "a missing map (the key absent) takes the other's")
        add(
            "flight.igc", "one-object-key-by-key", "flights",
            base: stored(10, ["igc": Self.igc(gz: 48_213, uploaded: false)]),
            local: stored(40, ["igc": Self.igc(gz: 48_190, uploaded: false)]),
            remote: stored(30, ["igc": Self.igc(gz: 48_213, uploaded: true)]), section: "schema §5.5",
            "both name one object: each key by the default rule (gzBytes from the later local), uploaded OR-ed")
        add(
            "flight.igc", "two-objects-whole-map", "flights", base: stored(10, ["igc": .null]),
            local: stored(40, ["igc": Self.igc(Self.otherHash, gz: 100, uploaded: false)]),
            remote: stored(30, ["igc": Self.igc(gz: 48_213, uploaded: true)]), section: "schema §5.5 (pinned)",
            "pinned: two objects never mix keys: the whole map of the later side", pins: [.blobMapOtherObject])
        add(
            "flight.igc.uploaded", "uploaded-or-ed", "flights", base: stored(10, ["igc": Self.igc(uploaded: true)]),
            local: stored(40, ["igc": Self.igc(uploaded: false)]),
            remote: stored(30, ["igc": Self.igc(uploaded: true)]),
            section: "schema §5.5", "one object, uploaded on one side: true, even against a later local false")
        add(
            "flight.igc.uploaded", "both-false", "flights", base: stored(10, ["igc": Self.igc(uploaded: false)]),
            local: stored(40, ["igc": Self.igc(uploaded: false)]),
            remote: stored(30, ["igc": Self.igc(gz: 48_000, uploaded: false)]),
            section: "schema §5.5", "neither side uploaded: false")
        add(
            "flight.igc.uploaded", "not-across-objects", "flights", base: stored(10, ["igc": .null]),
            local: stored(40, ["igc": Self.igc(Self.otherHash, uploaded: false)]),
            remote: stored(30, ["igc": Self.igc(uploaded: true)]),
            section: "schema §5.5 (pinned)", "pinned: two objects: uploaded goes with its map, it is not OR-ed",
            pins: [.blobMapOtherObject])
        let hashA = String(repeating: "a", count: 64)
        let hashB = String(repeating: "b", count: 64)
        add(
            "mapFile.content", "missing-map-takes-other", "mapFiles",
            base: stored(10, ["contentHash": .string(hashA), "content": Self.content(hashA, uploaded: true)]),
            local: stored(40, ["contentHash": .string(hashA), "content": .null]),
            remote: stored(30, ["contentHash": .string(hashA), "content": Self.content(hashA, uploaded: true)]),
            section: "schema §5.5", "a side without the content map takes the other's")
        add(
            "mapFile.content", "updated-content-whole-map", "mapFiles",
            base: stored(10, ["contentHash": .string(hashA), "content": Self.content(hashA, uploaded: true)]),
            local: stored(20, ["contentHash": .string(hashA), "content": Self.content(hashA, uploaded: true)]),
            remote: stored(
                30, ["contentHash": .string(hashB), "content": Self.content(hashB, gz: 9_400, uploaded: false)]),
            section: "schema §5.5", "an updated download on the server names another object: its whole map")
        add(
            "mapFile.content", "one-object-key-by-key", "mapFiles",
            base: stored(
                10, ["contentHash": .string(hashA), "content": Self.content(hashA, gz: 9_120, uploaded: false)]),
            local: stored(
                20, ["contentHash": .string(hashA), "content": Self.content(hashA, gz: 9_120, uploaded: true)]),
            remote: stored(
                30, ["contentHash": .string(hashA), "content": Self.content(hashA, gz: 9_130, uploaded: false)]),
            section: "schema §5.5", "one object: gzBytes by the default rule (the server's), uploaded OR-ed")
        add(
            "mapFile.content.uploaded", "uploaded-or-ed", "mapFiles",
            base: stored(10, ["content": Self.content(hashA, uploaded: false)]),
            local: stored(40, ["content": Self.content(hashA, uploaded: false)]),
            remote: stored(30, ["content": Self.content(hashA, uploaded: true)]), section: "schema §5.5",
            "one object uploaded on the server: true")
        add(
            "mapFile.content.uploaded", "local-true-kept", "mapFiles",
            base: stored(10, ["content": Self.content(hashA, uploaded: true)]),
            local: stored(20, ["content": Self.content(hashA, uploaded: true)]),
            remote: stored(30, ["content": Self.content(hashA, uploaded: false)]), section: "schema §5.5",
            "a later server false never un-uploads the object")
        add(
            "mapFile.content.uploaded", "both-false", "mapFiles", base: nil,
            local: stored(20, ["content": Self.content(hashA, uploaded: false)]),
            remote: stored(30, ["content": Self.content(hashA, uploaded: false)]), section: "schema §5.5",
            "neither side uploaded: false")
    }

    // MARK: taskId (deferredUntilTaskArrives)

    mutating func tasks() {
        let t1 = DocumentIds.taskId(externalUrl: "soaringspot/competitions/1/task/club/3")
        let t2 = DocumentIds.taskId(externalUrl: "soaringspot/competitions/1/task/club/4")
        add(
            "flight.taskId", "task-on-device", "flights", base: stored(10, ["taskId": .null]),
            local: stored(20, ["taskId": .null]), remote: stored(30, ["taskId": .string(t1)]),
            context: ["tasksOnDevice": .array([.string(t1)])], section: "schema §5.5",
            "the default rule gives the server's task, which is on the device: assigned")
        add(
            "flight.taskId", "task-missing-deferred", "flights", base: stored(10, ["taskId": .null]),
            local: stored(20, ["taskId": .null]), remote: stored(30, ["taskId": .string(t1)]),
            context: ["tasksOnDevice": .array([])], section: "schema §5.5",
            "the task has not arrived: the flight is stored without it and the id is remembered")
        add(
            "flight.taskId", "pending-counts-as-local", "flights", base: stored(10, ["taskId": .string(t1)]),
            local: stored(20, ["taskId": .null, "comments": .string("edited while waiting")]),
            remote: stored(10, ["taskId": .string(t1)]),
            context: ["tasksOnDevice": .array([]), "deferredTaskId": .string(t1)], section: "schema §5.5 (pinned)",
            "pinned: while an assignment is pending the local null counts as that id; it stays deferred",
            pins: [.deferredTaskIdState])
        add(
            "flight.taskId", "tie-goes-to-server", "flights", base: stored(10, ["taskId": .null]),
            local: stored(30, ["taskId": .string(t2)], by: "android-3"), remote: stored(30, ["taskId": .string(t1)]),
            context: ["tasksOnDevice": .array([.string(t1), .string(t2)])], section: "schema §5.5",
            "both assigned a task at the same clock: the server's")
    }

    // MARK: values.* (largerEntryTime)

    mutating func settings() {
        let t0: Int64 = 1_793_527_200_000
        add(
            "settings.values.any", "larger-t-wins", "settings", base: nil,
            local: stored(
                20,
                [
                    "values": .map([
                        "sport": Self.entry(.string("delta"), t0 + 500, "ios-2"),
                        "isPinned": Self.entry(.boolean(true), t0, "ios-2"),
                    ])
                ]),
            remote: stored(
                30,
                [
                    "values": .map([
                        "sport": Self.entry(.string("glider"), t0, "android-1"),
                        "isPinned": Self.entry(.boolean(false), t0 + 1, "android-1"),
                    ])
                ]), "per key the larger t: sport from the device, isPinned from the cloud")
        add(
            "settings.values.any", "tie-goes-to-server", "settings", base: nil,
            local: stored(40, ["values": .map(["speedUnit": Self.entry(.string("kt"), t0, "ios-2")])]),
            remote: stored(30, ["values": .map(["speedUnit": Self.entry(.string("mph"), t0, "android-1")])]),
            section: "schema §5.5", "the same t with different values: the cloud's, whatever the document clocks")
        add(
            "settings.values.any", "untouched-local-loses", "settings", base: nil,
            local: stored(40, ["values": .map(["mapStyle": Self.entry(.string("adaptive"), 0, "ios-2")])]),
            remote: stored(
                30,
                [
                    "values": .map([
                        "mapStyle": Self.entry(.string("satellite"), t0, "android-1"),
                        "showWind": Self.entry(.boolean(false), 0, "android-1"),
                    ])
                ]), "a value never changed by the user has t = 0 and loses; a key on one side only is kept")
    }

    // MARK: contentHash (emptyAsNull)

    mutating func contentHash() {
        let hashA = String(repeating: "a", count: 64)
        add(
            "mapFile.contentHash", "empty-written-as-null", "mapFiles", base: stored(10, ["contentHash": .null]),
            local: stored(40, ["contentHash": .string("")]), remote: stored(30, ["contentHash": .null]),
            section: "schema §5.5", "an empty hash is null, never \"\"")
        add(
            "mapFile.contentHash", "empty-on-both", "mapFiles", base: nil,
            local: stored(40, ["contentHash": .string("")]),
            remote: stored(30, ["contentHash": .string("")]), section: "schema §5.5", "\"\" on both sides: null")
        add(
            "mapFile.contentHash", "empty-is-no-change", "mapFiles", base: stored(10, ["contentHash": .null]),
            local: stored(40, ["contentHash": .string("")]), remote: stored(30, ["contentHash": .string(hashA)]),
            section: "schema §5.5",
            "an empty hash is the same as the null base (no local change): the server's hash, not the later \"\"")
    }
}
