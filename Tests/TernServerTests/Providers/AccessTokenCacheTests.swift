import Foundation
import Synchronization
import TernProtocol
import Testing

@testable import TernServer

/// The OAuth token cache as a unit: the fetch behind it is a closure, the clock is moved by hand.
@Suite struct AccessTokenCacheTests {
    @Test func aTokenIsKeptUntilAMinuteBeforeItExpiresThenFetchedAgain() async throws {
        let clock = TestClock()
        let fetched = Mutex(0)
        let cache = AccessTokenCache(clock: clock.closure) {
            let number = fetched.withLock { count in
                count += 1
                return count
            }
            return AccessTokenCache.Token(value: "t\(number)", expiresAt: clock.date.addingTimeInterval(3600))
        }
        #expect(try await cache.token() == "t1")
        clock.advance(3500)
        #expect(try await cache.token() == "t1")
        clock.advance(60)
        #expect(try await cache.token() == "t2")
        #expect(await cache.fetches == 2)
    }

    @Test func concurrentCallersShareOneFetch() async throws {
        let fetched = Mutex(0)
        let cache = AccessTokenCache {
            fetched.withLock { $0 += 1 }
            try await Task.sleep(for: .milliseconds(50))
            return AccessTokenCache.Token(value: "shared", expiresAt: Date().addingTimeInterval(3600))
        }
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await cache.token() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(tokens) == ["shared"])
        #expect(fetched.withLock { $0 } == 1)
    }

    @Test func anInvalidatedTokenIsFetchedAgainButAnOlderOneDoesNotEvictTheNew() async throws {
        let fetched = Mutex(0)
        let cache = AccessTokenCache {
            let number = fetched.withLock { count in
                count += 1
                return count
            }
            return AccessTokenCache.Token(value: "t\(number)", expiresAt: Date().addingTimeInterval(3600))
        }
        #expect(try await cache.token() == "t1")
        await cache.invalidate("t1")
        #expect(try await cache.token() == "t2")
        await cache.invalidate("t1")
        #expect(try await cache.token() == "t2")
    }

    @Test func retryAfterReadsSecondsAndHTTPDates() {
        let now = Date(timeIntervalSince1970: 1_780_000_000)
        #expect(RetryAfter.seconds("120", now: now) == 120)
        #expect(RetryAfter.seconds(" 7 ", now: now) == 7)
        // The one parser (TernProtocol) the SDK uses too: "-5" and "1.5" are not delays, so they are ignored.
        #expect(RetryAfter.seconds("-5", now: now) == nil)
        #expect(RetryAfter.seconds("1.5", now: now) == nil)
        let date = now.addingTimeInterval(90)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(RetryAfter.seconds(formatter.string(from: date), now: now) == 90)
        #expect(RetryAfter.seconds("soon", now: now) == nil)
        #expect(RetryAfter.seconds(nil, now: now) == nil)
    }
}
