import Foundation
import Synchronization

/// The management-API key a request was made with, for its log lines: the ``Router`` opens one
/// per request, ``AdminKeyCheck`` writes the key's id into it, and ``Logger`` adds that id as
/// `key_id` to every line logged while the request runs. The key itself is never logged.
final class KeyNote: Sendable {
    @TaskLocal static var current: KeyNote?

    private let value = Mutex<Int64?>(nil)

    var keyId: Int64? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
