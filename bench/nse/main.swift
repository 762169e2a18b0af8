// tern-bench-nse: issue 5's benchmark for the Notification Service Extension's path.
//
//   swift build -c release --product tern-bench-nse && .build/release/tern-bench-nse
//
// Prints, for a push built the way the server builds it, with an image served from a loopback
// HTTP server: the time the NSE processor takes (download, type check, file, category) and the
// extension process's peak memory; then how many payloads per second the parser reads.
// Each NSE case runs in a child process of its own, so the server's memory is not counted.
import Foundation
import TernHTTP
import TernPush
import TernTestSupport

let arguments = CommandLine.arguments
if arguments.count >= 4, arguments[1] == "--nse-child" {
    await NSEChild.run(url: arguments[2], count: Int(arguments[3]) ?? 20)
    exit(0)
}

print("tern-bench-nse: the extension's path with an image from 127.0.0.1, then the payload parser")
print("(plain http on loopback is allowed for the benchmark only; apps download https only)\n")

/// The media served: PNG images of three sizes, and a 30 MB MP4-typed file that shows the body is
/// streamed to disk rather than held in the extension's memory.
let media: [(name: String, description: String, body: Data)] = [
    ("small.png", "64x64 PNG", NoisePNG.make(width: 64, height: 64)),
    ("medium.png", "320x320 PNG", NoisePNG.make(width: 320, height: 320)),
    ("large.png", "1200x1200 PNG", NoisePNG.make(width: 1200, height: 1200)),
    ("video.mp4", "MP4 (ftyp isom + noise)", BenchMedia.mp4(bytes: 30_000_000)),
]
var routes: [String: Data] = [:]
for file in media { routes["/\(file.name)"] = file.body }
let served = routes
let server = try HTTPServer(
    configuration: .init(host: "127.0.0.1", port: 0),
    handler: HTTPHandlerFunction { request in
        guard let body = served[request.path] else { return .text(404, "no such file") }
        return HTTPResponse(status: 200, body: body)
    })
try server.start()

print("NSE processing path (one child process per file; per push, after one warm-up):")
for file in media {
    let url = "http://127.0.0.1:\(server.port)/\(file.name)"
    let child = Process()
    child.executableURL = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).resolvingSymlinksInPath()
    child.arguments = ["--nse-child", url, file.body.count > 10_000_000 ? "5" : "30"]
    let pipe = Pipe()
    child.standardOutput = pipe
    try child.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    child.waitUntilExit()
    let size = String(format: "%.1f KB", Double(file.body.count) / 1024)
    print("  \(file.description), \(size):\n    \(output.trimmingCharacters(in: .newlines))")
}
server.stop()

print("\nPayload parser (a full payload: alert, media, 3 buttons, click URL, tracking, custom data):")
ParserBench.run()
