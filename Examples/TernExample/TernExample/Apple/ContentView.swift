import SwiftUI
import TernCore
import TernProfile
import TernPush
import TernTarget

/// One screen: the subscription's buttons, a goal, a tag, and the SDK's events as they come.
struct ContentView: View {
    @ObservedObject var log: EventLog

    var body: some View {
        NavigationStack {
            List {
                Section("Push subscription") {
                    Button("Subscribe") { Tern.shared.push.subscription.subscribe() }
                    Button("Suspend") { Tern.shared.push.subscription.suspend() }
                    Button("Unsubscribe", role: .destructive) { Tern.shared.push.subscription.unsubscribe() }
                }
                Section("Goals and tags") {
                    Button("Send a goal") {
                        Tern.shared.target.sendTarget(
                            sid: ExampleSettings.pixelSid, eventName: "demo_button", payload: ["screen": "home"])
                    }
                    Button("Tag: interest = travel") { Tern.shared.profile.tags.setTags(["interest": "travel"]) }
                }
                Section("Events") {
                    if log.entries.isEmpty {
                        Text("No events yet").foregroundStyle(.secondary)
                    }
                    ForEach(log.entries) { entry in
                        VStack(alignment: .leading, spacing: 2) {
                            Text(entry.function).font(.headline)
                                .foregroundStyle(entry.isError ? Color.red : Color.primary)
                            Text(entry.message).font(.caption)
                            Text(entry.date, style: .time).font(.caption2).foregroundStyle(.secondary)
                        }
                    }
                }
            }
            .navigationTitle("Tern example")
        }
    }
}
