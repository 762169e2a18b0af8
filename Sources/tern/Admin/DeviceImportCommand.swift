import Foundation
import TernServer

/// `tern import devices RESOURCE FILE`: a file of devices, one JSON object a line (JSON Lines, `-`
/// for standard input), sent to `POST …/resources/{id}/devices/import` in parts of up to 1,000
/// devices and 1 MB (``partSize``, ``partBytes``). Every
/// line is read before the first part goes; a part the server refuses stops the run, with the line
/// to fix (the parts before it are kept, and a run again changes nothing they already did).
enum DeviceImportCommand {
    /// Devices a request: the server's most.
    static let partSize = 1_000
    /// Bytes a request: under the server's most (1 MiB) with room for the envelope, so a file of
    /// devices with many fields (an export's, with the SDK's own) goes in smaller parts.
    static let partBytes = 1_000_000
    /// A part that could not reach the server is sent again this many times (a device's import is
    /// idempotent, so a part that did arrive changes nothing the second time).
    static let attempts = 3

    static func run(_ arguments: Arguments, client: AdminClient) async throws {
        let resource = try arguments.position(1, "RESOURCE")
        guard Int64(resource) != nil else { throw CommandError("RESOURCE is a resource's id, not \(resource)") }
        let devices = try read(try arguments.position(2, "FILE"))
        guard !devices.isEmpty else { throw CommandError("the file has no devices: one JSON object a line") }
        var imported = 0
        var failed: [[String: Any]] = []
        for part in try parts(devices) {
            let body =
                Data(#"{"devices":["#.utf8) + Data(part.map(\.json).joined(separator: Data(",".utf8)))
                + Data("]}".utf8)
            let (status, answer) = try await client.sendRetrying(
                "POST", "/resources/\(resource)/devices/import", body: body, attempts: attempts)
            let json = (try? JSONSerialization.jsonObject(with: answer)) as? [String: Any] ?? [:]
            guard status == 200 else {
                let reason = lineNumbered(json["error_text"] as? String ?? "HTTP \(status)", part: part)
                throw CommandError(
                    "\(reason)\n\(imported) devices before line \(part[0].line) were imported; fix the file and run "
                        + "it again (what is already imported stays as it is)", exitCode: .refused)
            }
            imported += json["imported"] as? Int ?? 0
            for failure in json["failed"] as? [[String: Any]] ?? [] {
                let index = failure["index"] as? Int ?? 0
                failed.append(["line": index < part.count ? part[index].line : 0, "error": failure["error"] ?? ""])
            }
        }
        let summary = try JSONSerialization.data(
            withJSONObject: ["imported": imported, "failed": failed],
            options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        FileHandle.standardOutput.write(summary + Data("\n".utf8))
        if !failed.isEmpty {
            throw CommandError("\(failed.count) devices were not imported (above, by line)", exitCode: .refused)
        }
    }

    struct Line {
        var line: Int
        /// The device as the file has it, written again as compact JSON.
        var json: Data
    }

    /// The devices (or another import's lines: `what` names them) in requests of at most
    /// ``partSize`` lines and ``partBytes`` bytes.
    static func parts(_ devices: [Line], what: String = "a device") throws -> [[Line]] {
        var parts: [[Line]] = []
        var part: [Line] = []
        var bytes = 0
        for device in devices {
            guard device.json.count < partBytes else {
                throw CommandError(
                    "line \(device.line) is \(device.json.count) bytes: \(what) must be under \(partBytes) "
                        + "(the server takes 1 MiB a request)", exitCode: .refused)
            }
            if part.count == partSize || bytes + device.json.count + 1 > partBytes {
                parts.append(part)
                part = []
                bytes = 0
            }
            part.append(device)
            bytes += device.json.count + 1
        }
        if !part.isEmpty { parts.append(part) }
        return parts
    }

    /// The file's devices (or another import's objects, `example` showing one) with their line
    /// numbers; a line that is not a JSON object stops the run before anything is sent.
    static func read(
        _ path: String,
        example: String =
            #"one device a line, e.g. {"subscription_id": "<token>", "matching": {"email": "ann@example.com"}}"#
    ) throws -> [Line] {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw CommandError("cannot read \(path)")
            }
            data = contents
        }
        var lines: [Line] = []
        for (offset, text) in String(decoding: data, as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false
        ).enumerated() {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { continue }
            guard let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any] else {
                throw CommandError(
                    "\(path) line \(offset + 1) is not a JSON object: \(example)")
            }
            lines.append(
                Line(
                    line: offset + 1,
                    json: try JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])))
        }
        return lines
    }

    /// The server names a bad device `devices[i]`; the file's reader wants its line.
    static func lineNumbered(_ reason: String, part: [Line]) -> String {
        guard let open = reason.range(of: "devices["), let close = reason[open.upperBound...].firstIndex(of: "]"),
            let index = Int(reason[open.upperBound..<close]), index < part.count
        else { return reason }
        return "line \(part[index].line): " + reason[close...].dropFirst().drop { $0 == ":" || $0 == " " }
    }
}
