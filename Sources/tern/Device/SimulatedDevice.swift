import Foundation
import TernCore
import TernPush
import TernServer

/// One simulated device: an SDK instance on a directory, configured against a server.
final class SimulatedDevice: Sendable {
    let tern: Tern
    let setup: DeviceSetup
    let lifecycle = ManualAppLifecycle()
    static let appGroup = "group.tern.device"

    init(_ setup: DeviceSetup) throws {
        self.setup = setup
        var environment = TernEnvironment.directory(
            setup.dataDirectory,
            deviceInfo: HostDeviceInfo(os: "IOS", model: setup.model, name: setup.name, osVersion: setup.osVersion))
        environment.lifecycle = lifecycle
        tern = Tern(environment: environment)
    }

    /// Subscribes to events and configures the SDK.
    func start() async {
        if !setup.quiet {
            await MainActor.run {
                tern.eventSDKFunctions.subscribe { event in
                    FileHandle.standardOutput.write(Data((DeviceEventPrinter.line(event) + "\n").utf8))
                }
            }
        }
        if let jwt = setup.jwt { tern.setJWTProvider(provider: StaticJWT(token: jwt)) }
        if let token = setup.identityToken { tern.identity.setIdentityTokenProvider(StaticIdentityToken(token: token)) }
        tern.setAppGroup(groupName: Self.appGroup)
        tern.initialization(
            configuration: TernConfiguration.Builder(apiUrl: setup.apiUrl).setRToken(setup.rToken)
                .setIdentityMode(setup.identityMode).setApnsEnvironment(setup.apnsEnvironment).build())
    }

    /// Waits for the outbox, stops the SDK and returns the exit status.
    func finish() async -> Int32 {
        var status: Int32 = 0
        if setup.wait > 0, await !tern.flush(timeout: setup.wait) {
            let pending = await tern.outboxStatistics()?.pending.values.reduce(0, +) ?? 0
            FileHandle.standardError.write(
                Data("tern device: \(pending) requests still queued; the next run sends them\n".utf8))
            status = 3
        }
        await tern.shutdown()
        return status
    }

