import Foundation
import VultureCommandLine
import VultureConformance
import VultureSchemaCore
import VultureSyncSchema

/// `validate`: checks arbitrary documents against the schema, one line per violation
/// (`FILE: /json/pointer: RULE-ID: message`) (README "The conformance runner").
enum ValidateCommand {
    static let usage = """
        usage: vulture-conformance validate [--form write|stored] [--format canonical|rest] [--collection NAME]
                                            [--strict] [--merge] [--jsonl] FILE|DIR…

        Checks each FILE (- for standard input, once; named "(standard input)" in messages), a
        document in canonical typed JSON (default) or Firestore REST JSON, against the schema.
        Prints one line per violation, `FILE: /json/pointer: RULE-ID: message`.
          --form        write (sentinels where the schema writes them) or stored (default)
          --format      canonical (default) or rest (a Firestore REST Document)
          --collection  flights, tasks, mapFiles, homebases, recentCompetitions, settings or users;
                        default: from the document's path or REST name, else from the fields only
                        one collection has
          --strict      a field the schema does not know is an error, not a warning
          --merge       the document is a merge write (only changed fields plus the common fields)
          --jsonl       each FILE (- for standard input) holds one document per line (JSON Lines);
                        messages name FILE:LINE, the summary counts documents, and memory stays
                        flat however long the stream; blank lines (spaces, tabs, a CRLF's CR) are
                        skipped, and a FILE without any document is an error, as nothing is checked

        A DIR is read as a Firestore export-style folder: every *.json file under it, in path
        order. A file at users/{uid}.json or users/{uid}/COLLECTION/{id}.json is the document at
        that path, so its collection and id are checked as a REST document name is, and the Storage
        paths of its blob maps (igc.path, content.path) against that uid and id (schema.storage-path).

        With --format rest a file may also hold a write as an SDK sends it: a REST Write, CommitRequest
        or BatchWriteRequest (detected by shape: update, delete or transform; writes); with --form write
        --format rest every file must be one (a REST Document is stored form). Every write is
        checked: its path (collection and id), the fields its mask sets (an unknown one a warning,
        as for documents), the common fields of a merge, updatedAt only as the request-time
        transform, storageBytes only by increment, no mask path set to an empty map, no mask path
        deleting a required field or one the schema does not know, tombstones as full replaces;
        and a commit that moves storageBytes carries the one blob change it counts (storageRef
        names a record the commit writes, no other blob change, a reservation not yet uploaded:
        schema.blob-batch, which the security rules cannot check). Pointers point into the message
        (/writes/0/update/fields/values).

        Reader errors (not JSON, not canonical typed JSON, not a REST Document) also name
        LINE:COLUMN after FILE. For --format rest the pointers point into the REST file
        (/fields/summary/mapValue/fields/…), and the document name is checked too: its
        collection, the id the deterministic id rules give (schema §4) or, for a task without
        externalUrl, a lowercase 8-4-4-4-12 UUID (pinned taskRandomId), and the blob maps' Storage
        paths against its uid and id.
        --merge implies --form write. Files and lines are checked on every core; the output
        keeps the input order.

        Exit status: 0 every document valid (warnings allowed), 1 a violation, 2 usage error, a
        file that cannot be read, a DIR with no *.json file or a --jsonl FILE with no document (the
        others are still checked). The last line is `N passed, N failed[, N skipped]`
        (documents; unreadable files count as skipped).
        """

