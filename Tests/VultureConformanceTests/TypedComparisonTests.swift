import Testing
import VultureConformance
import VultureSchemaCore
import VultureSyncSchema

@Suite struct TypedComparisonTests {
    @Test func equalValuesHaveNoDifferences() {
        let v: FirestoreValue = .map(["a": .array([.double(.nan), .integer(1)]), "b": .map(["c": .null])])
        #expect(TypedComparison.differences(expected: v, actual: v).isEmpty)
    }

    @Test func misspeltFieldGetsDidYouMean() {
        let d = TypedComparison.differences(
            expected: .map(["waterBallast": .integer(80)]), actual: .map(["waterBalast": .integer(80)]))
        #expect(d.count == 2)
        #expect(d[0].pointer == "/waterBallast" && d[0].kind == .missing && d[0].hint == "written as \"waterBalast\"?")
        #expect(d[1].pointer == "/waterBalast" && d[1].kind == .unexpected && d[1].hint == "did you mean waterBallast?")
        #expect(
            d[1].description
                == "/waterBalast: unexpected: expected (absent), actual integer 80 — did you mean waterBallast?")
    }

    @Test func integerWhereDoubleIsWanted() {
        let d = TypedComparison.differences(
            expected: .map(["summary": .map(["optimizedDistance": .double(300_000)])]),
            actual: .map(["summary": .map(["optimizedDistance": .integer(300_000)])]))
        #expect(d.count == 1)
        #expect(d[0].pointer == "/summary/optimizedDistance")
        #expect(d[0].kind == .typeMismatch)
        #expect(d[0].hint == "an integer where the schema wants a double: write 300000.0")
    }

    @Test func clientTimeForUpdatedAt() throws {
        let t = try FirestoreTimestamp(seconds: 1_792_504_987)
        let d = TypedComparison.differences(
            expected: .map(["updatedAt": .serverTimestamp]), actual: .map(["updatedAt": .timestamp(t)]))
        #expect(d.count == 1)
        #expect(d[0].hint?.hasPrefix("updatedAt must be the server-timestamp sentinel") == true)
    }

    @Test func omittedNullIsExplained() {
        let d = TypedComparison.differences(expected: .map(["taskId": .null]), actual: .map([:]))
        #expect(d.count == 1)
        #expect(d[0].kind == .missing)
        #expect(d[0].hint?.contains("written as null") == true)
    }

    @Test func arrayLengthAndElementDifferences() {
        let d = TypedComparison.differences(
            expected: .array([.integer(1), .integer(2)]), actual: .array([.integer(1), .integer(3), .integer(4)]))
        #expect(d.map(\.pointer) == ["/1", ""])
        #expect(d.map(\.kind) == [.valueMismatch, .valueMismatch])
    }

    @Test(arguments: [
        ("waterBallast", "waterBalast", 1), ("isRead", "isReda", 1), ("abc", "abc", 0), ("", "ab", 2),
        ("kitten", "sitting", 3), ("R1", "r1", 1),
    ])
    func editDistance(_ a: String, _ b: String, _ d: Int) {
        #expect(TypedComparison.editDistance(a, b) == d)
    }
}

@Suite struct FailureListTests {
    @Test func parsesIdsCommentsAndBlankLines() throws {
        let list = try FailureList(
            text: "# known failures\nrequired.a.b  # reason\n\n  required.c\n", file: "fails.txt")
        #expect(list.entries == ["required.a.b": 2, "required.c": 4])
    }

    @Test func byteOrderMarkAndCRLFAreRead() throws {
        let list = try FailureList(text: "\u{FEFF}required.a.b\r\n# note\r\nrequired.c\r\n", file: "windows.txt")
        #expect(list.entries == ["required.a.b": 1, "required.c": 3])
    }

    @Test func duplicateEntryIsAnError() {
        #expect {
            try FailureList(text: "x\ny\nx\n", file: "f.txt")
        } throws: { ($0 as? FailureListError)?.description == "f.txt:3: x is listed already on line 1" }
    }

    @Test func reconcileIsStrictBothWays() throws {
        let list = try FailureList(text: "fails.now\npasses.now\nno.such.case\nskipped.case\n", file: "f.txt")
        let results = [
            CaseResult(id: "fails.now", section: "§1", outcome: .failed(message: "x", differences: [])),
            CaseResult(id: "passes.now", section: "§1", outcome: .passed),
            CaseResult(id: "fails.unlisted", section: "§1", outcome: .failed(message: "y", differences: [])),
            CaseResult(id: "skipped.case", section: "§1", outcome: .skipped(reason: "n/a")),
        ]
        let r = list.reconcile(results, allCaseIDs: Set(results.map(\.id)))
        #expect(r.unexpectedFailures == ["fails.unlisted"])
        #expect(r.unexpectedPasses == ["passes.now"])
        #expect(r.unknownEntries.map(\.id) == ["no.such.case"])
        #expect(r.unknownEntries.map(\.line) == [3])
        #expect(!r.isExact)
    }
}
