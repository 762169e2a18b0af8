import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// `docs/api/openapi.yaml` and the router agree on every method and path, SDK, admin and ops alike.
@Suite struct OpenAPIRouterTests {
    static let documentPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/api/openapi.yaml")

    /// `METHOD /path` for every operation under `paths:` (two-space path keys, four-space methods).
    static func documentedOperations(_ yaml: String) -> Set<String> {
        var operations: Set<String> = []
        var inPaths = false
        var path: String?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" {
                inPaths = true
                continue
            }
            guard inPaths else { continue }
            if !line.isEmpty, !line.hasPrefix(" ") { break }
            if line.hasPrefix("  /"), !line.hasPrefix("   "), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     ") {
                let key = line.trimmingCharacters(in: .whitespaces).split(separator: ":").first.map(String.init) ?? ""
                if ["get", "post", "put", "patch", "delete"].contains(key) {
                    operations.insert("\(key.uppercased()) \(path)")
                }
            }
        }
        return operations
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsRouted() async throws {
        let yaml = try String(contentsOf: Self.documentPath, encoding: .utf8)
        let documented = Self.documentedOperations(yaml)
        try #require(documented.count > 20, "the document lists \(documented.count) operations")
        let directory = try TemporaryDirectory(prefix: "openapi")
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("tern.sqlite"))
        let routes = TernServerApp.routes(store: store, metrics: Metrics(), benchRoutes: false)
        let routed = Set(routes.map { "\($0.method) \($0.pattern)" })
        #expect(routed.count == routes.count, "a route is declared twice")
        #expect(
            documented.subtracting(routed).isEmpty,
            "documented but not routed: \(documented.subtracting(routed).sorted())")
        #expect(
            routed.subtracting(documented).isEmpty,
            "routed but not documented: \(routed.subtracting(documented).sorted())")
        await store.close()
    }

    @Test func benchRoutesAreOffByDefaultAndOnlyWithTheFlag() async throws {
        let directory = try TemporaryDirectory(prefix: "openapi")
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("tern.sqlite"))
        let off = TernServerApp.routes(store: store, metrics: Metrics(), benchRoutes: false)
        let on = TernServerApp.routes(store: store, metrics: Metrics(), benchRoutes: true)
        #expect(!off.contains { $0.pattern.hasPrefix("/bench") })
        #expect(on.contains { $0.pattern == "/bench/constant" })
        await store.close()
    }

    @Test func parserReadsOperations() {
        let yaml =
            "paths:\n  /a/{id}:\n    get:\n      x: 1\n    delete: {}\n  /b:\n    post: {}\ncomponents:\n  /c:\n    put: {}\n"
        #expect(Self.documentedOperations(yaml) == ["GET /a/{id}", "DELETE /a/{id}", "POST /b"])
    }
}
