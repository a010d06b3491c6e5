/// Kotlin/JVM string semantics the home base id depends on (schema §4: `name.trim().lowercase()`).
///
/// Android computes the id on the JVM, so ours reproduces, byte for byte:
/// - Kotlin `String.trim()`: drops leading and trailing UTF-16 units where Kotlin's
///   `Char.isWhitespace()` is true, i.e. `Character.isWhitespace(c) || Character.isSpaceChar(c)`
///   (U+0009–U+000D, U+001C–U+001F and every Zs/Zl/Zp character, U+00A0, U+2007 and U+202F
///   included; U+0085, U+180E, U+200B and U+FEFF are not whitespace there).
/// - Kotlin `String.lowercase()` = Java `String.toLowerCase(Locale.ROOT)`: `Character.toLowerCase`
///   per code point from Java 17's Unicode 13 tables (``JVMTextTables``, generated from the JVM), plus
///   the two context rules Java applies in every locale: U+0130 → "i\u{307}", and U+03A3 → U+03C2
///   (final sigma) when a cased letter precedes it in the same word and none follows it there.
///   Words are Java's word `BreakIterator` tokens (letters joined by single `-`, `_`, `'`, `"`, `.`,
///   digits and numbers; combining marks and format characters ignored), reproduced by
///   ``JVMText/wordBounds`` and checked against the JVM by IdsJVMOracleTests.
///   Known divergences, both outside any realistic home base name: (1) general categories for the
///   word rules come from Swift's Unicode tables, which differ from Java 17's only for characters
///   assigned after Unicode 13; (2) JDK 17's word iterator treats a surrogate pair next to a capital
///   sigma inconsistently (it depends on where its boundary search starts), so for a Σ in the same
///   word as a supplementary code point we may pick σ where the JVM picks ς or the reverse. We treat
///   every supplementary code point as a word of its own.
enum JVMText {
    static let whitespace: Set<UInt16> = Set(JVMTextTables.whitespaceCodeUnits)

    static let lowercase: [UInt32: UInt32] = {
        var map = [UInt32: UInt32](minimumCapacity: JVMTextTables.lowercasePairs.count / 2)
        var i = 0
        let pairs = JVMTextTables.lowercasePairs
        while i + 1 < pairs.count {
            map[pairs[i]] = pairs[i + 1]
            i += 2
        }
        return map
    }()

