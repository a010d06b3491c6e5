import Testing

@testable import VultureSyncEngine

/// The push passes walk their rows with `Draining`: front to back, each row freed as the loop
/// leaves it, never a copy of the whole array.
@Suite("Draining: a pass frees each row as it goes")
struct DrainingTests {
    final class Element {
        let name: String
        let log: Log
        init(_ name: String, _ log: Log) {
            self.name = name
            self.log = log
        }
        deinit { log.lines.append("free \(name)") }
    }

    final class Log { var lines: [String] = [] }

    @Test func eachElementIsFreedBeforeTheNextIsReached() {
        let log = Log()
        let elements = ["a", "b", "c"].map { Element($0, log) }
        for element in Draining(consume elements) {
            log.lines.append("visit \(element.name)")
        }
        #expect(log.lines == ["visit a", "free a", "visit b", "free b", "visit c", "free c"])
    }

    @Test func aWhereClauseSkipsAndFreesInOrder() {
        let log = Log()
        let elements = (0..<4).map { Element(String($0), log) }
        for element in Draining(consume elements) where element.name != "1" {
            log.lines.append("visit \(element.name)")
        }
        #expect(log.lines == ["visit 0", "free 0", "free 1", "visit 2", "free 2", "visit 3", "free 3"])
    }
}
