import Dispatch
import Foundation
import VultureSchemaCore
import VultureSyncSchema

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Cloud Storage's JSON API for `fake-gcs-server` or a real bucket: multipart upload with
/// `ifGenerationMatch=0`, media download, delete — each a blocking call. Objects keep the content
/// type and custom metadata they are uploaded with, and no Content-Encoding (schema §2 Storage
/// objects: no transcoding).
public final class CloudStorageRESTClient: CloudStorage, Sendable {
    /// Scheme, host and port (`http://127.0.0.1:4443`, `https://storage.googleapis.com`).
    public let baseURL: URL
    /// The bucket.
    public let bucket: String
    /// A bearer token, if any.
    public let bearerToken: String?
    /// Seconds allowed for each request.
    public let timeout: Double
    private let session: URLSession

    /// A client for one bucket.
    public init(baseURL: URL, bucket: String, bearerToken: String? = nil, timeout: Double = 30) {
        self.baseURL = baseURL
        self.bucket = bucket
        self.bearerToken = bearerToken
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// The object name as one URL path segment (every `/` escaped).
    static func escaped(_ name: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
    }

    /// Creates the bucket (fake-gcs-server needs it before the first upload); an existing bucket is fine.
    /// - Throws: ``CloudStorageError``.
    public func createBucket(project: String) throws(CloudStorageError) {
        let body = Data("{\"name\":\(CanonicalJSON.compactString(.string(bucket)))}".utf8)
        do {
            _ = try send("POST", "/storage/v1/b?project=\(Self.escaped(project))", body: body, type: "application/json")
        } catch  where error.httpStatus == 409 {
            return
        }
    }

    public func upload(_ object: StorageObject, onlyIfAbsent: Bool) throws(CloudStorageError) {
        var metadata: [String: FirestoreValue] = [
            "name": .string(object.path), "contentType": .string(object.contentType),
        ]
        if let encoding = object.contentEncoding { metadata["contentEncoding"] = .string(encoding) }
        if !object.customMetadata.isEmpty {
            metadata["metadata"] = .map(object.customMetadata.mapValues { .string($0) })
        }
        let boundary = "vulture-\(object.bytes.count)-boundary"
        var body = Data("--\(boundary)\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n".utf8)
        body += Data(CanonicalJSON.compactString(.map(metadata)).utf8)
        body += Data("\r\n--\(boundary)\r\nContent-Type: \(object.contentType)\r\n\r\n".utf8)
        body += object.bytes
        body += Data("\r\n--\(boundary)--\r\n".utf8)
        let condition = onlyIfAbsent ? "&ifGenerationMatch=0" : ""
        _ = try send(
            "POST", "/upload/storage/v1/b/\(Self.escaped(bucket))/o?uploadType=multipart\(condition)", body: body,
            type: "multipart/related; boundary=\(boundary)")
    }

    public func download(_ path: String) throws(CloudStorageError) -> StorageObject? {
        let base = "/storage/v1/b/\(Self.escaped(bucket))/o/\(Self.escaped(path))"
        let meta: Data
        do { meta = try send("GET", base, body: nil, type: nil) } catch  where error.kind == .notFound { return nil }
        let bytes: Data
        do { bytes = try send("GET", base + "?alt=media", body: nil, type: nil) } catch  where error.kind == .notFound {
            return nil
        }
        guard let node = try? StrictJSONReader.parse(Array(meta)), case .object(let members) = node.kind else {
            throw CloudStorageError(.invalid, "object metadata is not a JSON object")
        }
        func string(_ key: String) -> String? {
            guard case .string(let s)? = members.first(where: { $0.key == key })?.value.kind else { return nil }
            return s
        }
        var custom: [String: String] = [:]
        if case .object(let c)? = members.first(where: { $0.key == "metadata" })?.value.kind {
            for m in c { if case .string(let s) = m.value.kind { custom[m.key] = s } }
        }
        let generation = string("generation").flatMap { Int64($0) } ?? 0
        let contentType = string("contentType") ?? ""
        let encoding = string("contentEncoding").flatMap { $0.isEmpty ? nil : $0 }
        return StorageObject(
            path: path, bytes: bytes, contentType: contentType, contentEncoding: encoding, customMetadata: custom,
            generation: generation)
    }

    public func delete(_ path: String) throws(CloudStorageError) {
        do {
            _ = try send(
                "DELETE", "/storage/v1/b/\(Self.escaped(bucket))/o/\(Self.escaped(path))", body: nil, type: nil)
        } catch  where error.kind == .notFound {
            return
        }
    }

    private final class Answer: @unchecked Sendable {
        var data: Data?
        var response: URLResponse?
        var error: Error?
    }

    /// One request, waited for; the body on a 2xx answer.
    private func send(_ method: String, _ path: String, body: Data?, type: String?) throws(CloudStorageError) -> Data {
        guard
            let url = URL(string: baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + path)
        else { throw CloudStorageError(.invalid, "cannot form a URL from \(baseURL) and \(path)") }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        if let bearerToken { request.setValue("Bearer \(bearerToken)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue(type, forHTTPHeaderField: "Content-Type")
        }
        let answer = Answer()
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: request) { data, response, error in
            answer.data = data
            answer.response = response
            answer.error = error
            done.signal()
        }.resume()
        done.wait()
        if let error = answer.error {
            throw CloudStorageError(.unavailable, "\(method) \(url.absoluteString): \(error.localizedDescription)")
        }
        let status = (answer.response as? HTTPURLResponse)?.statusCode ?? 0
        let data = answer.data ?? Data()
        guard (200..<300).contains(status) else {
            let kind: CloudStorageError.Kind =
                switch status {
                case 404: .notFound
                case 412: .preconditionFailed
                case 401, 403: .permissionDenied
                case 429: .resourceExhausted
                case 500...: .unavailable
                default: .invalid
                }
            throw CloudStorageError(
                kind, "\(method) \(path): \(String(decoding: data.prefix(300), as: UTF8.self))", httpStatus: status)
        }
        return data
    }
}
