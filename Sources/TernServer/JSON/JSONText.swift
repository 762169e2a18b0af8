/// JSON string literals written by hand where a whole encoder is too much: error envelopes, log
/// lines, stored JSON.
enum JSONText {
    /// Appends `text` to `out` as a JSON string literal, quoted and escaped (`/` is left as is).
    ///
    /// ```swift
    /// var line = "{\"msg\":"
    /// JSONText.appendString("a \"quote\"", to: &line)   // {"msg":"a \"quote\""
    /// ```
    static func appendString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
