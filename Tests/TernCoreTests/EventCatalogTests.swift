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

    @Test func everyKindIsFoundByItsKey() {
        for kind in SDKEventCatalog.all {
            let found = SDKEventCatalog.lookup(kind.description)
            #expect(found?.description == kind.description)
        }
        #expect(SDKEventCatalog.lookup("push.noSuchEvent") == nil)
        #expect(SDKEventCatalog.lookup("nonsense") == nil)
    }

    @Test func sameNamesInDifferentModulesStayApart() {
        let push: (any SDKEvent)? = PushModuleEvents.invalidSubRequestData
        #expect(push == PushModuleEvents.invalidSubRequestData)
        #expect(!(push == InAppModuleEvents.invalidSubRequestData))
        #expect(
            PushModuleEvents.subscribeRequestDataIsNil.message != InAppModuleEvents.subscribeRequestDataIsNil.message)
    }
}
