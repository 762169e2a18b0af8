import Foundation
import TernHTTP
import Testing

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

/// The POST both HTTP/2 clients' tests send to `/echo`, and what the peer must have seen of it.
enum SampleEcho {
    static let headers = [("apns-topic", "com.example.app"), ("Authorization", "bearer abc"), ("x-empty", "")]
    static let body = Data(#"{"aps":{"alert":"hi"}}"#.utf8)

    /// Checks the answer to the sample request: over HTTP/2, names lowercased, values and body intact.
    static func check(_ response: HTTP2Response) throws {
        #expect(response.status == 200)
        #expect(response.httpVersion == "2")
        #expect(response.header("Content-Type") == "application/json")
        let echo = try JSONDecoder().decode(PeerEcho.self, from: response.body)
        #expect(echo.method == "POST")
        #expect(echo.path == "/echo")
        #expect(echo.headers["apns-topic"] == "com.example.app")
        #expect(echo.headers["authorization"] == "bearer abc", "names go lowercased")
        #expect(echo.headers["x-empty"] == "")
        #expect(echo.headers["expect"] == nil)
        #expect(echo.headers["content-length"] == "22")
        #expect(echo.body == #"{"aps":{"alert":"hi"}}"#)
    }
}