    /// What every document is checked with.
    struct Checks: Sendable {
        var rest: Bool
        var named: SchemaCollection?
        var validator: SchemaValidator
        var options: ValidationOptions
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try CommandLineArguments(
            arguments, valueOptions: ["form", "format", "collection"], flags: ["strict", "merge", "jsonl"])
        guard !args.positionals.isEmpty else { throw UsageError(message: "give at least one FILE") }
        if args.positionals.count(where: { $0 == "-" }) > 1 {
            throw UsageError(message: "- (standard input) can be given once: it is read once")
        }
        let merge = args.flag("merge")
        guard let form = DocumentForm(rawValue: args.option("form") ?? (merge ? "write" : "stored")) else {
            throw UsageError(message: "--form is write or stored")
        }
        if merge && form == .stored {
            throw UsageError(message: "a merge write is write form: --merge goes with --form write")
        }
        let format = args.option("format") ?? "canonical"
        guard format == "canonical" || format == "rest" else {
            throw UsageError(message: "--format is canonical or rest")
        }
        let schema = SyncSchema.vulture
        let named = try args.option("collection").map { name throws(UsageError) in
            guard let c = schema.collection(named: name) else {
                throw UsageError(
                    message:
                        "unknown collection \(name); one of \(schema.collections.map(\.name).joined(separator: ", "))")
            }
            return c
        }
        if format == "rest" && merge {
            throw UsageError(message: "--merge is for a canonical document; a REST write carries its own mask")
        }
        let checks = Checks(
            rest: format == "rest", named: named, validator: SchemaValidator(schema: schema),
            options: ValidationOptions(form: form, strict: args.flag("strict"), mergeWrite: merge))
        var summary = RunSummary()
        var unreadable = 0
        if args.flag("jsonl") {
            for file in args.positionals {
                if !DocumentStream.check(file, checks: checks, summary: &summary) { unreadable += 1 }
            }
        } else {
            var inputs: [DocumentFiles.Input] = []
            for path in args.positionals {
                do {
                    inputs += try DocumentFiles.inputs(at: path)
                } catch {
                    printError("vulture-conformance validate: \(error)")
                    unreadable += 1
                }
            }
            unreadable += DocumentFiles.check(inputs, checks: checks, summary: &summary)
        }
        if unreadable > 0 { summary.skipped = unreadable }
        print(summary.line)
        return unreadable > 0 ? 2 : summary.failed == 0 ? 0 : 1
    }

    /// The violation lines of one document, and whether any is an error.
    /// - Parameters:
    ///   - bytes: the document's text (a whole file, or one line of a stream).
    ///   - file: the file it came from; `line` the line number of a stream's document.
    ///   - documentPath: the document path an export-style folder gives it (`users/u/flights/x`).
    static func check(
        _ bytes: ArraySlice<UInt8>, file: String, line: Int? = nil, documentPath: String? = nil, checks: Checks,
        reader: CanonicalJSONReader
    ) -> (text: [String], failed: Bool) {
        let label = line.map { "\(file):\($0)" } ?? file
        var lines: [String] = []
        var failed = false
        let validator = checks.validator
        func add(_ v: SchemaViolation, pointer: String) {
            var shown = v
            shown.pointer = pointer
            lines.append("\(label): \(shown)")
            if v.severity == .error { failed = true }
        }
        /// The type a path gives, with the path's violations reported at `pointer`.
        func typeOfPath(_ path: String, fields: [String: FirestoreValue], pointer: String, what: String) -> String? {
            let (type, violations) = validator.pathViolations(path: path, fields: fields)
            for v in violations {
                // A field's finding (a blob map's Storage path) keeps its field pointer.
                if v.pointer.isEmpty {
                    add(v, pointer: pointer)
                } else {
                    add(
                        v,
                        pointer: checks.rest
                            ? FirestoreRESTJSON.documentPointer(forFieldPointer: v.pointer, in: fields) : v.pointer)
                }
            }
            if let named = checks.named, let type, type != named.documentType {
                add(
                    SchemaViolation(
                        pointer: "", rule: SchemaRule.collection.rawValue,
                        message: "the \(what) is in another collection than --collection \(named.name)"),
                    pointer: pointer)
            }
            return type
        }
        do {
            let fields: [String: FirestoreValue]
            var documentType = checks.named?.documentType
            if checks.rest, WriteMessages.looksLikeWriteMessage(bytes) {
                let message = try FirestoreRESTJSON.decodeWriteMessage(Array(bytes), file: file)
                return WriteMessages.check(message, label: label, checks: checks)
            }
            if checks.rest {
                if checks.options.form == .write {
                    lines.append(
                        "\(label): /: \(InputRule.restShape.rawValue): a Firestore REST Document is a stored document; "
                            + "--form write --format rest checks a Write, CommitRequest or BatchWriteRequest")
                    return (lines, true)
                }
                let document = try FirestoreRESTJSON.decodeDocument(Array(bytes), file: file)
                fields = document.fields
                if let name = document.name {
                    let type = typeOfPath(name, fields: fields, pointer: "/name", what: "document name")
                    documentType = documentType ?? type
                }
            } else {
                let value = try reader.decode(bytes, file: file, form: checks.options.form)
                guard case .map(let m) = value else {
                    lines.append(
                        "\(label): /: \(SchemaRule.type.rawValue): a document is a map of fields, found \(value.typeName)"
                    )
                    return (lines, true)
                }
                fields = m
            }
            if let documentPath {
                let type = typeOfPath(documentPath, fields: fields, pointer: "", what: "document path")
                documentType = documentType ?? type
            }
            guard let type = documentType ?? validator.inferDocumentType(fields: fields, path: nil) else {
                lines.append(
                    "\(label): /: \(SchemaRule.collection.rawValue): cannot tell the collection from the fields "
                        + "(no field only one collection has, as in a tombstone or a merge write); give --collection")
                return (lines, true)
            }
            for v in validator.validate(fields, documentType: type, options: checks.options) {
                add(
                    v,
                    pointer: checks.rest
                        ? FirestoreRESTJSON.documentPointer(forFieldPointer: v.pointer, in: fields) : v.pointer)
            }
        } catch var e as SchemaInputError {
            if let line, let l = e.line { e.line = line + l - 1 }
            lines.append(e.description)
            failed = true
        } catch {
            lines.append("\(label): \(error)")
            failed = true
        }
        return (lines, failed)
    }

