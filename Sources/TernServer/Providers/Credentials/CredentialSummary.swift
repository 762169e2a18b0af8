import Foundation
import TernProtocol

/// What the API shows of a stored credential: which one it is and when it changed, never the
/// secret (no private key, no client secret).
struct CredentialSummary: Codable, Sendable, Equatable {
    var projectId: Int64
    var provider: PushProvider
    /// Changes whenever the credential does (`sha256:` and 16 hex digits).
    var fingerprint: String
    /// Milliseconds since 1970 when the file was last written.
    var updatedAt: Int64
    /// APNs: team and key id. FCM: the Firebase project and the service account's e-mail.
    /// HMS: the app id.
    var details: [String: String]

    enum CodingKeys: String, CodingKey {
        case provider, fingerprint, details
        case projectId = "project_id"
        case updatedAt = "updated_at"
    }

    init(
        projectId: Int64, provider: PushProvider, fingerprint: String, updatedAt: Int64, details: [String: String]
    ) {
        self.projectId = projectId
        self.provider = provider
        self.fingerprint = fingerprint
        self.updatedAt = updatedAt
        self.details = details
    }

    /// `provider` is the credential's name (`apns`, `fcm`, `hms`), as in its route.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(projectId, forKey: .projectId)
        try container.encode(provider.credentialName, forKey: .provider)
        try container.encode(fingerprint, forKey: .fingerprint)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(details, forKey: .details)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .provider)
        guard let provider = PushProvider(credentialName: name) else {
            throw DecodingError.dataCorruptedError(
                forKey: .provider, in: container, debugDescription: "\(name) is not apns, fcm or hms")
        }
        self.init(
            projectId: try container.decode(Int64.self, forKey: .projectId), provider: provider,
            fingerprint: try container.decode(String.self, forKey: .fingerprint),
            updatedAt: try container.decode(Int64.self, forKey: .updatedAt),
            details: try container.decode([String: String].self, forKey: .details))
    }

    static func of(_ credential: ProviderCredential, projectId: Int64, updatedAt: Int64) -> CredentialSummary {
        switch credential {
        case .apns(let apns):
            var details = ["team_id": apns.teamId, "key_id": apns.keyId]
            details["topic"] = apns.topic
            return CredentialSummary(
                projectId: projectId, provider: .apns, fingerprint: apns.fingerprint, updatedAt: updatedAt,
                details: details)
        case .fcm(let fcm):
            return CredentialSummary(
                projectId: projectId, provider: .firebase, fingerprint: fcm.fingerprint, updatedAt: updatedAt,
                details: [
                    "project_id": fcm.projectId, "client_email": fcm.clientEmail, "private_key_id": fcm.privateKeyId,
                ])
        case .hms(let hms):
            return CredentialSummary(
                projectId: projectId, provider: .huawei, fingerprint: hms.fingerprint, updatedAt: updatedAt,
                details: ["app_id": hms.appId, "client_id": hms.oauthClientId])
        }
    }
}

/// One provider's credential.
enum ProviderCredential: Sendable, Equatable {
    case apns(APNsCredential)
    case fcm(FCMServiceAccount)
    case hms(HMSCredential)

    /// Reads and checks a credential's JSON.
    /// - Throws: `CredentialError` naming what to fix.
    static func decode(_ kind: PushProvider, from data: Data) throws(CredentialError) -> ProviderCredential {
        do {
            let decoder = JSONDecoder()
            switch kind {
            case .apns:
                let credential = try decoder.decode(APNsCredential.self, from: data)
                _ = try credential.signingKey()
                return .apns(credential)
            case .firebase:
                let account = try decoder.decode(FCMServiceAccount.self, from: data)
                _ = try account.signingKey()
                return .fcm(account)
            case .huawei:
                let credential = try decoder.decode(HMSCredential.self, from: data)
                try credential.validate()
                return .hms(credential)
            }
        } catch let error as CredentialError {
            throw error
        } catch let error as DecodingError {
            throw CredentialError("\(kind.title) credentials: \(JSONBody.describe(error))")
        } catch {
            throw CredentialError("\(kind.title) credentials: \(error)")
        }
    }

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        switch self {
        case .apns(let credential): return try encoder.encode(credential)
        case .fcm(let account): return try encoder.encode(account)
        case .hms(let credential): return try encoder.encode(credential)
        }
    }
}