    /// Runs commands read from standard input, one per line, until it ends.
    func runScript() async {
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            guard let command = words.first, !command.hasPrefix("#") else { continue }
            do {
                try await perform(command, try DeviceCommand.spec.parse(words))
            } catch {
                FileHandle.standardError.write(Data("tern device: \(error)\n".utf8))
            }
        }
    }

    func perform(_ command: String, _ arguments: Arguments) async throws {
        let push = tern.push
        switch command {
        case "set-token":
            push.token.setToken(
                provider: try arguments.required("provider"), pushToken: try arguments.required("token"))
        case "token":
            let token = await withCheckedContinuation { continuation in
                push.token.getToken { continuation.resume(returning: $0) }
            }
            Self.output(["token": DeviceEventPrinter.json(token as Any)])
        case "subscribe", "suspend", "unsubscribe":
            try changeSubscription(command, arguments)
        case "status":
            try await status(arguments)
        case "goals":
            try await DeviceGoals(tern: tern, arguments: arguments).run()
        case "delivery", "open":
            try await pushEvent(command, messageId: try arguments.required("message-id"))
        case "live-activity-token", "live-activity-end":
            try liveActivity(command, arguments)
        case "identity-login":
            tern.identity.login(externalId: try arguments.position(1, "EXTERNAL_ID"))
            await tern.flushQueues()
            Self.output(["identity": "queued"])
        case "identity-logout":
            tern.identity.logout()
            await tern.flushQueues()
            Self.output(["identity": "queued"])
        case "identity-state":
            let state = await tern.identity.identityState
            let fields: [String: Any] = [
                "external_id": state.confirmedExternalId as Any, "binding_id": state.confirmed?.bindingId as Any,
                "version": state.confirmed?.version as Any, "pending": state.pending.map(\.kind.rawValue),
                "halted": state.halted?.code as Any,
            ]
            Self.output(fields.mapValues(DeviceEventPrinter.json))
        case "authenticate": tern.authFunctions.authenticate()
        case "logout": tern.authFunctions.logOut()
        case "consent":
            guard let value = arguments.positionals.dropFirst().first, ["on", "off"].contains(value) else {
                throw CommandError("consent takes on or off")
            }
            tern.setCollectionEnabled(value == "on")
        case "foreground": await lifecycle.set(.foreground)
        case "background": await lifecycle.set(.background)
        case "flush": break
        case "outbox":
            await tern.flushQueues()
            let statistics = await tern.outboxStatistics()
            Self.output(
                [
                    "ordered": statistics?.pending[.ordered] ?? 0, "events": statistics?.pending[.events] ?? 0,
                    "enqueued_total": statistics?.enqueuedTotal ?? 0,
                    "acknowledged_total": statistics?.acknowledgedTotal ?? 0,
                    "dropped_total": statistics?.droppedTotal ?? 0,
                ])
        case "clear":
            await withCheckedContinuation { continuation in tern.clear { continuation.resume() } }
        case _ where Self.inboxCommands.contains(command):
            try await performInbox(command, arguments)
        default:
            throw CommandError("unknown device command \(command) (see tern device --help)")
        }
    }

    private func changeSubscription(_ command: String, _ arguments: Arguments) throws {
        let cats = try arguments.all("cat").map { text -> CategoryData in
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard let name = parts.first, !name.isEmpty else { throw CommandError("--cat takes NAME[=true|false]") }
            return CategoryData(name: name, active: parts.count == 2 ? parts[1] == "true" : true)
        }
        let sync = try arguments.bool("sync", default: true)
        let profile = try arguments.fields("profile-field")
        let custom = try arguments.fields("custom-field")
        let replace: Bool? = arguments.has("replace") ? true : nil
        let skip: Bool? = arguments.has("skip-triggers") ? true : nil
        let subscription = tern.push.subscription
        let cat = cats.isEmpty ? nil : cats
        switch command {
        case "subscribe":
            subscription.subscribe(
                sync: sync, profileFields: profile, customFields: custom, cats: cat, replace: replace,
                skipTriggers: skip)
        case "suspend":
            subscription.suspend(
                sync: sync, profileFields: profile, customFields: custom, cats: cat, replace: replace,
                skipTriggers: skip)
        default:
            subscription.unsubscribe(
                sync: sync, profileFields: profile, customFields: custom, cats: cat, replace: replace,
                skipTriggers: skip)
        }
    }

    private func status(_ arguments: Arguments) async throws {
        let subscription = tern.push.subscription
        let mode = arguments.positionals.dropFirst().first ?? "current"
        let response = await withCheckedContinuation { continuation in
            switch mode {
            case "latest": subscription.latest { continuation.resume(returning: $0) }
            case "latest-for-provider":
                subscription.latestForProvider(provider: arguments.value("provider")) {
                    continuation.resume(returning: $0)
                }
            default: subscription.current { continuation.resume(returning: $0) }
            }
        }
        Self.output([
            "http_code": DeviceEventPrinter.json(response?.httpCode as Any),
            "response": DeviceEventPrinter.json(response?.response as Any),
        ])
    }

    /// A Live Activity's token or end through `Tern.shared.push.liveActivities`, as ActivityKit's
    /// glue on an iPhone hands them in.
    private func liveActivity(_ command: String, _ arguments: Arguments) throws {
        let api = tern.push.liveActivities
        let type = try arguments.required("activity-type")
        let id = arguments.value("activity-id")
        guard command == "live-activity-token" else {
            if let id {
                api.end(activityId: id, activityType: type)
            } else {
                api.removePushToStartToken(activityType: type)
            }
            return
        }
        let hex = try arguments.required("token")
        var token = Data()
        var digits = hex.makeIterator()
        while let high = digits.next() {
            guard let low = digits.next(), let byte = UInt8(String([high, low]), radix: 16) else {
                throw CommandError("--token must be hex digits in pairs, not \(hex)")
            }
            token.append(byte)
        }
        if let id {
            api.setToken(token, activityId: id, activityType: type)
        } else {
            api.setPushToStartToken(token, activityType: type)
        }
    }

    /// Writes one JSON line to standard output, unbuffered (events and answers stay in order).
    static func output(_ object: [String: Any]) {
        FileHandle.standardOutput.write(Data((DeviceEventPrinter.jsonLine(object) + "\n").utf8))
    }

    /// A delivery or open through the core's events lane, as TernPush's push events write them.
    private func pushEvent(_ kind: String, messageId: String) async throws {
        let item = PushEventRequest.Item(
            messageId: messageId, type: kind == "open" ? .open : .delivery,
            time: Int64(Date().timeIntervalSince1970 * 1000))
        let entry = OutboxEntry(
            endpoint: .eventPush, lane: .events, body: try JSONEncoder().encode(item),
            meta: OutboxMeta(
                function: kind == "open" ? "openEvent" : "deliveryEvent",
                success: PushModuleEvents.pushEventRequestSuccessful, failure: PushModuleEvents.pushEventRequestFailed))
        tern.core.perform(entry.meta.function) { ready in await ready.enqueue(entry) }
    }
}
