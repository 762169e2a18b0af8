import Foundation

/// Reads a `Retry-After` header (RFC 9110 §10.2.3), for the SDK (the Tern API's 429 and 503) and the
/// server (APNs', FCM's and HMS's) alike: delay seconds (`"120"`, digits only) or an HTTP date
/// (`"Wed, 21 Oct 2026 07:28:00 GMT"`, or the two obsolete forms).
///
/// ```swift
/// RetryAfter.seconds("120", now: now)   // 120
/// RetryAfter.seconds("-5", now: now)    // nil: not a delay the RFC allows, so it is ignored
/// ```
public enum RetryAfter {
    /// Seconds to wait from `now`; a past date gives 0; nil when absent or neither form (a negative
    /// or fractional number is neither: the caller falls back to its own backoff).
    public static func seconds(_ header: String?, now: Date = Date()) -> TimeInterval? {
        guard let value = header?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ (48...57).contains($0) }) {
            return Double(value).map { min($0, Double(Int32.max)) }
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: value) { return max(0, date.timeIntervalSince(now)) }
        }
        return nil
    }
}
