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
        /// By the parameter's name, in order: two patterns may name the same place differently.
        /// Kept sorted as routes are added, so a lookup does not sort them (a lookup is per request).
        var parameters: [(name: String, node: Node)] = []
        var routes: [String: Route] = [:]

        mutating func insert(_ route: Route, _ parts: ArraySlice<Substring>) {
            guard let part = parts.first else {
                if routes[route.method] == nil { routes[route.method] = route }
                return
            }
            if part.hasPrefix("{"), part.hasSuffix("}") {
                let name = String(part.dropFirst().dropLast())
                if let index = parameters.firstIndex(where: { $0.name == name }) {
                    parameters[index].node.insert(route, parts.dropFirst())
                } else {
                    var node = Node()
                    node.insert(route, parts.dropFirst())
                    parameters.append((name, node))
                    parameters.sort { $0.name < $1.name }
                }
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
            for (name, node) in parameters {
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

    /// The segments after the first `/`, empty ones kept. A lookup's first step, on every request:
    /// it reads the path's bytes, where `String.split` compared each Character (grapheme breaking)
    /// and grew its array one segment at a time, half of a lookup's time (a profile of the no-store
    /// route). A segment is cut at each `/` byte, as RFC 3986 delimits them, also where a combining
    /// mark follows the slash.
    static func split(_ path: String) -> [Substring] {
        var segments: [Substring] = []
        segments.reserveCapacity(8)
        let bytes = path.utf8
        var start: String.Index?
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if bytes[index] == UInt8(ascii: "/") {
                if let start { segments.append(Substring(path.unicodeScalars[start..<index])) }
                start = bytes.index(after: index)
            }
            bytes.formIndex(after: &index)
        }
        if let start { segments.append(Substring(path.unicodeScalars[start..<bytes.endIndex])) }
        return segments
    }
}
