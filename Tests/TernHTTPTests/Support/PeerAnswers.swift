/// What `Tests/Peers/h2peer.py` answers on `/echo`: the request as the peer saw it.
struct PeerEcho: Decodable {
    let method: String
    let path: String
    let headers: [String: String]
    let body: String
    let connection: Int
    let stream: Int
}

/// What `Tests/Peers/h2peer.py` answers on `/stats`: its counters since it started.
struct PeerStats: Decodable {
    let connections: Int
    let max_open_streams: Int
    let waiting: Int
    let resets: Int
    let goaways: Int
    let requests: Int
}
