#if os(iOS)
    import SwiftUI
    import TernInbox

    /// The signed-in person's inbox, drawn ready: newest first, unread ones marked, a tap marks a
    /// message read and opens its link, a designed card's buttons and offer, and what an empty inbox
    /// says. Every decision is `InboxViewModel`'s (TernInbox); this view only draws it.
    ///
    /// ```swift
    /// InboxView(Tern.shared, onUnread: { unread = $0 })
    ///     .navigationTitle(unread > 0 ? "Inbox (\(unread))" : "Inbox")
    /// ```
    @available(iOSApplicationExtension, unavailable)
    public struct InboxView: View {
        private let inbox: Inbox
        private let onOpen: ((URL) -> Void)?
        private let onCustom: ((InboxMessage, InboxCardButton) -> Void)?
        private let onOffer: ((InboxMessage, InboxOffer) -> Void)?
        private let onUnread: ((Int) -> Void)?
        @State private var model: InboxViewModel
        @State private var messages: [String: InboxMessage] = [:]
        @Environment(\.openURL) private var openURL

        /// The inbox of `tern`.
        ///
        /// - Parameters:
        ///   - tern: the SDK instance (`Tern.shared`).
        ///   - locale: the language to write it in; the person's chosen one unless given.
        ///   - onOpen: what a tap on a message's link does; the system opens it unless given.
        ///   - onCustom: a designed card's own button was pressed.
        ///   - onOffer: a card's offer button was pressed.
        ///   - onUnread: the unread count, as it changes.
        ///   - empty: what an empty inbox says; "No messages" in the locale's language unless given.
        public init(
            _ tern: Tern, locale: Locale? = nil, onOpen: ((URL) -> Void)? = nil,
            onCustom: ((InboxMessage, InboxCardButton) -> Void)? = nil,
            onOffer: ((InboxMessage, InboxOffer) -> Void)? = nil,
            onUnread: ((Int) -> Void)? = nil, empty: String? = nil
        ) {
            inbox = tern.inbox
            self.onOpen = onOpen
            self.onCustom = onCustom
            self.onOffer = onOffer
            self.onUnread = onUnread
            _model = State(initialValue: InboxViewModel(locale: locale ?? .autoupdatingCurrent, emptyText: empty))
        }

        /// The inbox's messages, or the empty inbox's text, following the inbox as it changes.
        public var body: some View {
            Group {
                if model.screen.isEmpty {
                    Text(model.screen.emptyText).foregroundStyle(.secondary).frame(
                        maxWidth: .infinity, maxHeight: .infinity)
                } else {
                    List(model.screen.rows) { row in
                        InboxRowView(
                            row: row, onTap: { tap(row.id) }, onButton: { press(row.id, $0) },
                            onOffer: { offer(row) })
                    }
                    .listStyle(.plain)
                }
            }
            .refreshable { _ = try? await inbox.sync() }
            .task {
                for await snapshot in inbox.updates() {
                    messages = Dictionary(snapshot.messages.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
                    if let unread = model.apply(snapshot, now: Date()) { onUnread?(unread) }
                }
            }
            .task { _ = try? await inbox.sync() }
        }

        private func tap(_ id: String) {
            let outcome = model.tap(id)
            if let read = outcome.markRead { inbox.markRead(id: read) }
            if let url = outcome.open {
                if let onOpen { onOpen(url) } else { openURL(url) }
            }
        }

        private func press(_ id: String, _ button: String) {
            guard let (read, pressed) = model.press(id, button: button), let message = messages[id] else { return }
            if let read { inbox.markRead(id: read) }
            onCustom?(message, pressed)
        }

        private func offer(_ row: InboxRow) {
            guard let offer = row.offer, let message = messages[row.id] else { return }
            if row.unread { inbox.markRead(id: row.id) }
            onOffer?(message, offer)
        }
    }

    /// One card.
    struct InboxRowView: View {
        let row: InboxRow
        let onTap: () -> Void
        let onButton: (String) -> Void
        let onOffer: () -> Void

        var body: some View {
            VStack(alignment: .leading, spacing: 6) {
                HStack(alignment: .firstTextBaseline) {
                    if row.unread { Circle().fill(Color.accentColor).frame(width: 8, height: 8) }
                    if let title = row.title { Text(title).font(.headline) }
                    Spacer()
                    Text(row.dateText).font(.caption).foregroundStyle(.secondary)
                }
                if let body = row.body { Text(body).font(.body) }
                if let image = row.imageURL {
                    AsyncImage(url: image) {
                        $0.resizable().scaledToFit()
                    } placeholder: {
                        Color.clear.frame(height: 0)
                    }
                }
                if !row.buttons.isEmpty || row.offer != nil {
                    HStack {
                        ForEach(row.buttons) { button in
                            Button(button.title) { onButton(button.id) }.buttonStyle(.bordered)
                        }
                        if let offer = row.offer {
                            Button(offer.title, action: onOffer).buttonStyle(.borderedProminent)
                        }
                    }
                }
            }
            .contentShape(Rectangle())
            .onTapGesture(perform: onTap)
        }
    }
#endif
