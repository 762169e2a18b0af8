import Foundation
import TernHTTP

/// `/healthz`, `/metrics`, and with `--bench-routes` the constant route for the HTTP ceiling.
enum OpsRoutes {
    static let constantBody = Data(#"{"error":0}"#.utf8)

    static func all(store: any Store, metrics: Metrics, benchRoutes: Bool) -> [Route] {
        var routes = [
            Route("GET", "/healthz") { _ in
                let backend = store is PostgresStore ? "postgresql" : "sqlite"
                return await store.isHealthy()
                    ? .json(200, Data(#"{"status":"ok","store":"\#(backend)","database":"reachable"}"#.utf8))
                    : .envelope(503, "the \(backend) database does not answer; see the server log")
            },
            Route("GET", "/metrics") { _ in
                var text = metrics.render()
                if let postgres = store as? PostgresStore { text += await postgres.metricsText() }
                if let sqlite = store as? SQLiteStore { text += await sqlite.metricsText() }
                return .text(200, text, contentType: "text/plain; version=0.0.4; charset=utf-8")
            },
        ]
        if benchRoutes {
            routes.append(Route("GET", "/bench/constant") { _ in .json(200, constantBody) })
            routes.append(Route("POST", "/bench/constant") { _ in .json(200, constantBody) })
        }
        return routes
    }
}
