import Foundation

#if canImport(Glibc)
    import Glibc
    private let systemConnect = Glibc.connect
    private let streamSocket = Int32(SOCK_STREAM.rawValue)
    /// `send` flags: no SIGPIPE for a peer that closed (Darwin sets `SO_NOSIGPIPE` on the socket).
    private let sendFlags = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
    import Darwin
    private let systemConnect = Darwin.connect
    private let streamSocket = SOCK_STREAM
    private let sendFlags: Int32 = 0
#endif

/// Blocking HTTP/1.1 over plain TCP for an `http://` base URL (the emulators on loopback): each
/// request on a kept-alive connection of its own thread, so commits in flight together really
/// overlap. On Linux, `URLSession` sends every request from one serial queue and costs milliseconds
/// of dispatch per request; with it, eight commits in flight ran no faster than one at a time.
/// `https://` stays on `URLSession`.
final class PlainHTTPClient: @unchecked Sendable {
    /// What an exchange answered.
    struct Response: Equatable {
        var status: Int
        var body: [UInt8]
    }

    /// Why an exchange failed, in words for `FirestoreError`'s message.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// True when the connection was closed before any byte of the answer arrived: a kept-alive
        /// connection the server had already dropped, where sending again is safe.
        var beforeAnswer = false
    }

    let host: String
    let port: Int
    let timeout: Double
    private let lock = NSLock()
    private var idle: [Int32] = []

    /// - Parameters:
    ///   - host: a host name or address (`127.0.0.1`, `localhost`).
    ///   - port: the TCP port.
    ///   - timeout: seconds allowed for connecting, and for each send and receive.
    init(host: String, port: Int, timeout: Double) {
        self.host = host
        self.port = port
        self.timeout = timeout
    }

    deinit { for fd in idle { close(fd) } }

    /// One request and its answer. A kept-alive connection that turns out closed before any byte of
    /// the answer is replaced once by a new one.
    /// - Parameters:
    ///   - method: `GET`, `POST`, …
    ///   - target: the path and query (`/v1/…`).
    ///   - headers: header lines beside `Host` and `Content-Length` (HTTP/1.1 keeps the connection).
    ///   - body: the request body, if any.
    /// - Throws: `Failure` when the host cannot be reached, a timeout passes, or the answer is not
    ///   HTTP/1.1.
    func exchange(_ method: String, _ target: String, headers: [(String, String)], body: [UInt8]?) throws(Failure)
        -> Response
    {
        var request = "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "Content-Length: \(body?.count ?? 0)\r\n\r\n"
        var bytes = Array(request.utf8)
        if let body { bytes += body }
        if let fd = takeIdle() {
            do {
                return try exchange(on: fd, bytes)
            } catch let failure where failure.beforeAnswer {
                // The server dropped the idle connection: a new one below.
            }
        }
        return try exchange(on: try connect(), bytes)
    }

    /// Sends `bytes` on `fd` and reads one answer; keeps `fd` for the next request when the answer
    /// allows, closes it otherwise.
    private func exchange(on fd: Int32, _ bytes: [UInt8]) throws(Failure) -> Response {
        var reader = HTTPResponseReader()
        do throws(Failure) {
            try sendAll(fd, bytes)
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n < 0 {
                    let code = errno
                    if code == EINTR { continue }
                    throw Failure(
                        description: code == EAGAIN || code == EWOULDBLOCK
                            ? "no answer within \(timeout) s" : "receive failed: \(String(cString: strerror(code)))",
                        beforeAnswer: reader.isEmpty && code == ECONNRESET)
                }
                if n == 0 {
                    guard let response = reader.finish() else {
                        throw Failure(
                            description: "the connection closed before the answer", beforeAnswer: reader.isEmpty)
                    }
                    close(fd)
                    return response
                }
                if let (response, keepAlive) = try reader.feed(buffer[0..<n]) {
                    if keepAlive { putIdle(fd) } else { close(fd) }
                    return response
                }
            }
        } catch {
            close(fd)
            throw error
        }
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws(Failure) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, sendFlags) }
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                throw Failure(
                    description: "send failed: \(String(cString: strerror(code)))",
                    beforeAnswer: code == EPIPE || code == ECONNRESET)
            }
            sent += n
        }
    }

    /// A new connection: every address of `host` tried in turn, `TCP_NODELAY` set (a request goes
    /// out whole, and must not wait for the acknowledgement of the one before).
    private func connect() throws(Failure) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamSocket
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw Failure(description: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let info = next {
            next = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd < 0 { continue }
            var seconds = timeval()
            seconds.tv_sec = .init(timeout)
            seconds.tv_usec = .init((timeout - timeout.rounded(.down)) * 1e6)
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Darwin)
                _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            if systemConnect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
            lastError = String(cString: strerror(errno))
            close(fd)
        }
        throw Failure(description: "cannot connect to \(host):\(port): \(lastError)")
    }

    private func takeIdle() -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        return idle.popLast()
    }

    private func putIdle(_ fd: Int32) {
        lock.lock()
        defer { lock.unlock() }
        idle.append(fd)
    }
}

