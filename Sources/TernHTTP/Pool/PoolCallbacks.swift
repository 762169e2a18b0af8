import CNGHTTP2
import Foundation

/// nghttp2's callbacks for a `PoolConnection` (its `user_data`); all run on the connection's
/// thread, inside `nghttp2_session_mem_recv` or `nghttp2_session_mem_send`.
enum PoolCallbacks {
    /// A `:status` value's number: three digits (nghttp2 holds answers to that); 0 for anything else,
    /// which no answer is taken with.
    static func statusCode(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard bytes.count == 3 else { return 0 }
        var code = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return 0 }
            code = code * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return code
    }

    static func make() -> OpaquePointer? {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let name, let value, let user else { return 0 }
            let connection = Unmanaged<PoolConnection>.fromOpaque(user).takeUnretainedValue()
            guard UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue,
                let stream = connection.streams[frame.pointee.hd.stream_id]
            else { return 0 }
            // Read as bytes first: a string is made only for a field the answer keeps.
            if name.pointee == UInt8(ascii: ":") {
                if nameLength == 7, memcmp(name, ":status", 7) == 0 {
                    stream.status = PoolCallbacks.statusCode(UnsafeBufferPointer(start: value, count: valueLength))
                    // An informational answer (1xx) comes before the real one: forget its fields.
                    stream.headers.removeAll()
                }
                return 0
            }
            if stream.headers.isEmpty { stream.headers.reserveCapacity(8) }
            stream.headers.append(
                (
                    String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                    String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
                ))
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            guard let data, let user else { return 0 }
            let connection = Unmanaged<PoolConnection>.fromOpaque(user).takeUnretainedValue()
            guard let stream = connection.streams[streamID] else { return 0 }
            let limit = connection.shared.configuration.maxResponseBytes
            guard stream.body.count + length <= limit else {
                connection.end(streamID, code: NGHTTP2_CANCEL.rawValue)
                stream.exchange.complete(
                    .failure(
                        HTTP2ClientError(
                            .responseTooLarge,
                            "\(stream.exchange.prepared.summary): the answer is larger than \(limit) bytes")))
                return 0
            }
            stream.body.append(data, count: length)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, user in
            guard let frame, let user, UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue else { return 0 }
            let connection = Unmanaged<PoolConnection>.fromOpaque(user).takeUnretainedValue()
            connection.streams[frame.pointee.hd.stream_id]?.sent = true
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { session, frame, user in
            guard let session, let frame, let user else { return 0 }
            let connection = Unmanaged<PoolConnection>.fromOpaque(user).takeUnretainedValue()
            switch UInt32(frame.pointee.hd.type) {
            case NGHTTP2_SETTINGS.rawValue where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
                let limit = nghttp2_session_get_remote_settings(
                    session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
                connection.handle.peerLimit.store(Int(limit), ordering: .relaxed)
                if !connection.peerSettingsSeen {
                    connection.peerSettingsSeen = true
                    connection.handle.phase = .ready
                }
                connection.roomChanged = true
            case NGHTTP2_GOAWAY.rawValue:
                // Streams above the GOAWAY's last id close as refused and go to another connection.
                connection.goawayReceived = true
                connection.handle.phase = .draining
                connection.roomChanged = true
            default:
                break
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, code, user in
            guard let user else { return 0 }
            let connection = Unmanaged<PoolConnection>.fromOpaque(user).takeUnretainedValue()
            guard let stream = connection.streams.removeValue(forKey: streamID) else { return 0 }
            let exchange = stream.exchange
            // A cancellation that arrived as the answer did must not stay behind in the set.
            connection.shared.forgetCancellation(exchange.id)
            if code == NGHTTP2_NO_ERROR.rawValue, stream.status >= 200 {
                exchange.complete(
                    .success(
                        HTTP2Response(
                            status: stream.status, headers: stream.headers, body: stream.body, httpVersion: "2")))
            } else if !stream.sent || code == NGHTTP2_REFUSED_STREAM.rawValue {
                connection.unsent.append(exchange)
            } else {
                let why =
                    code == NGHTTP2_NO_ERROR.rawValue
                    ? "the stream ended without an answer"
                    : "the peer reset the stream: \(String(cString: nghttp2_http2_strerror(code)))"
                exchange.complete(.failure(HTTP2ClientError(.transport, "\(exchange.prepared.summary): \(why)")))
            }
            return 0
        }
        return callbacks
    }

    /// Copies the next part of a request's body into nghttp2's frame buffer.
    static let readBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, user in
        guard let buffer, let flags, let user else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let connection = Unmanaged<PoolConnection>.fromOpaque(user).takeUnretainedValue()
        guard let stream = connection.streams[streamID] else {
            return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        let body = stream.exchange.prepared.body
        let count = min(length, body.count - stream.bodyOffset)
        if count > 0 {
            body.withUnsafeBytes { bytes in
                UnsafeMutableRawPointer(buffer).copyMemory(
                    from: bytes.baseAddress! + stream.bodyOffset, byteCount: count)
            }
        }
        stream.bodyOffset += count
        if stream.bodyOffset == body.count { flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
        return count
    }
}
