import Dispatch
import Foundation
import VultureSchemaCore
import VultureSyncSchema

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Firestore's REST API v1 for the emulator or a real project: commit, get and runQuery, each a
/// blocking call (the engine and the simulation call step by step).
///
/// - Emulator: `baseURL` `http://127.0.0.1:PORT`, project `demo-…`, token `owner` (which bypasses
///   security rules on the emulator).
/// - A real project: `baseURL` `https://firestore.googleapis.com`, the project id, and an OAuth 2
///   access token.
///
/// An `http://` base URL is spoken to over HTTP/1.1 directly, each request on a kept-alive
/// connection of the calling thread, so that ``commitEach(_:)``'s commits overlap; `https://` goes
/// through `URLSession`.
///
/// Requests are canonical REST JSON (`FirestoreRESTJSON`); answers are read with the lenient
/// ProtoJSON reader. Errors are ``FirestoreError``s with the HTTP status and Firestore's status and
/// message; a network failure is UNAVAILABLE without an HTTP status.
public final class FirestoreRESTClient: FirestoreDatabase, Sendable {
    /// Scheme, host and port (`http://127.0.0.1:8080`, `https://firestore.googleapis.com`).
    public let baseURL: URL
    /// The project id.
    public let projectId: String
    /// The database id (`(default)`).
    public let databaseId: String
    /// The bearer token sent as `Authorization: Bearer …` now, if any (read from the token source
    /// on every request, so a refreshed ID token takes effect at once).
    public var bearerToken: String? { bearerTokenSource() }
    /// Where each request's bearer token comes from.
    private let bearerTokenSource: @Sendable () -> String?
    /// Seconds allowed for each request.
    public let timeout: Double
    private let session: URLSession
    /// The transport for an `http://` base URL; `https://` goes through `session`.
    private let plain: PlainHTTPClient?

    /// A client.
    /// - Parameters:
    ///   - baseURL: scheme, host and port.
    ///   - projectId: the project id.
    ///   - databaseId: the database id, `(default)` unless named.
    ///   - bearerToken: `owner` for the emulator without rules, an access token for a real project.
    ///   - timeout: seconds per request.
    public convenience init(
        baseURL: URL, projectId: String, databaseId: String = "(default)", bearerToken: String? = nil,
        timeout: Double = 30
    ) {
        self.init(
            baseURL: baseURL, projectId: projectId, databaseId: databaseId, timeout: timeout,
            bearerTokenSource: { bearerToken })
    }

