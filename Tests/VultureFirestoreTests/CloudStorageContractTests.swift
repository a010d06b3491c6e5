import Foundation
import Testing
import VultureEmulators
import VultureFirestore
import VultureSyncSchema

/// The Cloud Storage emulator tests' gate: they run where fake-gcs-server is installed, and where
/// it is missing but `VULTURE_REQUIRE_EMULATOR=1` (`.ci/run`), so that CI fails instead of skipping.
enum StorageEmulatorSupport {
    static let availability = CloudStorageEmulator.availability()

    /// True when the fake-gcs-server tests should run.
    static let enabled: Bool = {
        if case .available = availability { return true }
        return FirestoreEmulator.isRequired
    }()

    /// Why they are skipped, printed beside the skipped test.
    static let skipReason: Comment = {
        if case .unavailable(let why) = availability {
            if !FirestoreEmulator.isRequired { print("skipped: Cloud Storage emulator tests: \(why)") }
            return Comment(rawValue: why)
        }
        return "fake-gcs-server is available"
    }()

    /// A client for a bucket of its own on the shared server.
    static func client() throws -> CloudStorageRESTClient {
        try CloudStorageEmulator.shared().client(bucket: EmulatorSupport.uniqueCollection("bucket"))
    }
}

/// One contract for both Cloud Storage implementations (schema §2 Storage objects, §5.1): the
/// in-memory bucket the simulation uses must answer as fake-gcs-server does over the JSON API.
enum CloudStorageContract {
    /// Runs every clause against `storage`, which must be empty.
    static func check(_ storage: CloudStorage, uid: String) throws {
        let gz = try Gzip.compress(Data("name,code\n\"Field\",F1\n".utf8))
        let recordId = DocumentIds.contentHash(contentBytes: Data("map".utf8))
        let path = try BlobPaths.contentObjectPath(uid: uid, contentHash: DocumentIds.contentHash(contentBytes: gz))
        let metadata = try StorageObjectMetadata.mapFileContent(recordId: recordId)
        let object = StorageObject(
            path: path, bytes: gz, contentType: metadata.contentType, contentEncoding: metadata.contentEncoding,
            customMetadata: metadata.customMetadata)

        #expect(try storage.download(path) == nil, "nothing there yet")
        try storage.upload(object, onlyIfAbsent: true)

        // A second upload with ifGenerationMatch=0 is refused as a precondition failure and changes nothing.
        var other = object
        other.bytes = try Gzip.compress(Data("other".utf8))
        do {
            try storage.upload(other, onlyIfAbsent: true)
            Issue.record("a second upload with ifGenerationMatch=0 was accepted")
        } catch {
            #expect(error.kind == .preconditionFailed)
            #expect(error.httpStatus == 412)
        }

        let stored = try #require(try storage.download(path))
        #expect(stored.path == path)
        #expect(stored.bytes == gz, "the gzipped bytes come back as uploaded (no transcoding)")
        #expect(stored.contentType == "application/gzip")
        #expect(stored.contentType == StorageObjectKind.mapFileContent.contentType)
        #expect(stored.contentEncoding == nil, "no Content-Encoding")
        #expect(stored.customMetadata == ["recordId": recordId])
        #expect(try Gzip.decompress(stored.bytes) == Data("name,code\n\"Field\",F1\n".utf8))

        // Without the condition an upload replaces the object with a new generation.
        try storage.upload(other, onlyIfAbsent: false)
        let replaced = try #require(try storage.download(path))
        #expect(replaced.bytes == other.bytes)
        #expect(replaced.generation > stored.generation)

        // An IGC object: no custom metadata.
        let igcPath = try BlobPaths.igcObjectPath(uid: uid, flightId: String(repeating: "a", count: 64))
        try storage.upload(
            StorageObject(
                path: igcPath, bytes: gz, contentType: StorageObjectMetadata.igc.contentType,
                contentEncoding: StorageObjectMetadata.igc.contentEncoding), onlyIfAbsent: true)
        #expect(try storage.download(igcPath)?.customMetadata == [:])

        try storage.delete(path)
        #expect(try storage.download(path) == nil)
        try storage.delete(path)  // a missing object is no error
        #expect(try storage.download(igcPath) != nil, "a delete removes only its object")
    }
}

@Suite struct CloudStorageContractTests {
    @Test func inMemoryBucketKeepsTheContract() throws {
        try CloudStorageContract.check(InMemoryCloudStorage(), uid: "u1")
    }

    @Test(.enabled(if: StorageEmulatorSupport.enabled, StorageEmulatorSupport.skipReason))
    func fakeGCSServerKeepsTheContract() throws {
        try CloudStorageContract.check(try StorageEmulatorSupport.client(), uid: "u1")
    }

    @Test(.enabled(if: StorageEmulatorSupport.enabled, StorageEmulatorSupport.skipReason))
    func serverStartsAndStopsByProcessGroup() throws {
        let server = try CloudStorageEmulator.start()
        defer { server.stop() }
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
        let client = try server.client(bucket: "start-stop")
        try client.upload(
            StorageObject(path: "users/u1/igc/x.igc.gz", bytes: Data([1, 2]), contentType: "application/gzip"),
            onlyIfAbsent: true)
        #expect(try client.download("users/u1/igc/x.igc.gz")?.bytes == Data([1, 2]))
        #expect(server.isRunning)
        server.stop()
        #expect(!server.isRunning, "no process of the server's group is alive")
        #expect(throws: CloudStorageError.self) { try client.download("users/u1/igc/x.igc.gz") }
        server.stop()
    }
}
