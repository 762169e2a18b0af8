import Foundation
import TernServer

/// `tern export devices RESOURCE [FILE]`: every push device of a resource, one JSON object a line
/// (JSON Lines), read from `GET …/resources/{id}/devices/export` page by page: the very file
/// `tern import devices` takes, for another resource or another server. Without FILE (or with
/// `-`) the lines go to standard output as they come; a FILE is written beside itself first and
/// takes its name only when the last page is in, so a run that stops leaves no half file under it.
enum DeviceExportCommand {
    /// A page that could not reach the server is asked for again this many times (a read).
    static let attempts = 3

    static func run(_ arguments: Arguments, client: AdminClient) async throws {
        let resource = try arguments.position(1, "RESOURCE")
        guard Int64(resource) != nil else { throw CommandError("RESOURCE is a resource's id, not \(resource)") }
        let path = arguments.positionals.count > 2 ? try arguments.position(2, "FILE") : "-"
        guard path != "-" else {
            _ = try await export(resource: resource, client: client, to: FileHandle.standardOutput)
            return
        }
        let partial = path + ".partial"
        guard FileManager.default.createFile(atPath: partial, contents: nil),
            let handle = FileHandle(forWritingAtPath: partial)
        else { throw CommandError("cannot write \(partial): is the directory there, and writable?") }
        let exported: Int
        do {
            exported = try await export(resource: resource, client: client, to: handle)
            try handle.close()
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.moveItem(atPath: partial, toPath: path)
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        let summary = try JSONSerialization.data(
            withJSONObject: ["exported": exported, "file": path], options: [.sortedKeys, .withoutEscapingSlashes])
        FileHandle.standardOutput.write(summary + Data("\n".utf8))
    }

    /// Follows the cursor to the last page, writing each device as a line; returns how many.
    static func export(resource: String, client: AdminClient, to output: FileHandle) async throws -> Int {
        var exported = 0
        var after: String?
        repeat {
            var query: [String: String] = [:]
            query["after"] = after
            let (status, body) = try await client.sendRetrying(
                "GET", "/resources/\(resource)/devices/export", query: query, attempts: attempts)
            let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
            guard status == 200, let devices = json["devices"] as? [[String: Any]] else {
                throw CommandError(
                    "\(json["error_text"] as? String ?? "HTTP \(status)") (after \(exported) devices)",
                    exitCode: .refused)
            }
            var lines = Data()
            for device in devices {
                lines += try JSONSerialization.data(
                    withJSONObject: device, options: [.sortedKeys, .withoutEscapingSlashes])
                lines += Data("\n".utf8)
            }
            try output.write(contentsOf: lines)
            exported += devices.count
            after = json["next"] as? String
        } while after != nil
        return exported
    }
}
