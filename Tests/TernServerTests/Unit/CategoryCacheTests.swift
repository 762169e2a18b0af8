import Foundation
import Testing

@testable import TernServer

/// The resources' categories kept between subscribes: read once while fresh, again for a name the
/// kept list lacks, and again once the lifetime is over.
@Suite struct CategoryCacheTests {
    static func category(_ name: String) -> ResourceCategory {
        ResourceCategory(resourceId: 1, name: name, title: name, steady: false)
    }

    @Test func keptWhileFreshReadAgainForAnUnknownNameAndAfterTheLifetime() async throws {
        let cache = CategoryCache(lifetime: .milliseconds(200))
        var stored = [Self.category("news")]
        var reads = 0
        func categories(_ names: [String]) -> [ResourceCategory] {
            cache.categories(resourceId: 1, naming: names) {
                reads += 1
                return stored
            }
        }
        #expect(categories([]) == stored && reads == 1)
        #expect(categories(["news"]) == stored && reads == 1, "kept")
        stored.append(Self.category("sale"))
        #expect(categories([]).count == 1 && reads == 1, "kept while fresh, naming nothing new")
        #expect(categories(["sale"]) == stored && reads == 2, "a name the kept list lacks reads again")
        #expect(categories(["nope"]) == stored && reads == 3, "an unknown name reads again, then is refused")
        #expect(cache.categories(resourceId: 2, naming: []) { [] } == [], "each resource its own")
        try await Task.sleep(for: .milliseconds(250))
        stored.removeFirst()
        #expect(categories([]) == stored && reads == 4, "read again after the lifetime")
    }
}
