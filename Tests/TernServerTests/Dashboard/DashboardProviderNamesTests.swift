import Foundation
import TernProtocol
import Testing

/// The console's pages are JavaScript and cannot read `PushProvider`; this holds every provider
/// name they offer to the server's list, so a page never offers one the server refuses.
@Suite struct DashboardProviderNamesTests {
    static let web = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Sources/TernServer/Dashboard/Web")

    /// Every string literal in `text` that looks like a provider's wire name (`"platform-service"`).
    static func providerNames(in text: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: #""((?:ios|android)-[a-z]+)""#)
        let range = NSRange(text.startIndex..., in: text)
        return Set(
            pattern.matches(in: text, range: range).compactMap { match in
                Range(match.range(at: 1), in: text).map { String(text[$0]) }
            })
    }

    @Test func thePagesOfferExactlyTheProvidersTheServerAccepts() throws {
        let pages = try FileManager.default.contentsOfDirectory(atPath: Self.web.path).filter { $0.hasSuffix(".js") }
        var offered: Set<String> = []
        for page in pages {
            offered.formUnion(
                Self.providerNames(in: try String(contentsOf: Self.web.appendingPathComponent(page), encoding: .utf8)))
        }
        #expect(offered == Set(PushProvider.allCases.map(\.rawValue)))
    }

    @Test func findsProviderNamesInALiteral() {
        #expect(
            Self.providerNames(in: #"select(["ios-apns", "android-huawei"]) // "push""#) == [
                "ios-apns", "android-huawei",
            ])
    }
}
