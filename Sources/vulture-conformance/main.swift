import Foundation
import VultureSyncSchema

// Until the conformance runner lands, the main command says what the package offers.
print(
    """
    vulture-conformance — Vulture sync schema, document format version \(VultureSyncSchema.documentSchemaVersion)

    The package offers, as the library VultureSyncSchema:
      FirestoreValue       typed Firestore values and write sentinels, with Firestore's limits
      CanonicalJSON        strict reader and byte-canonical writer of the suite's typed JSON
      FirestoreRESTJSON    Firestore REST Document / Value JSON, both ways
      StorageSize          Firestore's document storage-size estimate

    Tests: swift test    Benchmarks: swift run -c release vulture-benchmark --help
    """)
