import Foundation
import TernSDKTestKit
import Testing

@testable import TernCore

/// A module's own events, as a module outside TernCore declares them.
enum NotebookEvents: String, SDKEvent, CaseIterable, Equatable {
    case noteSaved
    case noteFailed
    var module: String { "notebook" }
    var message: String { "note: \(rawValue)" }
}

/// A module with its own events, table and configuration check.
struct NotebookModule: TernModule {
    var migrations = ["CREATE TABLE notebook_notes (id TEXT PRIMARY KEY, body TEXT NOT NULL);"]
    var moduleName: String { "notebook" }
    var parts: ModuleParts {
        ModuleParts(
            events: NotebookEvents.allCases, migrations: migrations,
            checkConfiguration: { configuration, _ in
                configuration.enableLogging ? [.info("initialization", NotebookEvents.noteSaved)] : []
            })
    }
    func initialize(_ core: ReadyCore) async throws {}
    func clear(_ core: ReadyCore) async {}
}

/// A module written against the protocol as it was before `ModuleParts`: it still compiles and runs.
struct PlainModule: TernModule {
    var moduleName: String { "plain" }
    func initialize(_ core: ReadyCore) async throws {}
    func clear(_ core: ReadyCore) async {}
}

@Suite("Modules bring their own parts: events, migrations, checks")
struct ModulePartsTests {
    static func statuses(_ sdk: TestSDK, _ modules: [any TernModule]) async -> [String: ModuleInitStatus] {
        for module in modules { sdk.tern.core.register(module) }
        let statuses = await withCheckedContinuation { continuation in
            sdk.tern.setAppGroup(groupName: "group.test")
            sdk.tern.initialization(
                configuration: TernConfiguration.Builder(apiUrl: "http://127.0.0.1:9/api/v1").setRToken("rt")
                    .build()
            ) { continuation.resume(returning: $0) }
        }
        return Dictionary(statuses.map { ($0.moduleName, $0) }) { first, _ in first }
    }

    @Test func aModulesMigrationsEventsAndStatusComeWithIt() async throws {
        let sdk = try TestSDK()
        let statuses = await Self.statuses(sdk, [NotebookModule(), PlainModule()])
        #expect(statuses["notebook"]?.initStatus == .success)
        #expect(statuses["plain"]?.initStatus == .success)
        let store = try #require(await sdk.tern.runtime.store)
        #expect(try await store.version(module: "notebook") == 1)
        #expect(try await store.version(module: "plain") == 0)
        #expect(await sdk.tern.core.eventCatalog().lookup("notebook.noteSaved") != nil)
        await sdk.close()

        // Reopened with one more migration: only the new one runs.
        let again = try TestSDK(directory: sdk.directory)
        var grown = NotebookModule()
        grown.migrations.append("ALTER TABLE notebook_notes ADD COLUMN tag TEXT;")
        let later = await Self.statuses(again, [grown])
        #expect(later["notebook"]?.initStatus == .success)
        #expect(try await again.tern.runtime.store?.version(module: "notebook") == 2)
        await again.close()
    }

    @Test func aFailingMigrationFailsItsModuleAlone() async throws {
        let sdk = try TestSDK()
        var broken = NotebookModule()
        broken.migrations = ["CREATE TABLE oops ("]
        let statuses = await Self.statuses(sdk, [broken, PlainModule()])
        #expect(statuses["core"]?.initStatus == .success)
        #expect(statuses["notebook"]?.initStatus == .error)
        #expect(statuses["notebook"]?.reason?.contains("migrations failed") == true)
        #expect(statuses["plain"]?.initStatus == .success)
        await sdk.close()
    }
}
