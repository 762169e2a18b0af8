import Foundation

/// The registered time and audience claims (RFC 7519 §4.1), checked after the signature.
struct JWTClaimsCheck {
    private struct Registered: Decodable {
        enum Audience: Decodable {
            case one(String)
            case many([String])

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let one = try? container.decode(String.self) {
                    self = .one(one)
                } else {
                    self = .many(try container.decode([String].self))
                }
            }
        }

        let exp: Double?
        let nbf: Double?
        let aud: Audience?

        enum CodingKeys: String, CodingKey { case exp, nbf, aud }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            exp = try Self.field(container, .exp) { try $0.decodeIfPresent(Double.self, forKey: .exp) }
            nbf = try Self.field(container, .nbf) { try $0.decodeIfPresent(Double.self, forKey: .nbf) }
            aud = try Self.field(container, .aud) { try $0.decodeIfPresent(Audience.self, forKey: .aud) }
        }

        private static func field<T>(
            _ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys,
            _ read: (KeyedDecodingContainer<CodingKeys>) throws -> T?
        ) throws -> T? {
            if (try? container.decodeNil(forKey: key)) == true { return nil }
            do { return try read(container) } catch {
                throw JWTError.malformed(
                    key == .aud ? "aud is neither a string nor an array of strings" : "\(key.rawValue) is not a number")
            }
        }
    }

    let claims: Data

    func check(audience: String?, now: Date, leeway: TimeInterval) throws(JWTError) {
        let registered: Registered
        do {
            registered = try JSONDecoder().decode(Registered.self, from: claims)
        } catch let error as JWTError {
            throw error
        } catch {
            throw JWTError.malformed("the payload is not a JSON object")
        }
        let time = now.timeIntervalSince1970
        if let exp = registered.exp, time >= exp + leeway {
            throw JWTError(.expired, "token expired at \(Self.iso(exp))")
        }
        if let nbf = registered.nbf, time + leeway < nbf {
            throw JWTError(.notYetValid, "token is not yet valid (nbf \(Self.iso(nbf)))")
        }
        guard let audience else { return }
        switch registered.aud {
        case nil:
            throw JWTError(.audience, "token has no audience; expected \"\(audience)\"")
        case .one(let single):
            guard single == audience else {
                throw JWTError(.audience, "audience \"\(single)\" is not \"\(audience)\"")
            }
        case .many(let names):
            guard names.contains(audience) else {
                let shown = names.map { "\"\($0)\"" }.joined(separator: ", ")
                throw JWTError(.audience, "audience [\(shown)] does not include \"\(audience)\"")
            }
        }
    }

    private static func iso(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
