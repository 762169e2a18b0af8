import Foundation
import TernTestSupport

struct OpenSSLCLIError: Error, CustomStringConvertible {
    let description: String
}

/// The `openssl` command line in a fresh temporary directory: an implementation of the signature
/// algorithms independent of TernCrypto, to make fixtures and to check TernCrypto's output. The
/// directory goes with the object.
final class OpenSSLCLI {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-crypto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    func write(_ name: String, _ data: Data) throws {
        try data.write(to: directory.appendingPathComponent(name))
    }

    func read(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    func readText(_ name: String) throws -> String {
        String(decoding: try read(name), as: UTF8.self)
    }

    /// Runs `openssl arguments...` in the directory; its standard output, or an error with stderr.
    @discardableResult
    func run(_ arguments: [String], allowFailure: Bool = false) throws -> (status: Int32, output: String) {
        let output = Pipe()
        let errors = Pipe()
        let process = try ChildProcess.run(
            "/usr/bin/env", ["openssl"] + arguments, directory: directory.path, output: .pipe(output),
            error: .pipe(errors))
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        let status = process.waitUntilExit()
        if status != 0 && !allowFailure {
            throw OpenSSLCLIError(
                description:
                    "openssl \(arguments.joined(separator: " ")) failed: \(String(decoding: err, as: UTF8.self))")
        }
        return (status, String(decoding: out, as: UTF8.self))
    }

    /// Makes `name` (private, PKCS#8 unless `traditional`) and `name.pub` (SubjectPublicKeyInfo).
    func makeKey(_ name: String, kind: String, traditional: Bool = false) throws {
        switch (kind, traditional) {
        case ("EC", true): try run(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", name])
        case ("EC", false):
            try run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", name])
        case ("RSA", true): try run(["genrsa", "-traditional", "-out", name, "2048"])
        default: try run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", name])
        }
        try run(["pkey", "-in", name, "-pubout", "-out", name + ".pub"])
    }

    /// Signs `input` with SHA-256 and the key file; PSS with a 32-byte salt when `pss`.
    func sign(_ input: Data, keyFile: String, pss: Bool = false) throws -> Data {
        try write("input.bin", input)
        let options = pss ? ["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:32"] : []
        try run(["dgst", "-sha256", "-sign", keyFile] + options + ["-out", "signature.bin", "input.bin"])
        return try read("signature.bin")
    }

    /// True when `signature` verifies `input` under the public key file.
    func verify(_ input: Data, signature: Data, publicKeyFile: String, pss: Bool = false) throws -> Bool {
        try write("input.bin", input)
        try write("signature.bin", signature)
        let options = pss ? ["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:32"] : []
        let result = try run(
            ["dgst", "-sha256", "-verify", publicKeyFile] + options + ["-signature", "signature.bin", "input.bin"],
            allowFailure: true)
        return result.status == 0 && result.output.contains("Verified OK")
    }

    func hmacSHA256(_ input: Data, secret: Data) throws -> Data {
        try write("input.bin", input)
        let hex = secret.map { String(format: "%02x", $0) }.joined()
        try run([
            "dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:\(hex)", "-binary", "-out", "mac.bin", "input.bin",
        ])
        return try read("mac.bin")
    }

    /// A DER ECDSA signature's R and S as reported by `openssl asn1parse`, as raw R‖S.
    func rawECDSA(fromDER der: Data) throws -> Data {
        try write("der.bin", der)
        let listing = try run(["asn1parse", "-inform", "DER", "-in", "der.bin"]).output
        let integers = listing.split(separator: "\n").filter { $0.contains("INTEGER") }.map {
            String($0[$0.index(after: $0.lastIndex(of: ":")!)...]).trimmingCharacters(in: .whitespaces)
        }
        guard integers.count == 2 else { throw OpenSSLCLIError(description: "asn1parse: \(listing)") }
        return Data(
            integers.flatMap { hex in
                let padded = String(repeating: "0", count: max(0, 64 - hex.count)) + hex
                return stride(from: 0, to: 64, by: 2).map { offset in
                    let start = padded.index(padded.startIndex, offsetBy: offset)
                    return UInt8(padded[start..<padded.index(start, offsetBy: 2)], radix: 16)!
                }
            })
    }
}

/// DER for a raw R‖S signature, written by hand (SEQUENCE of two INTEGERs) so that the check does
/// not go through TernCrypto's own conversion.
func derECDSA(fromRaw raw: Data) -> Data {
    func integer(_ bytes: Data) -> [UInt8] {
        var value = Array(bytes.drop { $0 == 0 })
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02, UInt8(value.count)] + value
    }
    let body = integer(raw.prefix(32)) + integer(raw.suffix(32))
    return Data([0x30, UInt8(body.count)] + body)
}
