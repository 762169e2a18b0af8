import Foundation
import Synchronization
import TernHTTP

/// HTTP/2 connections to one provider, each a lane of its own `HTTP2Client` holding exactly one
/// connection. Requests go to the first lane with a free stream; the next lane (a new connection)
/// opens only when every open lane has `streamsPerLane` requests in flight, up to `maxLanes`;
/// past that, requests queue on the least busy lane. So a credential normally uses one
/// multiplexed connection, and more only under load, without racing the peer's SETTINGS.
final class HTTP2Lanes: Sendable {
    private struct State {
        var clients: [HTTP2Client] = []
        var inFlight: [Int] = []
    }

    let streamsPerLane: Int
    let maxLanes: Int
    private let configuration: HTTP2Client.Configuration
    private let state = Mutex(State())

    /// Opens the first lane at once, so a bad CA file fails here and not at the first push.
    init(configuration: HTTP2Client.Configuration, maxLanes: Int, streamsPerLane: Int) throws {
        var configuration = configuration
        configuration.maxConnectionsPerHost = 1
        configuration.maxConcurrentStreams = max(1, streamsPerLane)
        self.configuration = configuration
        self.maxLanes = max(1, maxLanes)
        self.streamsPerLane = max(1, streamsPerLane)
        let first = try HTTP2Client(configuration: configuration)
        state.withLock { state in
            state.clients = [first]
            state.inFlight = [0]
        }
    }

    func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        let (index, client) = acquire()
        defer { state.withLock { $0.inFlight[index] -= 1 } }
        return try await client.send(request)
    }

    private func acquire() -> (Int, HTTP2Client) {
        state.withLock { state in
            if let free = state.inFlight.firstIndex(where: { $0 < streamsPerLane }) {
                state.inFlight[free] += 1
                return (free, state.clients[free])
            }
            if state.clients.count < maxLanes, let client = try? HTTP2Client(configuration: configuration) {
                state.clients.append(client)
                state.inFlight.append(1)
                return (state.clients.count - 1, client)
            }
            let least = state.inFlight.indices.min { state.inFlight[$0] < state.inFlight[$1] } ?? 0
            state.inFlight[least] += 1
            return (least, state.clients[least])
        }
    }
}
