import Foundation
import Synchronization
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// A batch goes through its projects' clients (and, for APNs, each environment's): a batch of one
/// project and environment as it came, a mixed one split, each part to its own client, and a
/// project without a credential answered as such.
@Suite struct ProjectClientSenderTests {
    /// A client that records the delivery ids it was given and answers each sent.
    final class RecordingClient: ProjectPushClient {
        let name: String
        let given = Mutex<[[Int64]]>([])

        init(name: String) { self.name = name }

        func send(_ pushes: [OutgoingPush]) async -> [Int64: DeliveryOutcome] {
            given.withLock { $0.append(pushes.map(\.deliveryId)) }
            return Dictionary(uniqueKeysWithValues: pushes.map { ($0.deliveryId, .sent(providerMessageId: name)) })
        }
    }

    static func push(_ id: Int64, project: Int64, _ environment: APNsEnvironment) -> OutgoingPush {
        OutgoingPush(
            deliveryId: id, messageId: "m", projectId: project, provider: .huawei, token: "t\(id)",
            payload: Data("{}".utf8), pushType: .alert, priority: nil, expiration: nil, collapseId: nil, topic: nil,
            environment: environment)
    }

    @Test func aBatchGoesThroughEachProjectAndEnvironmentsOwnClient() async throws {
        let directory = try TemporaryDirectory(prefix: "tern-project-sender")
        defer { directory.remove() }
        let credentials = CredentialStore(directory: directory.path("credentials"))
        for project: Int64 in [1, 2] {
            try await credentials.put(
                .huawei, projectId: project, json: Data(#"{"app_id":"10\#(project)","client_secret":"s"}"#.utf8))
        }
        let made = Mutex<[String: RecordingClient]>([:])
        let sender = ProjectClientSender<RecordingClient>(
            kind: .huawei, credentials: credentials, logger: Logger(minimum: .error, sink: { _ in }),
            splitsByEnvironment: true
        ) { credential, environment in
            guard case .hms(let hms) = credential else { return nil }
            let name = "\(hms.appId)-\(environment?.rawValue ?? "any")"
            return (
                "fingerprint",
                {
                    made.withLock { clients in
                        if let client = clients[name] { return client }
                        let client = RecordingClient(name: name)
                        clients[name] = client
                        return client
                    }
                }
            )
        }
        func given() -> [String: [[Int64]]] {
            made.withLock { $0.mapValues { client in client.given.withLock { $0 } } }
        }

        // One project, one environment: the batch as it came, in its order.
        let single = await sender.send([3, 1, 2].map { Self.push($0, project: 1, .production) })
        #expect(
            single == [
                3: .sent(providerMessageId: "101-production"), 1: .sent(providerMessageId: "101-production"),
                2: .sent(providerMessageId: "101-production"),
            ])
        #expect(given() == ["101-production": [[3, 1, 2]]])

        // Mixed: each part through its own client; a project without a credential is told so.
        let mixed = await sender.send([
            Self.push(10, project: 1, .production), Self.push(11, project: 2, .production),
            Self.push(12, project: 1, .sandbox), Self.push(13, project: 1, .production),
            Self.push(14, project: 3, .production),
        ])
        #expect(given()["101-production"] == [[3, 1, 2], [10, 13]])
        #expect(given()["102-production"] == [[11]])
        #expect(given()["101-sandbox"] == [[12]])
        #expect(mixed[10] == .sent(providerMessageId: "101-production"))
        #expect(mixed[11] == .sent(providerMessageId: "102-production"))
        #expect(mixed[12] == .sent(providerMessageId: "101-sandbox"))
        #expect(mixed[14] == SenderCredentials.missing(.huawei, projectId: 3))
        #expect(mixed.count == 5)
    }
}