/// Reads one HTTP/1.1 answer from the bytes of a connection as they arrive: the status line, the
/// headers, then a body of `Content-Length` bytes, in chunks (`Transfer-Encoding: chunked`), or up
/// to the connection's end. Informational (1xx) answers are skipped.
struct HTTPResponseReader {
    private var buffer: [UInt8] = []
    private var head: (status: Int, length: Int?, chunked: Bool, keepAlive: Bool, bodyStart: Int)?
    /// True until the first byte arrives.
    private(set) var isEmpty = true
    /// Where the search for the head's end goes on: each feed looks at its own bytes, not the
    /// whole buffer again.
    private var headSearchedTo = 0
    /// A chunked body: the whole chunks read so far, and where the next chunk's size line starts
    /// (after the last chunk: where its trailers do).
    private var chunkedBody: [UInt8] = []
    private var nextChunk = 0
    private var lastChunkRead = false

    /// Adds bytes; the answer, and whether the connection may carry another request, once whole.
    /// - Throws: `PlainHTTPClient.Failure` for a malformed status line, header or chunk size.
    mutating func feed(_ bytes: ArraySlice<UInt8>) throws(PlainHTTPClient.Failure)
        -> (PlainHTTPClient.Response, keepAlive: Bool)?
    {
        isEmpty = isEmpty && bytes.isEmpty
        buffer += bytes
        while head == nil {
            guard let end = Self.find([13, 10, 13, 10], in: buffer, from: headSearchedTo) else {
                headSearchedTo = max(0, buffer.count - 3)
                return nil
            }
            let parsed = try Self.parseHead(buffer[0..<end])
            headSearchedTo = 0
            if (100..<200).contains(parsed.status) {
                buffer.removeSubrange(0..<end + 4)
                continue
            }
            head = (parsed.status, parsed.length, parsed.chunked, parsed.keepAlive, end + 4)
            nextChunk = end + 4
        }
        guard let head else { return nil }
        if head.chunked {
            guard try readChunks() else { return nil }
            return (PlainHTTPClient.Response(status: head.status, body: chunkedBody), head.keepAlive)
        }
        if let length = head.length {
            guard buffer.count - head.bodyStart >= length else { return nil }
            let body = Array(buffer[head.bodyStart..<head.bodyStart + length])
            return (PlainHTTPClient.Response(status: head.status, body: body), head.keepAlive)
        }
        return nil
    }

    /// The answer at the connection's end: whole when its body runs to the end; nil when it was cut.
    func finish() -> PlainHTTPClient.Response? {
        guard let head, !head.chunked, head.length == nil else { return nil }
        return PlainHTTPClient.Response(status: head.status, body: Array(buffer[head.bodyStart...]))
    }

    private static func parseHead(_ bytes: ArraySlice<UInt8>) throws(PlainHTTPClient.Failure)
        -> (status: Int, length: Int?, chunked: Bool, keepAlive: Bool)
    {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines[0].split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]),
            (100..<600).contains(status)
        else {
            throw PlainHTTPClient.Failure(description: "not an HTTP/1.1 status line: \(lines[0].prefix(80))")
        }
        var length: Int?
        var chunked = false
        var keepAlive = statusLine[0] == "HTTP/1.1"
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else {
                throw PlainHTTPClient.Failure(description: "a header line without a colon: \(line.prefix(80))")
            }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces).lowercased()
            switch name {
            case "content-length":
                guard let n = Int(value), n >= 0 else {
                    throw PlainHTTPClient.Failure(description: "Content-Length is not a length: \(value.prefix(40))")
                }
                length = n
            case "transfer-encoding": chunked = value.hasSuffix("chunked")
            case "connection": keepAlive = value.contains("keep-alive") || (keepAlive && !value.contains("close"))
            default: continue
            }
        }
        if (100..<200).contains(status) || status == 204 || status == 304 { length = 0 }
        return (status, length, chunked, keepAlive)
    }

    /// Moves every whole chunk that arrived into `chunkedBody`, from where the last feed stopped
    /// (a feed costs its own bytes, not the body's again); true once the last chunk and the
    /// trailers' end are in.
    private mutating func readChunks() throws(PlainHTTPClient.Failure) -> Bool {
        while !lastChunkRead {
            guard let lineEnd = Self.find([13, 10], in: buffer, from: nextChunk) else { return false }
            let sizeText = String(decoding: buffer[nextChunk..<lineEnd], as: UTF8.self)
            let sizeField = sizeText.split(separator: ";", omittingEmptySubsequences: false).first ?? ""
            guard let size = Int(sizeField.trimmingCharacters(in: .whitespaces), radix: 16),
                size >= 0
            else {
                throw PlainHTTPClient.Failure(description: "not a chunk size: \(sizeText.prefix(40))")
            }
            let data = lineEnd + 2
            if size == 0 {
                // The trailers, if any, start with the size line's own line break.
                lastChunkRead = true
                nextChunk = lineEnd
                break
            }
            // Subtracted, not added: a size near Int.max must not overflow.
            guard buffer.count - data - 2 >= size else { return false }
            chunkedBody += buffer[data..<data + size]
            nextChunk = data + size + 2
        }
        // Trailers, if any, end with an empty line.
        return Self.find([13, 10, 13, 10], in: buffer, from: nextChunk) != nil
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        var i = start
        while i <= bytes.count - needle.count {
            if bytes[i] == needle[0], bytes[i..<i + needle.count].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}
