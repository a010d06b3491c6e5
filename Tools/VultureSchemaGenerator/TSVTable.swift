/// A strictly read tab-separated table of `Spec/`.
///
/// Format: UTF-8, LF line ends; lines starting with `#` are comments and empty lines are skipped;
/// the first other line is the header naming the columns; every row has exactly as many cells as the
/// header; a cell is never empty and has no spaces at either end (write `-` for "none").
public struct TSVTable: Sendable {
    /// Display path used in errors, e.g. `Spec/fields.tsv`.
    public let file: String
    /// Column names in header order.
    public let columns: [String]
    /// Line number of the header.
    public let headerLine: Int
    /// Rows that have the right number of cells, in file order.
    public let rows: [TSVRow]

    /// Reads `text` as a table whose header must hold exactly `columns` (in any order).
    ///
    /// - Returns: the table (nil when no usable header was found) and every problem found:
    ///   a missing or unknown or repeated column, a row with too few or too many cells, an empty cell,
    ///   a cell with spaces at either end, a carriage return, a control character or line separator in a
    ///   cell, a byte-order mark, a file that does not end in exactly one newline. A row with the wrong
    ///   cell count is left out.
    public static func parse(_ text: String, file: String, columns expected: [String]) -> (
        table: TSVTable?, errors: [SpecError]
    ) {
        var errors: [SpecError] = []
        var header: [String]?
        var headerLine = 0
        var rows: [TSVRow] = []
        var text = Substring(text)
        if text.unicodeScalars.first == "\u{FEFF}" {
            errors.append(
                SpecError(
                    file: file, line: 1, message: "a byte-order mark starts the file; save it as UTF-8 without one"))
            text = Substring(text.unicodeScalars.dropFirst())
        }
        // Split on the LF byte: as Characters, "\r\n" is one grapheme and would hide the line end.
        let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // One trailing newline: the split then ends in one empty piece.
        if !text.isEmpty {
            if lines.last?.isEmpty == false {
                errors.append(
                    SpecError(file: file, line: lines.count, message: "the file does not end with a newline; add one"))
            } else if lines.count >= 2, lines[lines.count - 2].isEmpty {
                let firstEmpty = (lines.lastIndex { !$0.isEmpty } ?? -1) + 2
                errors.append(
                    SpecError(
                        file: file, line: firstEmpty,
                        message: "empty lines end the file; end it with one newline after the last line"))
            }
        }
        for (offset, rawLine) in lines.enumerated() {
            let lineNumber = offset + 1
            var bytes = Array(rawLine)
            if bytes.contains(UInt8(ascii: "\r")) {
                errors.append(
                    SpecError(file: file, line: lineNumber, message: "carriage return in line; use LF line ends"))
                bytes.removeAll { $0 == UInt8(ascii: "\r") }
            }
            let line = String(decoding: bytes, as: UTF8.self)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            errors += controlCharacterErrors(in: cells, header: header, file: file, line: lineNumber)
            guard let columns = header else {
                header = cells
                headerLine = lineNumber
                var seen = Set<String>()
                for name in cells {
                    if !seen.insert(name).inserted {
                        errors.append(
                            SpecError(
                                file: file, line: lineNumber, message: "column '\(name)' appears twice in the header"))
                    }
                    if !expected.contains(name) {
                        errors.append(
                            SpecError(
                                file: file, line: lineNumber,
                                message:
                                    "unknown column '\(name)'; expected columns: \(expected.joined(separator: ", "))"))
                    }
                }
                for name in expected where !cells.contains(name) {
                    errors.append(SpecError(file: file, line: lineNumber, message: "missing required column '\(name)'"))
                }
                continue
            }
            guard cells.count == columns.count else {
                errors.append(
                    SpecError(
                        file: file, line: lineNumber,
                        message: "row has \(cells.count) cells, the header has \(columns.count)"))
                continue
            }
            var values: [String: String] = [:]
            var rowIsUsable = true
            for (name, cell) in zip(columns, cells) {
                if cell.isEmpty {
                    errors.append(
                        SpecError(
                            file: file, line: lineNumber, message: "empty cell in column '\(name)'; write - for none"))
                    rowIsUsable = false
                } else if cell.first!.isWhitespace || cell.last!.isWhitespace {
                    errors.append(
                        SpecError(
                            file: file, line: lineNumber, message: "cell in column '\(name)' has spaces at either end"))
                }
                if values[name] == nil { values[name] = cell }
            }
            if rowIsUsable { rows.append(TSVRow(location: SpecLocation(file: file, line: lineNumber), cells: values)) }
        }
        guard let columns = header else {
            errors.append(SpecError(file: file, line: 0, message: "no header line"))
            return (nil, errors)
        }
        // Rows cannot be read safely when a required column is missing.
        if expected.contains(where: { !columns.contains($0) }) { return (nil, errors) }
        return (TSVTable(file: file, columns: columns, headerLine: headerLine, rows: rows), errors)
    }
}

/// A control character (U+0000–U+001F other than the tab that separates cells, U+007F–U+009F) or a
/// line or paragraph separator in a cell: none belongs in a table, and each would reach the generated
/// Swift, Markdown and JSON unseen. One problem per cell, at its first such character: its code point,
/// its column (`header` names the columns of a data row; nil for the header itself) and its position in
/// the line, counted in Unicode scalars from 1.
func controlCharacterErrors(in cells: [String], header: [String]?, file: String, line: Int) -> [SpecError] {
    var errors: [SpecError] = []
    var position = 1
    for (index, cell) in cells.enumerated() {
        let scalars = Array(cell.unicodeScalars)
        let bad = scalars.firstIndex { scalar in
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator: true
            default: false
            }
        }
        if let bad {
            let code = String(scalars[bad].value, radix: 16, uppercase: true)
            let name = header.map { index < $0.count ? "column '\($0[index])'" : "cell \(index + 1)" } ?? "the header"
            errors.append(
                SpecError(
                    file: file, line: line,
                    message:
                        "character U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code) in \(name) "
                        + "at character \(position + bad) of the line: a control character or line separator; remove it"
                ))
        }
        position += scalars.count + 1
    }
    return errors
}

/// One data row of a ``TSVTable``: its location and its cells by column name.
public struct TSVRow: Sendable {
    /// Where the row is.
    public let location: SpecLocation
    /// Cell text by column name (`-` still present as `-`).
    public let cells: [String: String]

    /// The cell of `column` as written (`-` included); empty when the column does not exist.
    public subscript(column: String) -> String { cells[column] ?? "" }

    /// The cell of `column`, or nil when it is `-`.
    public func optional(_ column: String) -> String? {
        let value = self[column]
        return value == "-" ? nil : value
    }
}
