import Foundation
import Testing

@testable import VultureFirestore

#if canImport(Glibc)
    import Glibc
    private let streamSocket = Int32(SOCK_STREAM.rawValue)
    private let sendFlags = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
    import Darwin
    private let streamSocket = SOCK_STREAM
    private let sendFlags: Int32 = 0
#endif

/// The HTTP/1.1 transport of `http://` base URLs: answers read whole however they arrive, kept-alive
/// connections reused, and one the server dropped replaced.
@Suite struct PlainHTTPClientTests {
    /// Feeds `text` one byte at a time; the answer once whole.
    func read(_ text: String) throws -> (PlainHTTPClient.Response, keepAlive: Bool)? {
        var reader = HTTPResponseReader()
        for byte in Array(text.utf8) {
            if let whole = try reader.feed([byte]) { return whole }
        }
        return nil
    }

    @Test func aContentLengthAnswerArrivingByteByByte() throws {
        let answer = try #require(try read("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello"))
        #expect(answer.0 == PlainHTTPClient.Response(status: 200, body: Array("hello".utf8)))
        #expect(answer.keepAlive)
    }

    @Test func aChunkedAnswerWithAnExtensionAndATrailer() throws {
        let answer = try #require(
            try read(
                "HTTP/1.1 404 Not Found\r\ntransfer-encoding: chunked\r\n\r\n4;x=y\r\n{\"a\"\r\n2\r\n:1\r\n1\r\n}\r\n0\r\nX-T: 1\r\n\r\n"
            ))
        #expect(answer.0 == PlainHTTPClient.Response(status: 404, body: Array("{\"a\":1}".utf8)))
    }

    /// Chunks that arrive split anywhere (a size line, the data, the line break after it) are read
    /// once each, in order, after an informational answer.
    @Test func aChunkedAnswerArrivingInUnevenPieces() throws {
        let chunks = (0..<40).map { k in
            String(repeating: Character(UnicodeScalar(UInt8(65 + k % 26))), count: 1 + k * 37)
        }
        var text = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        for chunk in chunks { text += String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n" }
        text += "0\r\n\r\n"
        let bytes = Array(text.utf8)
        for step in [1, 2, 3, 7, 64, 1000, bytes.count] {
            var reader = HTTPResponseReader()
            var answer: (PlainHTTPClient.Response, keepAlive: Bool)?
            var at = 0
            while at < bytes.count {
                let piece = bytes[at..<min(at + step + at % 5, bytes.count)]
                at = piece.endIndex
                #expect(answer == nil, "step \(step): answered before its last chunk")
                answer = try reader.feed(piece)
            }
            let whole = PlainHTTPClient.Response(status: 200, body: Array(chunks.joined().utf8))
            #expect(answer?.0 == whole, "step \(step)")
        }
    }

    @Test func aChunkSizeNearTheLargestIntegerWaitsForItsBytesWithoutOverflow() throws {
        var reader = HTTPResponseReader()
        let text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\nabc"
        #expect(try reader.feed(ArraySlice(text.utf8)) == nil)
        #expect(reader.finish() == nil)
    }

    @Test func connectionCloseAndHTTP10EndTheConnection() throws {
        #expect(try read("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")?.keepAlive == false)
        #expect(try read("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")?.keepAlive == false)
        #expect(try read("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n")?.keepAlive == true)
    }

    @Test func anInformationalAnswerIsSkipped() throws {
        let answer = try #require(
            try read("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok"))
        #expect(answer.0 == PlainHTTPClient.Response(status: 201, body: Array("ok".utf8)))
    }

    @Test func aBodyToTheConnectionsEndIsWholeOnlyThen() throws {
        var reader = HTTPResponseReader()
        #expect(try reader.feed(ArraySlice("HTTP/1.1 200 OK\r\n\r\nto the end".utf8)) == nil)
        #expect(reader.finish() == PlainHTTPClient.Response(status: 200, body: Array("to the end".utf8)))
        var cut = HTTPResponseReader()
        #expect(cut.isEmpty)
        #expect(try cut.feed(ArraySlice("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf".utf8)) == nil)
        #expect(!cut.isEmpty)
        #expect(cut.finish() == nil, "a body shorter than its Content-Length is cut, not whole")
    }

    @Test(arguments: [
        ("SSH-2.0-OpenSSH\r\n\r\n", "not an HTTP/1.1 status line"),
        ("HTTP/1.1 abc OK\r\n\r\n", "not an HTTP/1.1 status line"),
        ("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "a header line without a colon"),
        ("HTTP/1.1 200 OK\r\nContent-Length: -3\r\n\r\n", "Content-Length is not a length"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "not a chunk size"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", "not a chunk size"),
    ])
    func malformedAnswersAreFailuresThatSayWhy(text: String, reason: String) {
        var reader = HTTPResponseReader()
        #expect {
            _ = try reader.feed(ArraySlice(text.utf8))
        } throws: { error in
            (error as? PlainHTTPClient.Failure)?.description.hasPrefix(reason) == true
        }
    }

    /// Two requests share one connection; after the server drops it while idle, the third goes on a
    /// new one and is answered.
    @Test func aKeptAliveConnectionIsReusedAndADroppedOneReplaced() throws {
        let server = try LoopbackServer { request, connection in
            // The server answers two requests on each connection, then closes it without answering.
            connection.served += 1
            guard connection.served <= 2 else { return nil }
            return "HTTP/1.1 200 OK\r\nContent-Length: \(request.count)\r\n\r\n\(request)"
        }
        defer { server.stop() }
        let client = PlainHTTPClient(host: "127.0.0.1", port: server.port, timeout: 5)
        for (k, path) in ["/one", "/two", "/three"].enumerated() {
            let response = try client.exchange("GET", path, headers: [("X-K", "\(k)")], body: nil)
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self).hasPrefix("GET \(path) HTTP/1.1"))
        }
        #expect(server.connections == 2, "the first connection carried two requests; the third took a new one")
    }

    @Test func aServerThatNeverAnswersTimesOut() throws {
        let server = try LoopbackServer { _, _ in "" }
        defer { server.stop() }
        let client = PlainHTTPClient(host: "127.0.0.1", port: server.port, timeout: 0.3)
        #expect {
            _ = try client.exchange("POST", "/commit", headers: [], body: Array("{}".utf8))
        } throws: { error in
            (error as? PlainHTTPClient.Failure)?.description == "no answer within 0.3 s"
        }
    }

    @Test func nothingListeningIsAFailureNamingTheAddress() throws {
        // A port just closed: bound, then released.
        let server = try LoopbackServer { _, _ in nil }
        let port = server.port
        server.stop()
        let client = PlainHTTPClient(host: "127.0.0.1", port: port, timeout: 1)
        #expect {
            _ = try client.exchange("GET", "/", headers: [], body: nil)
        } throws: { error in
            (error as? PlainHTTPClient.Failure)?.description.hasPrefix("cannot connect to 127.0.0.1:\(port)") == true
        }
    }
}

