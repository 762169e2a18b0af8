import Foundation

/// `…/projects/{project_id}/webhooks`: a project's webhooks, made, listed and removed.
extension AdminService {
    func createWebhook(projectId: Int64, _ request: WebhookRequest) async throws -> WebhookView {
        let events = try request.checked()
        let secret = WebhookSignature.newSecret()
        let now = clock()
        let id = try await store.write { tx in
            try Self.project(tx, projectId)
            let existing = try tx.webhooks(projectId: projectId).count
            guard existing < WebhookLimits.perProject else {
                throw APIError.conflict(
                    "project \(projectId) has \(existing) webhooks, the most it may have: remove one first "
                        + "(DELETE …/webhooks/{webhook_id})")
            }
            return try tx.insertWebhook(
                projectId: projectId, url: request.url, secret: secret, events: events, now: now)
        }
        // This node's writers see it at once; other nodes within the directory's two seconds.
        store.webhookDirectory.forget()
        return Self.view(
            StoredWebhook(
                id: id, projectId: projectId, url: request.url, secret: secret, events: events, createdAt: now,
                pending: 0, dropped: 0),
            showingSecret: true)
    }

    func webhooks(projectId: Int64) async throws -> [WebhookView] {
        try await store.read { tx in
            try Self.project(tx, projectId)
            return try tx.webhooks(projectId: projectId).map { Self.view($0, showingSecret: false) }
        }
    }

    func deleteWebhook(projectId: Int64, id: Int64) async throws {
        guard try await store.write({ try $0.deleteWebhook(projectId: projectId, id: id) }) else {
            throw APIError.notFound("project \(projectId) has no webhook \(id)")
        }
        store.webhookDirectory.forget()
    }

    /// Queues a `webhook.test` event for the webhook, posted like any other (within a second or so).
    func testWebhook(projectId: Int64, id: Int64) async throws -> [String: String] {
        let now = clock()
        guard
            try await store.write({
                try $0.enqueueWebhookEvent(
                    projectId: projectId, webhookId: id, body: WebhookTestEvent.json(now: now), now: now)
            })
        else {
            throw APIError.notFound("project \(projectId) has no webhook \(id)")
        }
        return ["queued": WebhookTestEvent.type]
    }

    static func view(_ webhook: StoredWebhook, showingSecret: Bool) -> WebhookView {
        WebhookView(
            id: webhook.id, projectId: webhook.projectId, url: webhook.url, events: webhook.events.map(\.rawValue),
            secret: showingSecret ? webhook.secret : nil, secretHint: String(webhook.secret.suffix(4)),
            createdAt: webhook.createdAt, pending: webhook.pending, dropped: webhook.dropped,
            lastStatus: webhook.lastStatus, lastError: webhook.lastError, lastAttemptAt: webhook.lastAttemptAt,
            lastSuccessAt: webhook.lastSuccessAt)
    }
}
