import Foundation
import Testing

/// Every top-level public declaration of `Sources/` carries its own doc comment: a `///` line
/// directly above it (attributes aside). A comment written above the file's `import` lines is not
/// attached to anything, so Quick Help and the DocC catalogs show the type as undocumented.
@Suite struct PublicDocCommentTests {
    static let root = specDirectory.deletingLastPathComponent()

    /// `FILE:LINE: declaration` for each top-level public declaration without a doc comment.
    static func undocumented() throws -> [String] {
        let sources = root.appendingPathComponent("Sources")
        guard let walk = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else {
            return ["Sources/: cannot be listed"]
        }
        let declaration = #/^(public|open)\s+(final\s+)?(struct|enum|class|actor|protocol|func|let|var|typealias)\b/#
        var found: [String] = []
        for case let url as URL in walk where url.pathExtension == "swift" {
            let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
            let file = String(url.path.dropFirst(root.path.count + 1))
            for (index, line) in lines.enumerated() where line.contains(declaration) {
                var above = index - 1
                while above >= 0 && lines[above].hasPrefix("@") { above -= 1 }
                if above < 0 || !lines[above].hasPrefix("///") { found.append("\(file):\(index + 1): \(line)") }
            }
        }
        return found.sorted()
    }

    @Test func everyTopLevelPublicDeclarationHasItsDocComment() throws {
        let found = try Self.undocumented()
        #expect(found == [], "\(found.joined(separator: "\n"))")
    }
}
