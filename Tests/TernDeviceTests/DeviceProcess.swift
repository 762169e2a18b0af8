import Foundation
import TernTestSupport

/// `tern device …` in its own process.
struct DeviceProcess {
    let process: ChildProcess
    let output: Pipe

    /// Starts `tern device <arguments>`; standard output is kept, standard error goes to a file in the
    /// temporary directory (never the test runner's own pipe, which a leftover process would hold open).
    static func start(_ arguments: [String]) throws -> DeviceProcess {
        let output = Pipe()
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tern-device-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        TemporaryFiles.removeAtExit(errors)
        let log = try FileHandle(forWritingTo: errors)
        defer { try? log.close() }
        let process = try ChildProcess.run(
            try ServerProcess.binaryURL().path, ["device"] + arguments, input: .null, output: .pipe(output),
            error: .file(log))
        return DeviceProcess(process: process, output: output)
    }

    /// Runs to the end; the exit status and standard output.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let device = try start(arguments)
        let data = try await device.readAll()
        let status = await device.wait()
        return (status, String(decoding: data, as: UTF8.self))
    }

    func readAll() async throws -> Data {
        let handle = output.fileHandleForReading
        return try await offThePool { handle.readDataToEndOfFile() }
    }

    /// Waits for the process to end and returns its status (the signal's number when killed).
    func wait() async -> Int32 {
        await process.wait()
    }

    func kill() {
        process.signal(SIGKILL)
    }
}

/// The admin API calls the device tests need.
struct Admin {
    let server: ServerProcess
    let client = JSONHTTPClient()

    func createPixel(_ sid: String) async throws {
        let answer = try await client.post(
            server.url("admin/projects/\(server.projectId)/pixels"), json: ["sid": sid, "name": sid],
            headers: ["Authorization": "Bearer \(server.adminKey)"])
        guard answer.status == 201 else {
            throw TestFailure("creating pixel \(sid): HTTP \(answer.status) \(answer.text)")
        }
    }

    /// The event names of the goals the server holds for a pixel (up to 1000).
    func goalNames(_ sid: String) async throws -> [String] {
        let answer = try await client.get(
            URL(
                string: server.url("admin/projects/\(server.projectId)/pixels/\(sid)/goals").absoluteString
                    + "?limit=1000")!,
            headers: ["Authorization": "Bearer \(server.adminKey)"])
        guard answer.status == 200, let goals = answer.jsonArray as? [[String: Any]] else {
            throw TestFailure("reading goals of \(sid): HTTP \(answer.status) \(answer.text)")
        }
        return goals.compactMap { $0["event_name"] as? String }
    }

    func allGoalNames(_ sids: [String]) async throws -> [String] {
        var names: [String] = []
        for sid in sids { names += try await goalNames(sid) }
        return names
    }
}

/// What a list of names holds beyond the expected set, said briefly.
func discrepancies(_ names: [String], expected: Set<String>) -> String {
    var counts: [String: Int] = [:]
    for name in names { counts[name, default: 0] += 1 }
    let missing = expected.subtracting(counts.keys).sorted()
    let twice = counts.filter { $0.value > 1 }.keys.sorted()
    let unknown = Set(counts.keys).subtracting(expected).sorted()
    return "missing \(missing.count) \(missing.prefix(5)), duplicated \(twice.count) \(twice.prefix(5)), "
        + "unexpected \(unknown.count) \(unknown.prefix(5))"
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
