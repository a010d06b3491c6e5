import Foundation
import VultureSchemaCore

/// What a collection's id rule needs besides the document's own fields (schema §4).
public struct DocumentIdInputs: Sendable, Hashable {
    /// The signed-in user's uid: the profile's id.
    public var uid: String?
    /// The IGC file's bytes as imported: a flight's id is their SHA-256. When nil, the flight's
    /// `igc.sha256` field stands for them.
    public var igcBytes: Data?
    /// The Soaring Spot competition id: a recent competition's id.
    public var competitionId: String?
    /// The random id a writer chose for a task without `externalUrl` (the `taskRandom` rule).
    public var randomTaskId: String?
    /// The id a writer already holds for a map file (a pulled document's id), used as is instead of the
    /// pinned map-file id rule (its strings are an open question: Goldens/SCHEMA.md, Pinned choices).
    public var mapFileId: String?

    /// Inputs as given; each is nil when the caller does not have it.
    public init(uid: String? = nil, igcBytes: Data? = nil, competitionId: String? = nil, randomTaskId: String? = nil) {
        self.uid = uid
        self.igcBytes = igcBytes
        self.competitionId = competitionId
        self.randomTaskId = randomTaskId
    }
}

extension DocumentIds {
    /// The document id of a record of `collection`: the one place that picks a collection's id rule
    /// of `Spec/ids.tsv` and computes it (schema §4).
    ///
    /// `fields` are the document's fields in their cloud form (enums as cloud values: `source`
    /// `"XCSOAR"`); `inputs` carry what the document does not hold.
    /// - Returns: the id and the rule variant that gave it.
    /// - Throws: ``DocumentIdError/undetermined(rule:input:)`` when the rule needs an input that is
    ///   missing (a task's random id is the writer's choice); the rule's own errors for a value that
    ///   breaks it (a malformed hash, an empty filename, a competition id with `/`, …).
    public static func documentId(
        collection: SyncCollection, fields: [String: FirestoreValue], inputs: DocumentIdInputs = DocumentIdInputs()
    ) throws(DocumentIdError) -> (id: String, rule: DocumentIdRule) {
        func string(_ name: String, _ rule: DocumentIdRule) throws(DocumentIdError) -> String {
            guard case .string(let s)? = fields[name] else { throw .undetermined(rule: rule, input: name) }
            return s
        }
        switch collection {
        case .users:
            guard let uid = inputs.uid else { throw .undetermined(rule: .profileUid, input: "uid") }
            do throws(BlobError) { try BlobPaths.validate(uid: uid) } catch {
                if case .invalidUid(let e) = error { throw e }
            }
            return (uid, .profileUid)
        case .settings:
            return (DocumentIdRule.settingsSynced.input([:]), .settingsSynced)
        case .flights:
            if let bytes = inputs.igcBytes { return (flightId(igcBytes: bytes), .flightIgcBytes) }
            guard case .string(let sha)? = fields["igc"]?.mapValue?["sha256"] else {
                throw .undetermined(rule: .flightIgcBytes, input: "igcFileBytes")
            }
            try validate(sha256Hex: sha)
            return (sha, .flightIgcBytes)
        case .homebases:
            return (homebaseId(name: try string("name", .homebaseName)), .homebaseName)
        case .tasks:
            if case .string(let url)? = fields["externalUrl"], !url.isEmpty {
                return (taskId(externalUrl: url), .taskExternalUrl)
            }
            guard let id = inputs.randomTaskId else { throw .undetermined(rule: .taskRandom, input: "a random id") }
            try validate(documentId: id)
            return (id, .taskRandom)
        case .mapFiles:
            if let known = inputs.mapFileId {
                try validate(documentId: known)
                let isUser = fields["source"] == .string(MapFileSource.user.rawValue)
                return (known, isUser ? .mapFileUser : .mapFileDownloaded)
            }
            let sourceText = try string("source", .mapFileDownloaded)
            let typeText = try string("type", .mapFileDownloaded)
            guard let source = MapFileSource(rawValue: sourceText) else {
                throw .invalidMapFileKey(reason: "unknown source \(sourceText)")
            }
            guard let type = MapFileType(rawValue: typeText) else {
                throw .invalidMapFileKey(reason: "unknown type \(typeText)")
            }
            if source == .user {
                guard case .string(let hash)? = fields["contentHash"] else { throw .notLowercaseHexSHA256(value: "") }
                return (try mapFileId(userImportedType: type, contentHash: hash), .mapFileUser)
            }
            guard case .string(let filename)? = fields["filename"] else { throw .empty }
            return (try mapFileId(source: source, type: type, filename: filename), .mapFileDownloaded)
        case .recentCompetitions:
            guard let id = inputs.competitionId else {
                throw .undetermined(rule: .recentCompetitionSoaringSpot, input: "competitionId")
            }
            return (try recentCompetitionId(competitionId: id), .recentCompetitionSoaringSpot)
        }
    }
}

extension DocumentIdRule {
    /// The rule's input template with every `{name}` replaced by `values[name]` (schema §4); a
    /// placeholder without a value is left as written.
    public func input(_ values: [String: String]) -> String {
        guard let template = inputTemplate else { return "" }
        var rest = Substring(template)
        var out = ""
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            out += values[name] ?? "{\(name)}"
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// How the rule computes the id, in words, for messages (`SHA-256 of name.trim().lowercase()`).
    public var explanation: String {
        switch self {
        case .flightIgcBytes: "igc.sha256 (the flight id is the SHA-256 of the IGC file)"
        case .homebaseName: "SHA-256 of name.trim().lowercase()"
        case .taskExternalUrl: "SHA-256 of externalUrl"
        case .taskRandom: "a random UUID chosen by the writer"
        case .mapFileDownloaded, .mapFileUser: "the map-file id rule (SHA-256 of \(inputTemplate ?? ""), pinned)"
        case .recentCompetitionSoaringSpot: "the Soaring Spot competition id"
        case .settingsSynced: "the fixed id of the settings document"
        case .profileUid: "the user's uid"
        case .contentHashBytes: "SHA-256 of the content bytes"
        case .contentHashIosText: "SHA-256 of the UTF-8 bytes of iOS's content string"
        case .contentHashIosCub: "SHA-256 of the bytes iOS's Base64 content (a CUB file) decodes to"
        }
    }
}
