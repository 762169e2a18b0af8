import Foundation
import Testing

@testable import TernCore

@Suite("Device info becomes the subscription's automatic fields")
struct DeviceFieldsTests {
    @Test func fieldsMatchTheReferenceExample() throws {
        let info = DeviceInfo(
            os: "IOS", osVersion: "18.6.2", timeZoneOffsetSeconds: 3 * 3600, language: "en", model: "iPhone14,7",
            name: "iPhone", adTrackingEnabled: false)
        let fields = DeviceFields.fields(info)
        #expect(fields["_os"] == "IOS")
        #expect(fields["_os_tz"] == "+0300")
        #expect(fields["_os_language"] == "en")
        #expect(fields["_device_type"] == "mob")
        #expect(fields["_device_model"] == "iPhone14,7")
        #expect(fields["_device_name"] == "iPhone")
        #expect(fields["_ad_track"] == false)
        #expect(fields["_ad_id"] == nil)
        // {"raw":"18.6.2","ver":"[\"18.0\", \"6.0\", \"2.0\"]"}
        #expect(fields["_os_ver"] == .object(["raw": "18.6.2", "ver": "[\"18.0\", \"6.0\", \"2.0\"]"]))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(fields["_os_ver"]), as: UTF8.self)
        #expect(json == #"{"raw":"18.6.2","ver":"[\"18.0\", \"6.0\", \"2.0\"]"}"#)
    }

    @Test func theAdvertisingIdIsSentOnlyWhenTrackingIsAllowed() {
        var info = DeviceInfo(
            os: "IOS", osVersion: "17.0", timeZoneOffsetSeconds: 0, language: "de", model: "iPad13,1", name: "iPad",
            adTrackingEnabled: true, advertisingId: "6D92078A-8246-4BA4-AE5B-76104861E7DC")
        #expect(DeviceFields.fields(info)["_ad_id"] == "6D92078A-8246-4BA4-AE5B-76104861E7DC")
        #expect(DeviceFields.fields(info)["_ad_track"] == true)
        info.adTrackingEnabled = false
        #expect(DeviceFields.fields(info)["_ad_id"] == nil)
    }

    @Test(arguments: [(0, "+0000"), (10_800, "+0300"), (-19_800, "-0530"), (45_900, "+1245"), (-36_000, "-1000")])
    func timeZonesAreWrittenAsHoursAndMinutes(_ seconds: Int, _ expected: String) {
        #expect(DeviceFields.timeZone(seconds) == expected)
    }

    @Test func osVersionsOfOtherShapes() {
        #expect(DeviceFields.osVersion("17") == .object(["raw": "17", "ver": "[\"17.0\"]"]))
        #expect(DeviceFields.osVersion("16.4") == .object(["raw": "16.4", "ver": "[\"16.0\", \"4.0\"]"]))
    }
}