    /// Runs `body(worker)` on every core (at least one worker), and returns when all are done.
    static func onEveryCore(_ body: @Sendable (Int) -> Void) {
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        if workers == 1 {
            body(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: workers, execute: body)
        }
    }
}

/// The files `validate` reads: plain files, and the documents of export-style folders, checked in
/// waves on every core and reported in input order.
enum DocumentFiles {
    /// One file to check, and the document path its place in an export-style folder gives it.
    struct Input: Sendable {
        var path: String
        var documentPath: String?
    }

    /// A path that cannot be listed.
    struct ListingError: Error, CustomStringConvertible {
        var path: String
        var errno: Int32
        var description: String { "cannot list \(path.shownArgument): \(String(cString: strerror(errno)))" }
    }

    /// A folder with no `*.json` file under it: nothing would be checked.
    struct EmptyFolderError: Error, CustomStringConvertible {
        var path: String
        var description: String {
            "\(path.shownArgument) holds no *.json file (folders are entered, not through symbolic links): nothing to check"
        }
    }

    /// How messages name an input: `-` is standard input.
    static func displayName(_ path: String) -> String { path == "-" ? "(standard input)" : path }

    /// A descriptor to read the input at `path` from (`-`: standard input, never closed), or -1
    /// with `errno` set.
    static func openInput(_ path: String) -> Int32 {
        path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
    }

    /// `path` itself, or every `*.json` file under the folder `path` in byte order of their paths,
    /// with the document path of those at `users/{uid}.json` or `users/{uid}/COLLECTION/{id}.json`.
    /// - Throws: ``ListingError`` for a folder that cannot be listed, ``EmptyFolderError`` for one
    ///   with no `*.json` file under it.
    static func inputs(at path: String) throws -> [Input] {
        if path == "-" { return [Input(path: path)] }
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { return [Input(path: path)] }
        var relative: [String] = []
        try walk(path, prefix: "", into: &relative)
        if relative.isEmpty { throw EmptyFolderError(path: path) }
        relative.sort(by: bytesPrecede)
        let base = path.hasSuffix("/") ? path : path + "/"
        return relative.map { Input(path: base + $0, documentPath: documentPath(ofRelativePath: $0)) }
    }

