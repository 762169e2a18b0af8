import Foundation

/// Routes keyed by path segment and method: a lookup walks the path's segments, whatever the
/// number of routes. Literal segments are tried before `{parameters}` at the same place.
struct RouteTable: Sendable {
    /// What a lookup found.
    enum Match {
        case found(Route, parameters: [String: String])
        /// The path exists, not with this method: the methods it takes, and its pattern.
        case methodNotAllowed(allowed: [String], pattern: String)
        case notFound
    }

    private struct Node: Sendable {
        var literals: [Substring: Node] = [:]
        /// Keyed by the parameter's name: two patterns may name the same place differently.
        var parameters: [String: Node] = [:]
        var routes: [String: Route] = [:]

        mutating func insert(_ route: Route, _ parts: ArraySlice<Substring>) {
            guard let part = parts.first else {
                if routes[route.method] == nil { routes[route.method] = route }
                return
            }
            if part.hasPrefix("{"), part.hasSuffix("}") {
                parameters[String(part.dropFirst().dropLast()), default: Node()].insert(route, parts.dropFirst())
            } else {
                literals[part, default: Node()].insert(route, parts.dropFirst())
            }
        }

        /// Every node the path reaches that holds routes, literal paths first, with the parameters.
        func reach(
            _ parts: ArraySlice<Substring>, _ bound: [String: String], into found: inout [(Node, [String: String])]
        ) {
            guard let part = parts.first else {
                if !routes.isEmpty { found.append((self, bound)) }
                return
            }
            literals[part]?.reach(parts.dropFirst(), bound, into: &found)
            guard !part.isEmpty else { return }
            for (name, node) in parameters.sorted(by: { $0.key < $1.key }) {
                var bound = bound
                bound[name] = String(part)
                node.reach(parts.dropFirst(), bound, into: &found)
            }
        }
    }

    private let root: Node

    init(_ routes: [Route]) {
        var root = Node()
        for route in routes { root.insert(route, Self.split(route.pattern)[...]) }
        self.root = root
    }

    func match(method: String, path: String) -> Match {
        var found: [(Node, [String: String])] = []
        root.reach(Self.split(path)[...], [:], into: &found)
        for (node, parameters) in found {
            if let route = node.routes[method] { return .found(route, parameters: parameters) }
        }
        guard let first = found.first?.0.routes.values.first else { return .notFound }
        let allowed = Set(found.flatMap { $0.0.routes.keys }).sorted()
        return .methodNotAllowed(allowed: allowed, pattern: first.pattern)
    }

    static func split(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { $0 }
    }
}