/// A one-thread HTTP server on a loopback port for these tests: reads a request head (and a body of
/// its `Content-Length`), hands it to `answer`, and writes what that returns; nil closes the
/// connection without answering, "" answers nothing and keeps it open.
final class LoopbackServer: @unchecked Sendable {
    final class Connection {
        var served = 0
    }

    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var accepted = 0
    private var open: [Int32] = []

    var connections: Int {
        lock.lock()
        defer { lock.unlock() }
        return accepted
    }

    init(answer: @escaping @Sendable (String, Connection) -> String?) throws {
        let listener = socket(AF_INET, streamSocket, 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 8) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw PlainHTTPClient.Failure(description: "cannot listen on loopback")
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { self.serve(answer) }
    }

    private func serve(_ answer: (String, Connection) -> String?) {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                close(listener)
                return
            }
            #if canImport(Darwin)
                var one: Int32 = 1
                _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            lock.lock()
            accepted += 1
            open.append(fd)
            lock.unlock()
            let connection = Connection()
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            reading: while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                pending += buffer[0..<n]
                while let end = pending.indices.dropLast(3).first(where: {
                    pending[$0..<$0 + 4].elementsEqual([13, 10, 13, 10])
                }) {
                    let head = String(decoding: pending[..<end], as: UTF8.self)
                    let length =
                        head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
                    guard pending.count >= end + 4 + length else { break }
                    let request = String(decoding: pending[..<(end + 4 + length)], as: UTF8.self)
                    pending.removeFirst(end + 4 + length)
                    guard let reply = answer(request, connection) else { break reading }
                    _ = Array(reply.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, sendFlags) }
                }
            }
            // Forgotten before it is closed: stop() must never shut down a number the system has
            // since given to another test's socket.
            lock.lock()
            open.removeAll { $0 == fd }
            close(fd)
            lock.unlock()
        }
    }

    /// Stops listening and closes every connection (the accept loop ends).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        lock.lock()
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
        lock.unlock()
    }
}
