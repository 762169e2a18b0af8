import CMicroHTTPD
import Foundation

/// Turns an `HTTPResponse` into a libmicrohttpd response and queues it.
enum MHDResponse {
    /// Headers MHD writes itself; a handler's value would contradict the body MHD frames.
    private static let managedHeaders: Set<String> = ["content-length", "transfer-encoding"]

    static func queue(
        _ response: HTTPResponse, on connection: OpaquePointer, closing: Bool,
        errorResponse: HTTPServer.ErrorResponse
    ) -> MHD_Result {
        var response = response
        if !(100...599).contains(response.status) {
            response = errorResponse(500, "the handler answered an invalid HTTP status \(response.status)")
        }
        let made = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let made else { return .NO }
        defer { MHD_destroy_response(made) }
        for (name, value) in response.headers where !managedHeaders.contains(name.lowercased()) {
            // MHD refuses names or values with line breaks; such a header is left out.
            _ = MHD_add_response_header(made, name, value)
        }
        if closing {
            _ = MHD_add_response_header(made, "Connection", "close")
        }
        return MHD_queue_response(connection, UInt32(response.status), made)
    }
}