    /// A client whose bearer token is asked for on every request: a signed-in user whose ID token
    /// changes (`EmulatorIdToken` in VultureFirestoreTesting on the emulator, a refreshed Firebase ID token on a real project).
    /// - Parameters:
    ///   - baseURL: scheme, host and port.
    ///   - projectId: the project id.
    ///   - databaseId: the database id, `(default)` unless named.
    ///   - timeout: seconds per request.
    ///   - bearerTokenSource: the token for the next request; nil sends no `Authorization` header.
    public init(
        baseURL: URL, projectId: String, databaseId: String = "(default)", timeout: Double = 30,
        bearerTokenSource: @escaping @Sendable () -> String?
    ) {
        self.baseURL = baseURL
        self.projectId = projectId
        self.databaseId = databaseId
        self.bearerTokenSource = bearerTokenSource
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpMaximumConnectionsPerHost = Self.commitsInFlight
        session = URLSession(configuration: configuration)
        plain =
            baseURL.scheme == "http"
            ? baseURL.host.map { PlainHTTPClient(host: $0, port: baseURL.port ?? 80, timeout: timeout) } : nil
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Commits in flight together in `commitEach(_:)` (and connections to the host).
    public static let commitsInFlight = 8

    /// The type's `commitsInFlight`: round trips overlap.
    public var commitsInFlight: Int { Self.commitsInFlight }

    /// Up to `commitsInFlight` commits at once, each on its own thread (the client blocks).
    public func commitEach(_ batches: [[FirestoreWrite]]) -> [Result<FirestoreCommitResult, FirestoreError>] {
        commitConcurrently(batches, threads: commitsInFlight)
    }

    /// `projects/{projectId}/databases/{databaseId}`.
    public var database: String { "projects/\(projectId)/databases/\(databaseId)" }

    /// `POST …/documents:commit`.
    /// - Throws: `FirestoreError` as ``FirestoreDatabase/commit(_:)`` says; INVALID_ARGUMENT before
    ///   any request for a write without a path.
    public func commit(_ writes: [FirestoreWrite]) throws(FirestoreError) -> FirestoreCommitResult {
        try commit(writes, request: FirestoreCommitRequest(database: database, writes: writes))
    }

    private func commit(_ writes: [FirestoreWrite], request: FirestoreCommitRequest) throws(FirestoreError)
        -> FirestoreCommitResult
    {
        let body: [UInt8]
        do {
            body = try FirestoreRESTJSON.encodeCommitRequest(request)
        } catch {
            throw FirestoreError(.invalidArgument, "\(error)")
        }
        let (bytes, node) = try send("POST", "/v1/\(database)/documents:commit", body: body)
        return try read("commit answer", bytes) { () throws -> FirestoreCommitResult in
            var commitTime: FirestoreTimestamp?
            var results: [FirestoreWriteResult] = []
            guard case .object(let members) = node.kind else { throw FirestoreError(.internal, "not an object") }
            for m in members {
                switch m.key {
                case "commitTime":
                    commitTime = try FirestoreRESTJSON.decodeTimestamp(node: m.value, sourceBytes: bytes)
                case "writeResults":
                    guard case .array(let elements) = m.value.kind else { continue }
                    for e in elements {
                        var result = FirestoreWriteResult(updateTime: nil)
                        guard case .object(let rm) = e.kind else { continue }
                        for r in rm {
                            if r.key == "updateTime" {
                                result.updateTime = try FirestoreRESTJSON.decodeTimestamp(
                                    node: r.value, sourceBytes: bytes)
                            } else if r.key == "transformResults", case .array(let values) = r.value.kind {
                                result.transformResults = try values.map {
                                    try FirestoreRESTJSON.decodeValue(node: $0, sourceBytes: bytes)
                                }
                            }
                        }
                        results.append(result)
                    }
                default: continue
                }
            }
            return FirestoreCommitResult(commitTime: commitTime, writeResults: results)
        }
    }

    // MARK: - Transactions

    /// `POST …/documents:beginTransaction` (read-write): the transaction id.
    /// - Throws: `FirestoreError` for the request's status.
    func beginTransaction() throws(FirestoreError) -> Data {
        let (bytes, node) = try send("POST", "/v1/\(database)/documents:beginTransaction", body: Array("{}".utf8))
        return try read("beginTransaction answer", bytes) { () throws -> Data in
            guard case .object(let members) = node.kind,
                case .string(let text)? = members.first(where: { $0.key == "transaction" })?.value.kind,
                let id = Data(base64Encoded: text)
            else { throw FirestoreError(.internal, "no transaction id") }
            return id
        }
    }

    /// `POST …/documents:batchGet` of one document inside the transaction (the emulator does not
    /// answer a `GET` with a `transaction` parameter); nil when it is missing.
    /// - Throws: `FirestoreError` (ABORTED when another transaction holds the document).
    func get(_ path: String, transaction: Data) throws(FirestoreError) -> FirestoreDocument? {
        if let message = FirestoreLimits.documentPathViolation(path) {
            throw FirestoreError(.invalidArgument, message)
        }
        let request = JSONNode(
            .object([
                JSONMember(
                    key: "documents",
                    value: JSONNode(.array([JSONNode(.string("\(database)/documents/\(path)"))]))),
                JSONMember(key: "transaction", value: JSONNode(.string(transaction.base64EncodedString()))),
            ]))
        let (bytes, node) = try send(
            "POST", "/v1/\(database)/documents:batchGet", body: CanonicalJSONWriter.write(request))
        return try read("batchGet answer", bytes) { () throws -> FirestoreDocument? in
            guard case .array(let answers) = node.kind else { throw FirestoreError(.internal, "not an array") }
            for answer in answers {
                guard case .object(let members) = answer.kind else { continue }
                if let found = members.first(where: { $0.key == "found" }) { return try document(found.value, bytes) }
            }
            return nil
        }
    }

    /// `POST …/documents:commit` ending the transaction `transaction`.
    /// - Throws: as ``commit(_:)->_``; ABORTED when a document it read has changed.
    func commit(_ writes: [FirestoreWrite], transaction: Data) throws(FirestoreError) -> FirestoreCommitResult {
        try commit(
            writes, request: FirestoreCommitRequest(database: database, writes: writes, transaction: transaction))
    }

    /// `POST …/documents:rollback`: ends the transaction without writing.
    /// - Throws: `FirestoreError` for the request's status.
    func rollback(_ transaction: Data) throws(FirestoreError) {
        let body = Array("{\"transaction\":\"\(transaction.base64EncodedString())\"}".utf8)
        _ = try send("POST", "/v1/\(database)/documents:rollback", body: body)
    }

    /// `GET …/documents/{path}`; nil on NOT_FOUND.
    /// - Throws: `FirestoreError` for a malformed path (INVALID_ARGUMENT, before any request) or
    ///   another error status.
    public func get(_ path: String) throws(FirestoreError) -> FirestoreDocument? {
        if let message = FirestoreLimits.documentPathViolation(path) {
            throw FirestoreError(.invalidArgument, message)
        }
        do {
            let (bytes, node) = try send("GET", "/v1/\(database)/documents/" + Self.escaped(path), body: nil)
            return try read("document", bytes) { try document(node, bytes) }
        } catch let e where e.status == .notFound {
            return nil
        }
    }

    /// `POST …/documents[/{parent}]:runQuery` with the query as a `structuredQuery`.
    /// - Throws: `FirestoreError` (a query the server refuses is INVALID_ARGUMENT or FAILED_PRECONDITION).
    public func runQuery(_ query: FirestoreQuery) throws(FirestoreError) -> [FirestoreDocument] {
        let body: [UInt8]
        do {
            body = CanonicalJSONWriter.write(try Self.structuredQuery(query, database: database))
        } catch {
            throw FirestoreError(.invalidArgument, "\(error)")
        }
        let parent = query.parent.isEmpty ? "" : "/" + Self.escaped(query.parent)
        let (bytes, node) = try send("POST", "/v1/\(database)/documents\(parent):runQuery", body: body)
        return try read("runQuery answer", bytes) { () throws -> [FirestoreDocument] in
            guard case .array(let elements) = node.kind else { throw FirestoreError(.internal, "not an array") }
            var out: [FirestoreDocument] = []
            for e in elements {
                guard case .object(let members) = e.kind else { continue }
                if let err = members.first(where: { $0.key == "error" }) {
                    throw Self.error(err.value, httpStatus: 200)
                }
                if let d = members.first(where: { $0.key == "document" }) { out.append(try document(d.value, bytes)) }
            }
            return out
        }
    }

    // MARK: - Request bodies

    /// The `{"structuredQuery": …}` body of a query.
    /// - Throws: `SchemaInputError` when a value has no REST form (a sentinel).
    public static func structuredQuery(_ query: FirestoreQuery, database: String) throws -> JSONNode {
        func object(_ members: [(String, JSONNode)]) -> JSONNode {
            JSONNode(.object(members.map { JSONMember(key: $0.0, value: $0.1) }))
        }
        func fieldReference(_ path: FieldPath) -> JSONNode {
            object([("fieldPath", JSONNode(.string(path.description)))])
        }
        var members: [(String, JSONNode)] = [
            ("from", JSONNode(.array([object([("collectionId", JSONNode(.string(query.collectionId)))])])))
        ]
        var filters: [JSONNode] = []
        for f in query.filters {
            filters.append(
                object([
                    (
                        "fieldFilter",
                        object([
                            ("field", fieldReference(f.field)), ("op", JSONNode(.string(f.op.rawValue))),
                            ("value", try FirestoreRESTJSON.node(f.value)),
                        ])
                    )
                ]))
        }
        if filters.count == 1 {
            members.append(("where", filters[0]))
        } else if filters.count > 1 {
            members.append(
                (
                    "where",
                    object([
                        (
                            "compositeFilter",
                            object([("op", JSONNode(.string("AND"))), ("filters", JSONNode(.array(filters)))])
                        )
                    ])
                ))
        }
        if !query.orderBy.isEmpty {
            members.append(
                (
                    "orderBy",
                    JSONNode(
                        .array(
                            query.orderBy.map {
                                object([
                                    ("field", fieldReference($0.field)),
                                    ("direction", JSONNode(.string($0.direction.rawValue))),
                                ])
                            }))
                ))
        }
        if let cursor = query.startAt {
            members.append(
                (
                    "startAt",
                    object([
                        ("values", JSONNode(.array(try cursor.values.map { try FirestoreRESTJSON.node($0) }))),
                        ("before", JSONNode(.bool(cursor.before))),
                    ])
                ))
        }
        if let limit = query.limit { members.append(("limit", JSONNode(.integer(Int64(limit))))) }
        return object([("structuredQuery", object(members))])
    }

    // MARK: - HTTP

    /// A path for a URL: each segment percent-encoded.
    static func escaped(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;?#%")
        return FirestoreLimits.slashSegments(path).map {
            String($0).addingPercentEncoding(withAllowedCharacters: allowed) ?? String($0)
        }.joined(separator: "/")
    }

    private func document(_ node: JSONNode, _ bytes: [UInt8]) throws -> FirestoreDocument {
        let doc = try FirestoreRESTJSON.decodeDocument(node: node, sourceBytes: bytes)
        guard let name = doc.name, let split = FirestoreRESTJSON.splitDocumentName(name),
            let createTime = doc.createTime, let updateTime = doc.updateTime
        else { throw FirestoreError(.internal, "a document without name, createTime or updateTime") }
        return FirestoreDocument(path: split.path, fields: doc.fields, createTime: createTime, updateTime: updateTime)
    }

    private func read<T>(_ what: String, _ bytes: [UInt8], _ body: () throws -> T) throws(FirestoreError) -> T {
        do {
            return try body()
        } catch let e as FirestoreError {
            throw e
        } catch {
            throw FirestoreError(
                .internal,
                "cannot read the \(what): \(error); answer: \(String(decoding: bytes.prefix(300), as: UTF8.self))")
        }
    }

    private final class Answer: @unchecked Sendable {
        var data: Data?
        var response: URLResponse?
        var error: Error?
    }

    /// Sends one request and waits; returns the body and its JSON.
    private func send(_ method: String, _ path: String, body: [UInt8]?) throws(FirestoreError) -> ([UInt8], JSONNode) {
        guard let url = URL(string: baseURL.absoluteString.trimmingSuffix("/") + path) else {
            throw FirestoreError(.invalidArgument, "cannot form a URL from \(baseURL) and \(path)")
        }
        let (status, bytes) = try exchange(method, url, body: body)
        let node = try? StrictJSONReader.parse(bytes)
        guard (200..<300).contains(status) else {
            var errorNode = node
            if case .array(let elements)? = node?.kind, let first = elements.first { errorNode = first }
            if case .object(let members)? = errorNode?.kind, let e = members.first(where: { $0.key == "error" }) {
                throw Self.error(e.value, httpStatus: status)
            }
            throw FirestoreError(
                FirestoreStatus(httpStatus: status),
                "HTTP \(status): \(String(decoding: bytes.prefix(300), as: UTF8.self))",
                httpStatus: status)
        }
        guard let node else {
            throw FirestoreError(
                .internal, "the answer is not JSON: \(String(decoding: bytes.prefix(300), as: UTF8.self))",
                httpStatus: status)
        }
        return (bytes, node)
    }

    /// One request's HTTP status and body: over `plain` for `http://`, else `URLSession`.
    /// - Throws: UNAVAILABLE without an HTTP status when no answer came.
    private func exchange(_ method: String, _ url: URL, body: [UInt8]?) throws(FirestoreError) -> (Int, [UInt8]) {
        var headers: [(String, String)] = []
        if let bearerToken { headers.append(("Authorization", "Bearer \(bearerToken)")) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        if let plain {
            do {
                let parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
                let target = (parts?.percentEncodedPath ?? "/") + (parts?.percentEncodedQuery.map { "?" + $0 } ?? "")
                let response = try plain.exchange(method, target, headers: headers, body: body)
                return (response.status, response.body)
            } catch {
                throw FirestoreError(.unavailable, "\(method) \(url.absoluteString): \(error)")
            }
        }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body { request.httpBody = Data(body) }
        let answer = Answer()
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: request) { data, response, error in
            answer.data = data
            answer.response = response
            answer.error = error
            done.signal()
        }
        task.resume()
        done.wait()
        if let error = answer.error {
            throw FirestoreError(.unavailable, "\(method) \(url.absoluteString): \(error.localizedDescription)")
        }
        return ((answer.response as? HTTPURLResponse)?.statusCode ?? 0, [UInt8](answer.data ?? Data()))
    }

    /// A Firestore error object `{"code": 400, "message": …, "status": "INVALID_ARGUMENT"}`.
    static func error(_ node: JSONNode, httpStatus: Int) -> FirestoreError {
        var status = FirestoreStatus(httpStatus: httpStatus)
        var message = ""
        if case .object(let members) = node.kind {
            for m in members {
                if m.key == "status", case .string(let s) = m.value.kind, let st = FirestoreStatus(rawValue: s) {
                    status = st
                }
                if m.key == "message", case .string(let s) = m.value.kind { message = s }
            }
        }
        return FirestoreError(status, message, httpStatus: httpStatus)
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