    /// Whether `a`'s UTF-8 bytes sort before `b`'s.
    static func bytesPrecede(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let n = min(x.count, y.count)
                if n > 0, let p = x.baseAddress, let q = y.baseAddress {
                    let c = memcmp(p, q, n)
                    if c != 0 { return c < 0 }
                }
                return x.count < y.count
            }
        }
    }

    /// `users/u.json` → `users/u`, `users/u/flights/x.json` → `users/u/flights/x`, else nil.
    static func documentPath(ofRelativePath relative: String) -> String? {
        let parts = FirestoreLimits.slashSegments(relative)
        guard parts.first == "users", parts.count == 2 || parts.count == 4, relative.hasSuffix(".json") else {
            return nil
        }
        return String(relative.dropLast(5))
    }

    /// The regular files ending in `.json` under `directory`, as paths relative to the folder given to
    /// ``inputs(at:)``; folders are entered (not through symbolic links, so no cycle), files are taken
    /// through symbolic links (a dangling one is taken too, so that reading it reports it).
    private static func walk(_ directory: String, prefix: String, into out: inout [String]) throws {
        guard let dir = opendir(directory) else { throw ListingError(path: directory, errno: errno) }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let full = directory + "/" + name
            var kind = Int32(entry.pointee.d_type)
            if kind == Int32(DT_UNKNOWN) || kind == Int32(DT_LNK) {
                var st = stat()
                guard stat(full, &st) == 0 else {
                    if name.hasSuffix(".json") { out.append(prefix + name) }
                    continue
                }
                let isSymbolicLink = kind == Int32(DT_LNK)
                kind = st.st_mode & S_IFMT == S_IFDIR ? (isSymbolicLink ? -1 : Int32(DT_DIR)) : Int32(DT_REG)
            }
            if kind == Int32(DT_DIR) {
                try walk(full, prefix: prefix + name + "/", into: &out)
            } else if kind == Int32(DT_REG), name.hasSuffix(".json") {
                out.append(prefix + name)
            }
        }
    }

    /// Checks `inputs` in waves of a few thousand files on every core, printing each wave's lines in
    /// input order; the number of files that could not be read.
    static func check(_ inputs: [Input], checks: ValidateCommand.Checks, summary: inout RunSummary) -> Int {
        let wave = 4096
        var unreadable = 0
        var start = 0
        while start < inputs.count {
            let batch = Array(inputs[start..<min(start + wave, inputs.count)])
            let results = checkInParallel(batch, checks: checks)
            var text = ""
            for r in results {
                switch r {
                case .unreadable(let message):
                    printError("vulture-conformance validate: \(message)")
                    unreadable += 1
                case .checked(let lines, let failed):
                    for line in lines { text += line + "\n" }
                    if failed { summary.failed += 1 } else { summary.passed += 1 }
                }
            }
            print(text, terminator: "")
            start += wave
        }
        return unreadable
    }

    enum Outcome: Sendable {
        case checked([String], failed: Bool)
        case unreadable(String)
    }

    private static func checkInParallel(_ batch: [Input], checks: ValidateCommand.Checks) -> [Outcome] {
        let results = Slots<Outcome>(count: batch.count)
        let work = WorkQueue(count: batch.count, block: 16)
        ValidateCommand.onEveryCore { _ in
            let reader = CanonicalJSONReader()
            var buffer: [UInt8] = []
            while let block = work.next() {
                for k in block {
                    let input = batch[k]
                    if let problem = read(input.path, into: &buffer) {
                        results.set(k, .unreadable(problem))
                        continue
                    }
                    let (lines, failed) = ValidateCommand.check(
                        buffer[...], file: displayName(input.path),
                        documentPath: input.documentPath, checks: checks,
                        reader: reader)
                    results.set(k, .checked(lines, failed: failed))
                }
            }
        }
        return results.all().map { $0 ?? .unreadable("not checked") }
    }

    /// Reads the whole file at `path` (`-`: standard input) into `buffer` (its storage reused from
    /// file to file); at most ``FileContents/maximumToolInputBytes``.
    /// - Returns: nil, or what went wrong, as "cannot read PATH: reason".
    static func read(_ path: String, into buffer: inout [UInt8]) -> String? {
        func problem(_ operation: String, _ code: Int32) -> String {
            "cannot \(operation) \(displayName(path).shownArgument): \(String(cString: strerror(code)))"
        }
        let fd = openInput(path)
        guard fd >= 0 else { return problem("open", errno) }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var st = stat()
        let hint = fstat(fd, &st) == 0 && st.st_mode & S_IFMT == S_IFREG ? Int(st.st_size) : 0
        buffer.removeAll(keepingCapacity: true)
        var count = 0
        while true {
            // Room for the whole file and one byte more (to see its end), or 64 KiB at a time.
            if buffer.count - count < 1 {
                buffer.append(contentsOf: repeatElement(0, count: hint >= count ? hint + 1 - count : 64 * 1024))
            }
            let n = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Foundation.read(fd, base + count, raw.count - count)
            }
            if n < 0 {
                if errno == EINTR { continue }
                return problem("read", errno)
            }
            if n == 0 { break }
            count += n
            if count > FileContents.maximumToolInputBytes { return problem("read", EFBIG) }
        }
        buffer.removeSubrange(count...)
        return nil
    }
}

/// One slot per file of a wave or line of a chunk, each written by exactly one worker, read after all
/// have finished.
private final class Slots<Element: Sendable>: @unchecked Sendable {
    private var slots: [Element?]
    private let lock = NSLock()

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ k: Int, _ element: Element) {
        lock.lock()
        slots[k] = element
        lock.unlock()
    }

    func all() -> [Element?] {
        lock.lock()
        defer { lock.unlock() }
        return slots
    }
}

