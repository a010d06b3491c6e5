import Foundation
import VultureSchemaCore

/// Why a string is not a valid document id, uid or hash (schema §4, Firestore document-id rules).
public enum DocumentIdError: Error, Equatable, Sendable {
    /// The id is the empty string.
    case empty
    /// The id is longer than Firestore's 1500-byte limit (`byteCount` UTF-8 bytes).
    case tooLong(byteCount: Int)
    /// The id is "." or "..".
    case dotSegment
    /// The id matches `__.*__`, which Firestore reserves.
    case reserved
    /// The id contains '/', which would split the document path.
    case containsSlash
    /// A Firebase Auth uid longer than 128 bytes (`byteCount` UTF-8 bytes).
    case uidTooLong(byteCount: Int)
    /// A hash that is not 64 lowercase hex characters (schema §4); `value` is what was given.
    case notLowercaseHexSHA256(value: String)
    /// A map file id request that breaks the pinned rule (`Spec/pins.tsv` mapFileIdDownloaded, mapFileIdUser).
    case invalidMapFileKey(reason: String)
    /// The collection's id rule needs an input that was not given (`input` names it: `uid`,
    /// `competitionId`, `igcFileBytes`, a field …), or is a random id only the writer can choose.
    case undetermined(rule: DocumentIdRule, input: String)
}

/// The deterministic document ids of the sync schema (schema §4, decision P8B-D9).
///
/// All hashes are SHA-256 written as 64 lowercase hex characters; strings are hashed as their
/// UTF-8 bytes.
public enum DocumentIds {
    /// Firestore's maximum document-id length in UTF-8 bytes.
    public static let maximumIdBytes = 1500

    /// Checks Firestore's document-id rules: non-empty, ≤ 1500 UTF-8 bytes, not "." or "..",
    /// not `__.*__`, no '/'.
    /// - Throws: ``DocumentIdError`` naming the first rule broken.
    public static func validate(documentId id: String) throws(DocumentIdError) {
        let bytes = id.utf8.count
        if bytes == 0 { throw .empty }
        if bytes > maximumIdBytes { throw .tooLong(byteCount: bytes) }
        if id == "." || id == ".." { throw .dotSegment }
        if bytes >= 4 && id.hasPrefix("__") && id.hasSuffix("__") { throw .reserved }
        if id.utf8.contains(UInt8(ascii: "/")) { throw .containsSlash }
    }

