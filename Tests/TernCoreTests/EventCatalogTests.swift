import TernInApp
import TernInbox
import TernProfile
import TernPush
import TernSDKTestKit
import TernTarget
import Testing

@testable import TernCore

@Suite("The event catalog holds the reference's table word for word")
struct EventCatalogTests {
    static func check<E: SDKEvent & CaseIterable>(_ type: E.Type, _ table: [(String, String)], isPublic: (E) -> Bool) {
        let publicCases = E.allCases.filter(isPublic)
        #expect(publicCases.map(\.name) == table.map(\.0), "cases of \(E.self) differ from the reference's table")
        for (name, message) in table {
            let match = publicCases.first { $0.name == name }
            #expect(match?.message == message, "\(E.self).\(name)")
        }
    }

    @Test func coreEventsMatchTheReference() {
        Self.check(CoreEvents.self, ReferenceCatalog.core, isPublic: \.isPublic)
    }

    @Test func pushEventsMatchTheReference() {
        Self.check(PushModuleEvents.self, ReferenceCatalog.push, isPublic: \.isPublic)
    }

    @Test func targetEventsMatchTheReference() {
        Self.check(TargetModuleEvents.self, ReferenceCatalog.target, isPublic: { _ in true })
    }

    @Test func profileEventsMatchTheReference() {
        Self.check(ProfileModuleEvents.self, ReferenceCatalog.profile, isPublic: { _ in true })
    }

    @Test func inAppEventsMatchTheReference() {
        Self.check(InAppModuleEvents.self, ReferenceCatalog.inApp, isPublic: { _ in true })
    }

    /// Each linked module brings its event kinds when it registers; TernCore names none of them.
    @Test func everyModulesKindsAreFoundByTheirKeysOnceRegistered() async throws {
        let sdk = try TestSDK()
        let before = await sdk.tern.core.eventCatalog()
        #expect(before.lookup("core.configSet") != nil)
        #expect(before.lookup("push.pushSubscribeRequestSuccessful") == nil)
        #expect(before.lookup("inApp.maxPlacementsInvalid") == nil, "in-app's kinds come with the in-app module")
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        let catalog = await sdk.tern.core.eventCatalog()
        let modules: [[any SDKEvent]] = [
            CoreEvents.allCases, PushModuleEvents.allCases, TargetModuleEvents.allCases,
            ProfileModuleEvents.allCases, TagsEvents.allCases, PreferencesEvents.allCases, InAppModuleEvents.allCases,
            InboxEvents.allCases, LiveActivityEvents.allCases,
        ]
        for kind in modules.joined() {
            #expect(catalog.lookup(kind.description)?.description == kind.description)
        }
        #expect(catalog.lookup("push.noSuchEvent") == nil)
        #expect(catalog.lookup("nonsense") == nil)
        await sdk.close()
    }

    @Test func sameNamesInDifferentModulesStayApart() {
        let push: (any SDKEvent)? = PushModuleEvents.invalidSubRequestData
        #expect(push == PushModuleEvents.invalidSubRequestData)
        #expect(!(push == InAppModuleEvents.invalidSubRequestData))
        #expect(
            PushModuleEvents.subscribeRequestDataIsNil.message != InAppModuleEvents.subscribeRequestDataIsNil.message)
    }
}
