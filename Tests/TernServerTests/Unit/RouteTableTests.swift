import Foundation
import TernHTTP
import Testing

@testable import TernServer

/// The route table: a lookup by segment and method, literal segments before parameters, 405 with
/// the methods the path takes.
@Suite struct RouteTableTests {
    static func route(_ method: String, _ pattern: String) -> Route {
        Route(method, pattern) { _ in HTTPResponse(status: 204) }
    }

    static let table = RouteTable([
        route("GET", "/a/{id}"), route("DELETE", "/a/{id}"), route("GET", "/a/special"),
        route("POST", "/a/{id}/b"), route("GET", "/c"),
    ])

    @Test func aLiteralSegmentWinsOverAParameterAndParametersAreBound() {
        guard case .found(let literal, let none) = Self.table.match(method: "GET", path: "/a/special") else {
            Issue.record("GET /a/special not found")
            return
        }
        #expect(literal.pattern == "/a/special" && none.isEmpty)
        guard case .found(let route, let parameters) = Self.table.match(method: "POST", path: "/a/7/b") else {
            Issue.record("POST /a/7/b not found")
            return
        }
        #expect(route.pattern == "/a/{id}/b" && parameters == ["id": "7"])
    }

    @Test func aParameterMatchesWhereTheLiteralLacksTheMethod() {
        guard case .found(let route, let parameters) = Self.table.match(method: "DELETE", path: "/a/special") else {
            Issue.record("DELETE /a/special not found")
            return
        }
        #expect(route.pattern == "/a/{id}" && parameters == ["id": "special"])
    }

    @Test func aKnownPathWithAnotherMethodIs405WithTheAllowedOnes() {
        guard case .methodNotAllowed(let allowed, let pattern) = Self.table.match(method: "PUT", path: "/a/1") else {
            Issue.record("PUT /a/1 is not a 405")
            return
        }
        #expect(allowed == ["DELETE", "GET"] && pattern == "/a/{id}")
    }

    @Test func segmentsAreCutAtEachSlashByte() {
        #expect(RouteTable.split("/a/7/b") == ["a", "7", "b"])
        #expect(
            RouteTable.split("/") == [""] && RouteTable.split("") == [] && RouteTable.split("//a/") == ["", "a", ""])
        #expect(RouteTable.split("x/y") == ["y"])
        // A combining mark after a slash makes one Character of the two; the path is still cut there.
        #expect(RouteTable.split("/a/\u{301}é/b") == ["a", "\u{301}é", "b"])
        guard case .found(let route, let parameters) = Self.table.match(method: "POST", path: "/a/\u{301}é/b") else {
            Issue.record("POST /a/\u{301}é/b not found")
            return
        }
        #expect(route.pattern == "/a/{id}/b" && parameters == ["id": "\u{301}é"])
    }

    @Test func unknownPathsEmptyParametersAndPrefixesAreNotFound() {
        for path in ["/nope", "/a/", "/a", "/c/d", "/a/1/b/c"] {
            guard case .notFound = Self.table.match(method: "GET", path: path) else {
                Issue.record("GET \(path) matched")
                continue
            }
        }
    }
}
