import Foundation
import Testing

@testable import TernProtocol

/// `docs/api/openapi.yaml` and TernProtocol describe the same wire: a test holds them together.
@Suite struct OpenAPIContractTests {
    static let document: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let url = root.appendingPathComponent("docs/api/openapi.yaml")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    /// The paths under `paths:`, with the methods each declares.
    static func operations(in yaml: String) -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        var inPaths = false
        var current: String?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" {
                inPaths = true
                continue
            }
            guard inPaths else { continue }
            if !line.hasPrefix(" "), !line.isEmpty { break }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                let path = String(line.dropFirst(2).dropLast())
                current = path
                result[path, default: []] = []
            } else if let current, line.hasPrefix("    "), !line.hasPrefix("     ") {
                let key = line.trimmingCharacters(in: .whitespaces).split(separator: ":").first.map(String.init) ?? ""
                if ["get", "post", "put", "patch", "delete"].contains(key) {
                    result[current, default: []].insert(key.uppercased())
                }
            }
        }
        return result
    }

    @Test func documentDeclaresExactlyTheSDKEndpoints() throws {
        let operations = Self.operations(in: Self.document)
        try #require(!operations.isEmpty, "docs/api/openapi.yaml has no paths")
        // Static files of in-app campaigns are a GET beside the SDK's endpoints, not one of them.
        let documented = Set(
            operations.keys.filter {
                $0.hasPrefix(Wire.apiPrefix) && !$0.hasPrefix("/api/v1/admin/")
                    && !$0.hasPrefix(InAppWire.staticPathPrefix)
            })
        let declared = Set(Endpoint.allCases.map(\.path))
        #expect(
            documented.subtracting(declared).isEmpty,
            "in the document, not in TernProtocol: \(documented.subtracting(declared))")
        #expect(
            declared.subtracting(documented).isEmpty,
            "in TernProtocol, not in the document: \(declared.subtracting(documented))")
        for endpoint in Endpoint.allCases {
            #expect(operations[endpoint.path] == [endpoint.method], "\(endpoint.path) methods")
        }
    }

    @Test func documentNamesTheWireHeaders() {
        #expect(Self.document.contains("name: \(Wire.rTokenHeader)"))
        #expect(Self.document.contains("name: \(Wire.idempotencyKeyHeader)"))
    }

    /// The enum lists the document gives a property called `name` (`name: { …, enum: [a, b] }` and
    /// `name: { type: array, items: { …, enum: [a, b] } }`), without `null`.
    static func enums(of name: String, in yaml: String) -> [[String]] {
        yaml.split(separator: "\n").compactMap { line -> [String]? in
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("\(name): {"), let open = text.range(of: "enum: ["),
                let close = text[open.upperBound...].firstIndex(of: "]")
            else { return nil }
            return text[open.upperBound..<close].split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0 != "null" }
        }
    }

    @Test func documentListsTheProvidersAndChannelsTernProtocolDeclares() {
        let providers =
            Self.enums(of: "provider", in: Self.document) + Self.enums(of: "old_provider", in: Self.document)
        #expect(!providers.isEmpty)
        // The credential routes name a provider by its credential (`apns`, `fcm`, `hms`: TernServer's
        // `PushProvider.credentialName`); every other provider list is the wire names.
        // A stored subscription's provider is a push provider's, or `inapp` for the in-app one.
        let push = Set(PushProvider.allCases.map(\.rawValue))
        for list in providers where Set(list) != ["apns", "fcm", "hms"] {
            #expect(Set(list) == push || Set(list) == push.union([SubscriptionChannel.inapp.rawValue]), "\(list)")
        }
        // What a goal or a resource names: every channel but in-app.
        let channels = Self.enums(of: "channel", in: Self.document) + Self.enums(of: "channels", in: Self.document)
        #expect(channels.count >= 2)
        for list in channels { #expect(Set(list) == Set(SubscriptionChannel.addressable.map(\.rawValue)), "\(list)") }
    }

    @Test func parserReadsPathsAndMethods() {
        let yaml = "paths:\n  /a:\n    post:\n      x: 1\n  /b:\n    get: {}\ncomponents:\n  /c:\n    put: {}\n"
        #expect(Self.operations(in: yaml) == ["/a": ["POST"], "/b": ["GET"]])
    }
}
