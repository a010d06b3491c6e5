import Foundation

/// A line diff in unified form, shared by the generator's and the goldens writer's drift checks
/// (package-internal: not part of the library's API).
package enum LineDiff {
    /// `--- a/PATH` / `+++ b/PATH` followed by `@@ -l,n +l,n @@` hunks.
    package static func unified(old: String, new: String, path: String) -> String {
        let a = lines(old)
        let b = lines(new)
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] {
            suffix += 1
        }
        let midA = Array(a[prefix..<(a.count - suffix)])
        let midB = Array(b[prefix..<(b.count - suffix)])
        // Edit script: (kind, line) with kind " ", "-" or "+", over the whole files.
        var script: [(Character, String)] = a[..<prefix].map { (" ", $0) }
        script += middle(midA, midB)
        script += a[(a.count - suffix)...].map { (" ", $0) }
        return "--- a/\(path)\n+++ b/\(path)\n" + hunks(script)
    }

    private static func lines(_ text: String) -> [String] {
        var result = text.components(separatedBy: "\n")
        if result.last == "" { result.removeLast() }
        return result
    }

    /// Longest-common-subsequence edit script; falls back to delete-all/insert-all for huge middles.
    private static func middle(_ a: [String], _ b: [String]) -> [(Character, String)] {
        if a.isEmpty || b.isEmpty || a.count * b.count > 16_000_000 {
            return a.map { ("-", $0) } + b.map { ("+", $0) }
        }
        let n = a.count
        let m = b.count
        var table = [[Int32]](repeating: [Int32](repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                table[i][j] = a[i] == b[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var script: [(Character, String)] = []
        var i = 0
        var j = 0
        while i < n && j < m {
            if a[i] == b[j] {
                script.append((" ", a[i]))
                i += 1
                j += 1
            } else if table[i + 1][j] >= table[i][j + 1] {
                script.append(("-", a[i]))
                i += 1
            } else {
                script.append(("+", b[j]))
                j += 1
            }
        }
        script += a[i...].map { ("-", $0) }
        script += b[j...].map { ("+", $0) }
        return script
    }

    private static func hunks(_ script: [(Character, String)]) -> String {
        let context = 3
        let changes = script.indices.filter { script[$0].0 != " " }
        guard !changes.isEmpty else { return "" }
        // Group change indices whose context windows touch.
        var groups: [(Int, Int)] = []
        for index in changes {
            if let last = groups.last, index - last.1 <= 2 * context {
                groups[groups.count - 1].1 = index
            } else {
                groups.append((index, index))
            }
        }
        // Line numbers before each script position.
        var oldLine = [Int](repeating: 0, count: script.count + 1)
        var newLine = [Int](repeating: 0, count: script.count + 1)
        for (k, step) in script.enumerated() {
            oldLine[k + 1] = oldLine[k] + (step.0 == "+" ? 0 : 1)
            newLine[k + 1] = newLine[k] + (step.0 == "-" ? 0 : 1)
        }
        var out = ""
        for (first, last) in groups {
            let start = max(0, first - context)
            let end = min(script.count, last + context + 1)
            let oldCount = oldLine[end] - oldLine[start]
            let newCount = newLine[end] - newLine[start]
            out += "@@ -\(oldLine[start] + (oldCount > 0 ? 1 : 0)),\(oldCount)"
            out += " +\(newLine[start] + (newCount > 0 ? 1 : 0)),\(newCount) @@\n"
            for step in script[start..<end] { out += "\(step.0)\(step.1)\n" }
        }
        return out
    }
}
