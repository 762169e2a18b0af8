import Foundation
import TernCrypto
import TernServer

// tern-bench-apns: sends N notifications through Tern's APNs client (HTTP/2 over TLS, its
// nghttp2 connection pool, the ES256 provider token) to a stand-in such as bench/apns/run.sh's nginx, and
// prints notifications per second and peak memory.
//
//   tern-bench-apns --url https://127.0.0.1:8443 --ca ca.pem [--count 100000]
//                   [--connections 1] [--streams 1000] [--in-flight N]

struct Arguments {
    var url = ""
    var ca: String?
    var count = 100_000
    var connections = 1
    var streams = 1000
    var inFlight: Int?

    init(_ arguments: [String]) throws {
        var index = 0
        func value() throws -> String {
            index += 1
            guard index < arguments.count else { throw BenchError("\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--url": url = try value()
            case "--ca": ca = try value()
            case "--count": count = Int(try value()) ?? count
            case "--connections": connections = Int(try value()) ?? connections
            case "--streams": streams = Int(try value()) ?? streams
            case "--in-flight": inFlight = Int(try value())
            default: throw BenchError("unknown argument \(arguments[index])")
            }
            index += 1
        }
        guard URL(string: url)?.scheme == "https" else { throw BenchError("--url https://HOST:PORT is required") }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Peak resident memory of this process (VmHWM), in MiB.
func peakMemoryMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kilobytes / 1024
}

func run() async throws {
    let arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
    let key = try JWTSigningKey.generate(.es256)
    let credential = APNsCredential(
        teamId: "BENCH12345", keyId: "BENCHKEY01", privateKey: key.privateKeyPEM ?? "", topic: "com.example.bench")
    var options = APNsClient.Options(caFile: arguments.ca, requestTimeout: 30)
    options.maxConnections = arguments.connections
    options.maxStreamsPerConnection = arguments.streams
    // In flight means handed to the pool; the streams bound what is on the wire.
    options.maxInFlight = arguments.inFlight ?? options.maxInFlight
    let client = try APNsClient(credential: credential, origin: URL(string: arguments.url)!, options: options)

    let payload = Data(
        #"{"aps":{"alert":{"title":"Sale","body":"30% off today"},"mutable-content":1},"tern":{"v":1,"message_id":"bench","track":{"delivery":true,"open":true}}}"#
            .utf8)
    let pushes = (0..<arguments.count).map { index in
        let hex = String(index, radix: 16)
        return OutgoingPush(
            deliveryId: Int64(index), messageId: "bench", projectId: 1, provider: .apns,
            token: String(repeating: "a", count: 64 - hex.count) + hex, payload: payload, pushType: .alert)
    }
    // One push first: the connection and the provider token are set up outside the timing.
    let warmup = await client.send(pushes[0])
    guard case .sent = warmup else { throw BenchError("the stand-in did not accept a push: \(warmup)") }

    let before = peakMemoryMiB()
    let start = ContinuousClock.now
    let outcomes = await client.send(pushes)
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    var sent = 0
    var others: [String: Int] = [:]
    for outcome in outcomes.values {
        if case .sent = outcome { sent += 1 } else { others["\(outcome)".prefix(120).description, default: 0] += 1 }
    }
    let rate = Double(arguments.count) / seconds
    print(
        "tern: \(arguments.count) notifications in \(String(format: "%.2f", seconds)) s = \(Int(rate)) notifications/s, sent \(sent), peak memory \(String(format: "%.1f", peakMemoryMiB())) MiB (\(String(format: "%.1f", before)) MiB before sending, the pushes built) (connections \(arguments.connections), streams \(arguments.streams))"
    )
    for (reason, count) in others.sorted(by: { $0.value > $1.value }).prefix(5) {
        print("  not sent: \(count) × \(reason)")
    }
    if sent != arguments.count { exit(1) }
}

do {
    try await run()
} catch {
    FileHandle.standardError.write(Data("tern-bench-apns: \(error)\n".utf8))
    exit(2)
}