/// Blocks of indices handed out to whichever worker asks next, so that a worker slowed by other work
/// on the machine holds up no other.
private final class WorkQueue: @unchecked Sendable {
    private var nextIndex = 0
    private let count: Int
    private let block: Int
    private let lock = NSLock()

    init(count: Int, block: Int) {
        self.count = count
        self.block = block
    }

    func next() -> Range<Int>? {
        lock.lock()
        defer { lock.unlock() }
        guard nextIndex < count else { return nil }
        let start = nextIndex
        nextIndex = min(count, start + block)
        return start..<nextIndex
    }
}

/// A checked line's messages and whether any is an error.
private struct LineOutcome: Sendable {
    var text: [String]
    var failed: Bool
}

/// `validate --jsonl`: a stream read in chunks of 4 MiB, each chunk's complete lines checked on every
/// core and reported in order; one line may be at most ``FileContents/maximumToolInputBytes`` long.
enum DocumentStream {
    static let chunkBytes = 4 << 20

    /// Checks every line of `file` (`-` for standard input); false when it could not be read.
    static func check(_ file: String, checks: ValidateCommand.Checks, summary: inout RunSummary) -> Bool {
        let fd = DocumentFiles.openInput(file)
        guard fd >= 0 else {
            printError(
                "vulture-conformance validate: cannot open \(file.shownArgument): \(String(cString: strerror(errno)))")
            return false
        }
        defer { if fd != STDIN_FILENO { close(fd) } }
        let name = DocumentFiles.displayName(file)
        let documentsBefore = summary.passed + summary.failed
        var buffer: [UInt8] = []
        var firstLine = 1
        // Bytes of an over-long line are dropped up to its end.
        var skippingLongLine = false
        var ended = false
        while !ended {
            let start = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: chunkBytes))
            // The chunk is filled before its lines are checked: a pipe hands over 64 KiB a read, and
            // checking (on every core) each of those alone cost 5 to 30 times a file's time.
            var n = 0
            var failedRead = false
            buffer.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return }
                while n < chunkBytes {
                    let got = Foundation.read(fd, base + start + n, chunkBytes - n)
                    if got < 0 && errno == EINTR { continue }
                    if got < 0 { failedRead = true }
                    if got <= 0 {
                        ended = true
                        return
                    }
                    n += got
                }
            }
            if failedRead {
                printError(
                    "vulture-conformance validate: cannot read \(name.shownArgument): \(String(cString: strerror(errno)))"
                )
                return false
            }
            buffer.removeSubrange((start + n)...)
            if skippingLongLine {
                guard let newline = buffer.firstIndex(of: 0x0A) else {
                    buffer.removeAll(keepingCapacity: true)
                    continue
                }
                buffer.removeSubrange(...newline)
                skippingLongLine = false
            }
            // Complete lines, and at the end of the stream the last line without its newline.
            let end = ended ? buffer.count : (buffer.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0)
            if end == 0 && buffer.count > FileContents.maximumToolInputBytes {
                print(
                    "\(name):\(firstLine): /: \(InputRule.jsonSyntax.rawValue): a line longer than "
                        + "\(FileContents.maximumToolInputBytes) bytes is not read")
                summary.failed += 1
                firstLine += 1
                buffer.removeAll(keepingCapacity: true)
                skippingLongLine = true
                continue
            }
            firstLine = checkLines(buffer[0..<end], file: name, firstLine: firstLine, checks: checks, summary: &summary)
            buffer.removeSubrange(0..<end)
        }
        // No document at all, as a folder with no *.json file: nothing was checked, so nothing passed.
        if summary.passed + summary.failed == documentsBefore {
            printError(
                "vulture-conformance validate: \(name.shownArgument) holds no document (it is empty or all blank "
                    + "lines): nothing to check")
            return false
        }
        return true
    }

    /// Checks the lines of `region` (complete lines) on every core; the number of the next line.
    private static func checkLines(
        _ region: ArraySlice<UInt8>, file: String, firstLine: Int, checks: ValidateCommand.Checks,
        summary: inout RunSummary
    ) -> Int {
        var found: [Range<Int>] = []
        let start = region.startIndex
        region.withUnsafeBufferPointer { raw in
            guard let base = raw.baseAddress else { return }
            var k = 0
            while k < raw.count {
                guard let nl = memchr(base + k, 0x0A, raw.count - k) else {
                    found.append((start + k)..<(start + raw.count))
                    return
                }
                let at = UnsafePointer<UInt8>(nl.assumingMemoryBound(to: UInt8.self)) - base
                found.append((start + k)..<(start + at))
                k = at + 1
            }
        }
        let lines = found
        let results = Slots<LineOutcome>(count: lines.count)
        let work = WorkQueue(count: lines.count, block: 64)
        ValidateCommand.onEveryCore { _ in
            let reader = CanonicalJSONReader()
            while let block = work.next() {
                for k in block {
                    let range = lines[k]
                    // A blank line (empty, or spaces, tabs and a CRLF's CR) holds no document.
                    if region[range].allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                    let r = ValidateCommand.check(
                        region[range], file: file, line: firstLine + k, checks: checks, reader: reader)
                    results.set(k, LineOutcome(text: r.text, failed: r.failed))
                }
            }
        }
        var text = ""
        for r in results.all() {
            guard let r else { continue }
            for line in r.text { text += line + "\n" }
            if r.failed { summary.failed += 1 } else { summary.passed += 1 }
        }
        print(text, terminator: "")
        return firstLine + lines.count
    }
}