    /// Whether `value` is 64 lowercase hex characters, the schema's written form of a SHA-256 (schema §4).
    public static func isLowercaseHexSHA256(_ value: String) -> Bool {
        let u = value.utf8
        return u.count == 64 && u.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// - Throws: ``DocumentIdError/notLowercaseHexSHA256(value:)`` unless `value` is 64 lowercase hex characters.
    public static func validate(sha256Hex value: String) throws(DocumentIdError) {
        guard isLowercaseHexSHA256(value) else { throw .notLowercaseHexSHA256(value: value) }
    }

    // MARK: Flight

    /// The flight id: SHA-256 of the IGC file's original bytes as imported, never re-encoded
    /// (schema §2 flights/{flightId}, §4). 64 lowercase hex characters.
    public static func flightId<D: DataProtocol>(igcBytes: D) -> String {
        SHA256Stream.hexDigest(of: igcBytes)
    }

    /// The flight id of the IGC file at `path`, read in 64 KiB chunks (schema §4). A file over the
    /// import cap (`limits.igcImportMaxRawBytes`, 64 MiB) is no flight: reading stops there.
    /// - Throws: ``FileAccessError`` when the file cannot be opened or read, `EFBIG` past the cap.
    public static func flightId(igcFileAt path: String) throws(FileAccessError) -> String {
        try SHA256Stream.hexDigest(ofFileAt: path, maximumBytes: SchemaLimits.igcImportMaxRawBytes)
    }

    // MARK: Home base

    /// The text the home base id hashes: Kotlin's `name.trim().lowercase()` on the JVM (root locale),
    /// reproduced exactly (see `JVMText`) (schema §4).
    public static func homebaseKey(name: String) -> String {
        JVMText.lowercased(JVMText.trim(name))
    }

    /// The home base id: SHA-256 of the UTF-8 bytes of `name.trim().lowercase()` with Kotlin/JVM
    /// semantics (schema §2 homebases/{homebaseId}, §4). A blank name hashes the empty string.
    public static func homebaseId(name: String) -> String {
        SHA256Stream.hexDigest(of: Array(homebaseKey(name: name).utf8))
    }

    // MARK: Task

    /// The task id (schema §2 tasks/{taskId}, §4): SHA-256 of `externalUrl`'s UTF-8 bytes, exactly
    /// as stored (no trimming or normalisation), when the task has one; otherwise a fresh random
    /// UUID as Kotlin writes one (`UUID.randomUUID().toString()`: lowercase 8-4-4-4-12).
    /// Pin: an empty `externalUrl` counts as none (a random UUID).
    public static func taskId(externalUrl: String?) -> String {
        if let externalUrl, !externalUrl.isEmpty {
            return SHA256Stream.hexDigest(of: Array(externalUrl.utf8))
        }
        return randomTaskId()
    }

    /// A fresh random task id: a version-4 UUID, lowercase 8-4-4-4-12 (schema §4).
    public static func randomTaskId() -> String {
        UUID().uuidString.lowercased()
    }

    // MARK: Map file

    /// The id of a downloaded map file (source XCSOAR or OPENAIP) (schema §4).
    ///
    /// **Pin** (`Spec/ids.tsv` mapFile downloaded; the seed's id strings are cut off): SHA-256 of the
    /// UTF-8 bytes of the rule's input template `{source}|{type}|{filename}`, source and type as their
    /// cloud strings, the filename exactly as stored (no trimming, no case change).
    /// - Throws: ``DocumentIdError/invalidMapFileKey(reason:)`` for source USER or an empty filename.
    public static func mapFileId(
        source: MapFileSource, type: MapFileType, filename: String
    ) throws(DocumentIdError) -> String {
        guard source != .user else {
            throw .invalidMapFileKey(reason: "a USER map file is keyed by its content hash, not its filename")
        }
        guard !filename.isEmpty else { throw .invalidMapFileKey(reason: "empty filename") }
        let input = DocumentIdRule.mapFileDownloaded.input([
            "source": source.rawValue, "type": type.rawValue, "filename": filename,
        ])
        return SHA256Stream.hexDigest(of: Array(input.utf8))
    }

    /// The id of a map file the user imported (source USER) (schema §4).
    ///
    /// **Pin** (`Spec/ids.tsv` mapFile user): SHA-256 of the UTF-8 bytes of the rule's input template
    /// `USER|{type}|{contentHash}`, `contentHash` being the 64 lowercase hex SHA-256 of the content.
    /// - Throws: ``DocumentIdError/notLowercaseHexSHA256(value:)`` when `contentHash` is not 64 lowercase hex.
    public static func mapFileId(userImportedType type: MapFileType, contentHash: String) throws(DocumentIdError)
        -> String
    {
        try validate(sha256Hex: contentHash)
        let input = DocumentIdRule.mapFileUser.input(["type": type.rawValue, "contentHash": contentHash])
        return SHA256Stream.hexDigest(of: Array(input.utf8))
    }

    /// The content hash of a map file: SHA-256 of its content bytes, 64 lowercase hex (schema §2
    /// mapFiles; `Spec/ids.tsv` contentHash bytes).
    public static func contentHash<D: DataProtocol>(contentBytes: D) -> String {
        SHA256Stream.hexDigest(of: contentBytes)
    }

    /// The content hash of a map file as iOS holds it (schema §7; `Spec/ids.tsv` contentHash iosText
    /// and iosCub): `File.content` is a String — a text file's content, whose UTF-8 bytes are hashed
    /// (`content.data(using: .utf8)`), or a CUB file (binary) as standard padded Base64, whose decoded
    /// bytes are hashed. For a UTF-8 text file and for any CUB file this is the hash of the file's
    /// bytes, as another platform computes it.
    /// - Returns: the hash; nil for a CUB content that is not standard padded Base64.
    public static func contentHash(iosContent content: String, isCub: Bool) -> String? {
        guard isCub else { return contentHash(contentBytes: Array(content.utf8)) }
        guard let bytes = Data(base64Encoded: content), bytes.base64EncodedString() == content else { return nil }
        return contentHash(contentBytes: bytes)
    }

    // MARK: Recent competition

    /// The recent competition id: the Soaring Spot competition id itself (schema §2, §4).
    /// - Throws: ``DocumentIdError`` when it is empty, contains '/', or breaks another document-id rule.
    public static func recentCompetitionId(competitionId: String) throws(DocumentIdError) -> String {
        try validate(documentId: competitionId)
        return competitionId
    }
}

extension DocumentIdError: CustomStringConvertible {
    /// A one-line message naming the rule broken.
    public var description: String {
        switch self {
        case .empty: return "document id is empty"
        case .tooLong(let n): return "document id is \(n) bytes, over Firestore's 1500-byte limit"
        case .dotSegment: return "document id must not be \".\" or \"..\""
        case .reserved: return "document id must not match __.*__ (reserved by Firestore)"
        case .containsSlash: return "document id must not contain '/'"
        case .uidTooLong(let n): return "uid is \(n) bytes, over Firebase Auth's 128-byte limit"
        case .notLowercaseHexSHA256(let v):
            return "'\(v.shownArgument)' is not a SHA-256 written as 64 lowercase hex characters"
        case .invalidMapFileKey(let reason): return "map file id: \(reason)"
        case .undetermined(let rule, let input):
            return rule.algorithm == .randomUUID
                ? "the \(rule.rawValue) rule gives a random id the writer chooses"
                : "the \(rule.rawValue) rule needs \(input)"
        }
    }
}
