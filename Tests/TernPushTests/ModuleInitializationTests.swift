import Foundation
import TernCore
import TernTestSupport
import Testing

@testable import TernPush

/// Initialization brings up every linked module, whatever the app touched first: the push module's
/// status is reported, and its work done (the extension's copy of the configuration saved), whether
/// or not the app read `Tern.shared.push` before `initialization`.
@Suite struct ModuleInitializationTests {
    /// Initializes an SDK, touching `.push` before or only after, and returns the statuses.
    static func initialize(touchingPushFirst: Bool) async throws -> (statuses: [String], saved: Bool) {
        let directory = try TemporaryDirectory(prefix: "module-init")
        defer { directory.remove() }
        let tern = Tern(environment: .directory(directory.url))
        if touchingPushFirst { _ = tern.push }
        let statuses = await withCheckedContinuation { continuation in
            tern.initialization(
                configuration: TernConfiguration.Builder(apiUrl: "http://127.0.0.1:9/api/v1", rToken: "rt").build()
            ) { continuation.resume(returning: $0) }
        }
        let saved = try await SharedConfiguration.load(from: tern.environment.container, group: nil)
        await tern.shutdown()
        return (statuses.map { "\($0.moduleName):\($0.initStatus.rawValue)" }, saved != nil)
    }

    @Test func pushComesUpWhetherOrNotTheAppTouchedItFirst() async throws {
        let untouched = try await Self.initialize(touchingPushFirst: false)
        let touched = try await Self.initialize(touchingPushFirst: true)
        #expect(untouched.statuses.contains("push:success"), "\(untouched.statuses)")
        #expect(untouched.statuses == touched.statuses)
        #expect(untouched.saved && touched.saved, "the extension's configuration was not saved")
    }

    @Test func theOrderIsTheSameWhateverModuleWasTouchedFirst() async throws {
        // Every linked module (target and profile are in this test process too), in one fixed order.
        let first = try await Self.initialize(touchingPushFirst: false)
        #expect(first.statuses.first == "core:success")
        #expect(first.statuses.firstIndex(of: "push:success") == 1)
        for _ in 0..<3 {
            #expect(try await Self.initialize(touchingPushFirst: true).statuses == first.statuses)
        }
    }
}