/// `validate --format rest` on a REST `Write`, `CommitRequest` or `BatchWriteRequest`: each write
/// checked by ``SchemaValidator/validate(write:documentType:strict:)``, its violations pointing into
/// the message.
enum WriteMessages {
    /// Whether the text's top-level object has a member only a write message has (`update`,
    /// `delete`, `transform`, `writes`): a quick look at the bytes, then a parse.
    static func looksLikeWriteMessage(_ bytes: ArraySlice<UInt8>) -> Bool {
        let keys: [[UInt8]] = ["\"update\"", "\"delete\"", "\"transform\"", "\"writes\""].map { Array($0.utf8) }
        guard keys.contains(where: { key in contains(bytes, key) }) else { return false }
        guard let node = try? StrictJSONReader.parse(Array(bytes)), case .object(let members) = node.kind else {
            return false
        }
        return members.contains { ["update", "delete", "transform", "writes"].contains($0.key) }
    }

    static func contains(_ bytes: ArraySlice<UInt8>, _ key: [UInt8]) -> Bool {
        guard bytes.count >= key.count, let first = key.first else { return false }
        var i = bytes.startIndex
        while i <= bytes.endIndex - key.count {
            if bytes[i] == first, bytes[i..<(i + key.count)].elementsEqual(key) { return true }
            i += 1
        }
        return false
    }

    /// The violation lines of a message and whether any is an error.
    static func check(_ message: FirestoreRESTWriteMessage, label: String, checks: ValidateCommand.Checks) -> (
        text: [String], failed: Bool
    ) {
        let writes: [(prefix: String, write: FirestoreWrite)]
        switch message {
        case .write(let w, _): writes = [("", w)]
        case .commitRequest(let r): writes = r.writes.enumerated().map { ("/writes/\($0.offset)", $0.element) }
        case .batchWriteRequest(let r): writes = r.writes.enumerated().map { ("/writes/\($0.offset)", $0.element) }
        }
        var lines: [String] = []
        var failed = false
        var found: [(index: Int, violation: WriteViolation)] = []
        for (index, (_, write)) in writes.enumerated() {
            found += checks.validator.validate(
                write: write, documentType: checks.named?.documentType, strict: checks.options.strict
            ).map { (index, $0) }
        }
        // A request as a whole (the blob batch), which the security rules cannot check.
        if case .write = message {
        } else {
            found += checks.validator.validate(commit: writes.map(\.write))
        }
        for (index, violation) in found {
            var v = violation.violation
            v.pointer = writes[index].prefix + pointer(of: violation.place, in: writes[index].write)
            lines.append("\(label): \(v)")
            if v.severity == .error { failed = true }
        }
        return (lines, failed)
    }

    /// The REST pointer of a place in a write: its name, a value of `update.fields`, a transform, or
    /// the mask.
    static func pointer(of place: WriteViolation.Place, in write: FirestoreWrite) -> String {
        switch place {
        case .path:
            return write.isDelete ? "/delete" : "/update/name"
        case .mask:
            return "/updateMask/fieldPaths"
        case .field(let p):
            let segments = FirestoreLimits.slashSegments(p).dropFirst().map {
                $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            }
            if let path = try? FieldPath(segments), write.transforms.contains(where: { $0.path == path }) {
                return "/updateTransforms"
            }
            return "/update" + FirestoreRESTJSON.documentPointer(forFieldPointer: p, in: write.updateFields)
        }
    }
}
