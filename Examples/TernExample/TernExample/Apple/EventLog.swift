import Combine
import Foundation
import TernCore

/// The SDK's events as the screen lists them.
@MainActor
final class EventLog: ObservableObject {
    struct Entry: Identifiable {
        let id: UUID
        let function: String
        let message: String
        let isError: Bool
        let date: Date
    }

    @Published private(set) var entries: [Entry] = []

    /// Keeps the newest 200 events.
    func append(_ event: Event) {
        let entry = Entry(
            id: event.id, function: event.function, message: event.message ?? "", isError: event is ErrorEvent,
            date: event.date)
        entries.insert(entry, at: 0)
        if entries.count > 200 { entries.removeLast(entries.count - 200) }
    }
}
