// TernInboxUI: `InboxView`, the inbox drawn in SwiftUI (Apple/InboxView.swift, iOS only). Its
// decisions live in TernInbox's `InboxViewModel`, which builds and is tested on Linux.
@_exported import TernInbox
