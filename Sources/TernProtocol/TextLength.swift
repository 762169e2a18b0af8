import Foundation

/// How Tern counts a string's length against a limit: in Unicode code points, as JSON Schema's
/// `maxLength` (and so the API document) counts them. Not grapheme clusters (`String.count`
/// takes "a" and 500 combining marks as one character) and not UTF-8 bytes (a limit the document
/// states in characters must let 256 "é" through).
///
/// ```swift
/// TextLength.of("e\u{301}") // 2
/// TextLength.fits("Ada", max: 128) // true
/// ```
public enum TextLength {
    /// The number of code points in `text`.
    public static func of(_ text: String) -> Int { text.unicodeScalars.count }

    /// True when `text` has at most `max` code points.
    public static func fits(_ text: String, max: Int) -> Bool {
        // Stops counting past the limit: a long string costs no more than the limit.
        var count = 0
        for _ in text.unicodeScalars {
            count += 1
            if count > max { return false }
        }
        return true
    }
}
