import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// The store's JSON codec agrees with Foundation's, both ways, and refuses what is not JSON.
@Suite struct StoredJSONTests {
    static func random(_ seed: inout UInt64, depth: Int = 0) -> JSONValue {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let pick = Int((seed >> 33) % (depth > 3 ? 6 : 8))
        switch pick {
        case 0: return .null
        case 1: return .bool(seed & 1 == 0)
        case 2: return .int(Int64(bitPattern: seed) >> Int64(seed % 60))
        case 3: return .double(Double(Int64(bitPattern: seed) % 1_000_000) + 0.25)
        case 4, 5:
            let alphabet = ["a", "é", "\"", "\\", "\n", "\u{1}", "😀", "中", "/", " ", "\u{7F}"]
            return .string((0..<Int(seed % 9)).map { alphabet[Int((seed >> UInt64($0 * 4)) % 11)] }.joined())
        case 6: return .array((0..<Int(seed % 4)).map { _ in random(&seed, depth: depth + 1) })
        default:
            var object: [String: JSONValue] = [:]
            for index in 0..<Int(seed % 4) {
                object["k\(index)\(seed % 3 == 0 ? "é" : "")"] = random(&seed, depth: depth + 1)
            }
            return .object(object)
        }
    }

    @Test func roundTripsAgreeWithFoundation() throws {
        var seed: UInt64 = 42
        for _ in 0..<2000 {
            let value = Self.random(&seed)
            let ours = StoredJSON.encode(value)
            let theirs = try JSONDecoder().decode(JSONValue.self, from: Data(ours.utf8))
            #expect(theirs == value, "\(ours)")
            let foundation = try JSONEncoder().encode(value)
            #expect(StoredJSON.decode(String(decoding: foundation, as: UTF8.self)) == value)
        }
    }

    /// The wire (JSONValue's decoding) reads an integral number as an integer; the store keeps a
    /// double a field operation produced as a double.
    @Test func integralDoublesStayDoubles() {
        #expect(StoredJSON.encode(.double(3)) == "3.0")
        #expect(StoredJSON.decode("3.0") == .double(3))
    }

    @Test func outputIsCanonical() {
        #expect(StoredJSON.encode(["b": 1, "a": [true, nil, "x"]]) == #"{"a":[true,null,"x"],"b":1}"#)
        #expect(StoredJSON.encode(["news": true]) == #"{"news":true}"#)
        // Stored text is compared and hashed: escapes are written as they always were.
        #expect(
            StoredJSON.encode(["k\u{1F}": "a\"b\\c\n\r\t\u{1}é😀/\u{7F}"])
                == #"{"k\u001f":"a\"b\\c\n\r\t\u0001é😀/\#u{7F}"}"#)
    }

    @Test func escapesAndSurrogatePairsDecode() {
        #expect(StoredJSON.decode(#""a\"b\\c\/d\n\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\né😀"))
        #expect(StoredJSON.decode(" { \"a\" : [ 1 , -2.5e3 ] } ") == ["a": [1, -2500.0]])
        #expect(StoredJSON.decode("9223372036854775808") == .double(9.223372036854775808e18))
        #expect(StoredJSON.decode(#"{"plain":"caf\u00e9 é","":""}"#) == ["plain": "café é", "": ""])
    }

    /// A string's bytes are validated whether or not it holds an escape.
    @Test(
        arguments: [
            [0x22, 0x61, 0xFF, 0x22], [0x22, 0x5C, 0x6E, 0xC3, 0x22], [0x22, 0xC3, 0x5C, 0x6E, 0x22],
        ] as [[UInt8]])
    func invalidUTF8IsRefused(_ bytes: [UInt8]) {
        let decoded = bytes.withUnsafeBufferPointer { StoredJSON.decode(utf8: $0) }
        #expect(decoded == nil, "\(bytes) decoded as \(String(describing: decoded))")
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "tru", "\"\\x\"", "\"\\ud83d\"", "1 2", "nul", "-", "{\"a\":1,}"])
    func invalidTextIsRefused(_ text: String) {
        let decoded: JSONValue? = StoredJSON.decode(text)
        #expect(decoded.map { _ in true } == nil, "\(text) decoded as \(String(describing: decoded))")
    }
}