    static func isJVMWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value <= 0xFFFF && whitespace.contains(UInt16(scalar.value))
    }

    /// Kotlin `String.trim()`.
    static func trim(_ s: String) -> [Unicode.Scalar] {
        let scalars = Array(s.unicodeScalars)
        var start = 0
        var end = scalars.count
        while start < end && isJVMWhitespace(scalars[start]) { start += 1 }
        while end > start && isJVMWhitespace(scalars[end - 1]) { end -= 1 }
        return Array(scalars[start..<end])
    }

    /// `java.lang.ConditionalSpecialCasing.isCased` (generated ranges).
    static func isCased(_ v: UInt32) -> Bool {
        let r = JVMTextTables.casedRanges
        var lo = 0
        var hi = r.count / 2 - 1
        while lo <= hi {
            let mid = (lo + hi) / 2
            if v < r[2 * mid] {
                hi = mid - 1
            } else if v > r[2 * mid + 1] {
                lo = mid + 1
            } else {
                return true
            }
        }
        return false
    }

    /// Java `String.toLowerCase(Locale.ROOT)` over code points.
    static func lowercased(_ scalars: [Unicode.Scalar]) -> String {
        var out = String.UnicodeScalarView()
        var bounds: [Int]?  // word boundaries, computed only when a capital sigma appears
        for (i, scalar) in scalars.enumerated() {
            let v = scalar.value
            if v == 0x0130 {
                out.append("i")
                out.append("\u{307}")
            } else if v == 0x03A3 {
                if bounds == nil { bounds = wordBounds(scalars) }
                out.append(isFinalCased(scalars, index: i, bounds: bounds!) ? "\u{3C2}" : "\u{3C3}")
            } else if let lower = lowercase[v], let s = Unicode.Scalar(lower) {
                out.append(s)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `ConditionalSpecialCasing.isFinalCased`: a cased letter before `index` in its word, none after.
    static func isFinalCased(_ s: [Unicode.Scalar], index: Int, bounds: [Int]) -> Bool {
        var boundary = [Bool](repeating: false, count: s.count + 1)
        for b in bounds { boundary[b] = true }
        var i = index
        while i > 0 && !boundary[i] {
            if isCased(s[i - 1].value) {
                var j = index + 1
                while j < s.count && !boundary[j] {
                    if isCased(s[j].value) { return false }
                    j += 1
                }
                return true
            }
            i -= 1
        }
        return false
    }

    enum WordClass {
        case letter, digit, danda, kanji, kata, hira, cjkDiacritic, ignore, whitespace, carriageReturn, lineSeparator
        case other
    }

    struct Punctuation: OptionSet {
        let rawValue: UInt8
        static let midWord = Punctuation(rawValue: 1)
        static let midNum = Punctuation(rawValue: 2)
        static let preNum = Punctuation(rawValue: 4)
        static let postNum = Punctuation(rawValue: 8)
    }

    static func classify(_ scalar: Unicode.Scalar) -> (WordClass, Punctuation) {
        let v = scalar.value
        var p: Punctuation = []
        let gc = scalar.properties.generalCategory
        switch gc {
        case .dashPunctuation, .connectorPunctuation: p.insert(.midWord)
        case .currencySymbol where v != 0xA2: p.insert(.preNum)
        default: break
        }
        switch v {
        case 0xAD, 0x2027: p.insert(.midWord)
        case 0x22, 0x27: p.formUnion([.midWord, .midNum])
        case 0x2E: p.formUnion([.midWord, .midNum, .preNum])
        case 0x2C, 0x066B: p.insert(.midNum)
        case 0x23: p.insert(.preNum)
        case 0x25, 0x26, 0xA2, 0x066A, 0x2030, 0x2031: p.insert(.postNum)
        default: break
        }
        // Java 17's word iterator classifies supplementary code points as plain characters.
        if v > 0xFFFF { return (.other, p) }
        if v == 0x0964 || v == 0x0965 { return (.danda, p) }
        if v == 0x3005 || (0x4E00...0x9FA5).contains(v) || (0xF900...0xFA2D).contains(v) { return (.kanji, p) }
        if (0x30A1...0x30FA).contains(v) || v == 0x30FC { return (.kata, p) }
        if (0x3041...0x3094).contains(v) { return (.hira, p) }
        if (0x3099...0x309C).contains(v) { return (.cjkDiacritic, p) }
        // The soft hyphen is named among the mid-word marks, so it is not ignored (unlike other Cf).
        if v == 0xAD { return (.other, p) }
        if v == 0x0D { return (.carriageReturn, p) }
        if v == 0x0A || v == 0x0C || v == 0x2028 || v == 0x2029 { return (.lineSeparator, p) }
        switch gc {
        case .nonspacingMark, .enclosingMark, .format: return (.ignore, p)
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .spacingMark:
            return (.letter, p)
        case .decimalNumber, .letterNumber, .otherNumber: return (.digit, p)
        case .spaceSeparator: return (.whitespace, p)
        default: return v == 0x09 ? (.whitespace, p) : (.other, p)
        }
    }

    /// Boundaries (scalar offsets, 0 and count included) of Java's word BreakIterator over `s`.
    static func wordBounds(_ s: [Unicode.Scalar]) -> [Int] {
        // Ignorable characters attach to the character before them; classify the rest.
        var positions: [Int] = []
        var classes: [(WordClass, Punctuation)] = []
        for (i, scalar) in s.enumerated() {
            let c = classify(scalar)
            if c.0 == .ignore && !positions.isEmpty { continue }
            positions.append(i)
            classes.append(c)
        }
        var bounds = [0]
        var k = 0
        while k < classes.count {
            let length = max(1, wordTokenLength(classes, from: k), runLength(classes, from: k))
            k += length
            bounds.append(k < positions.count ? positions[k] : s.count)
        }
        if bounds.last != s.count { bounds.append(s.count) }
        return bounds
    }

    /// Longest match of `$word?($number$word)*($number$post_num?)?` or `$pre_num(…)` from `k`.
    private static func wordTokenLength(_ c: [(WordClass, Punctuation)], from k: Int) -> Int {
        enum State { case start, preNum, inWord, wordMid, afterDanda, inNumber, numberMid, afterPost }
        var state = State.start
        var best = 0
        var i = k
        loop: while i < c.count {
            let (cls, p) = c[i]
            switch state {
            case .start:
                if cls == .letter {
                    state = .inWord
                } else if cls == .digit {
                    state = .inNumber
                } else if p.contains(.preNum) {
                    state = .preNum
                } else {
                    break loop
                }
            case .preNum:
                if cls == .digit { state = .inNumber } else { break loop }
            case .inWord:
                if cls == .letter {
                    state = .inWord
                } else if cls == .digit {
                    state = .inNumber
                } else if cls == .danda {
                    state = .afterDanda
                } else if p.contains(.midWord) {
                    state = .wordMid
                } else {
                    break loop
                }
            case .wordMid:
                if cls == .letter { state = .inWord } else { break loop }
            case .afterDanda:
                if cls == .digit { state = .inNumber } else { break loop }
            case .inNumber:
                if cls == .digit {
                    state = .inNumber
                } else if cls == .letter {
                    state = .inWord
                } else if p.contains(.postNum) {
                    state = .afterPost
                } else if p.contains(.midNum) {
                    state = .numberMid
                } else {
                    break loop
                }
            case .numberMid:
                if cls == .digit { state = .inNumber } else { break loop }
            case .afterPost:
                break loop
            }
            i += 1
            switch state {
            case .preNum, .inWord, .afterDanda, .inNumber, .afterPost: best = i - k
            default: break
            }
        }
        return best
    }

    /// Runs of whitespace (with an optional CR and line separator), Katakana, Hiragana or Kanji.
    private static func runLength(_ c: [(WordClass, Punctuation)], from k: Int) -> Int {
        let first = c[k].0
        var i = k
        switch first {
        case .kanji:
            while i < c.count && c[i].0 == first { i += 1 }
            return i - k
        case .kata, .hira, .cjkDiacritic:
            // [$kata$cjk_diacrit]* and [$hira$cjk_diacrit]*
            var kind: WordClass? = first == .cjkDiacritic ? nil : first
            while i < c.count {
                let cls = c[i].0
                if cls == .cjkDiacritic || (kind == nil && (cls == .kata || cls == .hira)) || cls == kind {
                    if kind == nil && cls != .cjkDiacritic { kind = cls }
                    i += 1
                } else {
                    break
                }
            }
            return i - k
        case .whitespace, .carriageReturn, .lineSeparator:
            while i < c.count && c[i].0 == .whitespace { i += 1 }
            if i < c.count && c[i].0 == .carriageReturn { i += 1 }
            if i < c.count && c[i].0 == .lineSeparator { i += 1 }
            return i - k
        default:
            return 0
        }
    }
}
