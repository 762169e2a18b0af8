import Foundation
import Synchronization

/// What the rest of the pool sees of one connection: its phase, its streams in use, the peer's
/// stream limit.
final class PoolConnectionHandle: Sendable {
    enum Phase: Int {
        case connecting = 0
        case ready = 1
        /// GOAWAY received, or the connection is closing: it takes no new requests.
        case draining = 2
    }

    let number: Int
    let configuredLimit: Int
    private let phaseValue = Atomic<Int>(Phase.connecting.rawValue)
    let active = Atomic<Int>(0)
    /// SETTINGS_MAX_CONCURRENT_STREAMS from the peer (unlimited until it says).
    let peerLimit = Atomic<Int>(Int.max)

    init(number: Int, limit: Int) {
        self.number = number
        configuredLimit = limit
    }

    var phase: Phase {
        get { Phase(rawValue: phaseValue.load(ordering: .acquiring)) ?? .draining }
        set { phaseValue.store(newValue.rawValue, ordering: .releasing) }
    }

    /// Streams the connection may still open.
    var limit: Int { min(configuredLimit, peerLimit.load(ordering: .relaxed)) }

    /// Requests this connection can take now; a connection still opening counts as all room.
    var room: Int {
        switch phase {
        case .connecting: configuredLimit
        case .ready: max(0, limit - active.load(ordering: .relaxed))
        case .draining: 0
        }
    }
}
