import Foundation

/// A file shaped like an `embedded.mobileprovision`, written for the tests: a DER-encoded CMS
/// `SignedData` wrapper (the sequence and OID bytes Apple's profiles start with) around an XML
/// property list with `Entitlements`, then certificate-like bytes, as the real file has. Only the
/// property list is meaningful; the signature is not a real one (the SDK never checks it: iOS did).
///
/// ```swift
/// let data = SampleProvisioningProfile.data(apsEnvironment: "development")
/// ProvisioningProfile.apnsEnvironment(in: data)   // .sandbox
/// ```
public enum SampleProvisioningProfile {
    /// The profile's bytes; `apsEnvironment` nil leaves the entitlement out (no push capability).
    public static func data(apsEnvironment: String?, teamId: String = "TEAM123456") -> Data {
        var bytes: [UInt8] = [0x30, 0x80, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02, 0xA0, 0x80]
        bytes += [0x30, 0x80, 0x02, 0x01, 0x01, 0x31, 0x0B, 0x30, 0x09, 0x06, 0x05, 0x2B, 0x0E, 0x03, 0x02, 0x1A]
        bytes += [0x05, 0x00, 0x30, 0x80, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01, 0xA0]
        bytes += [0x80, 0x24, 0x80, 0x04, 0x82, 0x10, 0x00]
        var data = Data(bytes)
        data.append(Data(plist(apsEnvironment: apsEnvironment, teamId: teamId).utf8))
        // The signer's certificates and the signature: binary, with bytes of every value.
        data.append(Data([0x00, 0x00, 0x00, 0x00, 0xA0, 0x82, 0x0C, 0x5E, 0x30, 0x82, 0x04, 0x04, 0x30, 0x82]))
        data.append(Data((0..<512).map { UInt8(($0 * 37 + 11) % 256) }))
        return data
    }

    /// The property list inside, as Xcode writes it.
    public static func plist(apsEnvironment: String?, teamId: String) -> String {
        let aps = apsEnvironment.map { "\n\t\t<key>aps-environment</key>\n\t\t<string>\($0)</string>" } ?? ""
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>AppIDName</key>
            \t<string>Tern Example</string>
            \t<key>CreationDate</key>
            \t<date>2026-11-02T09:14:03Z</date>
            \t<key>Entitlements</key>
            \t<dict>
            \t\t<key>application-identifier</key>
            \t\t<string>\(teamId).com.example.tern</string>\(aps)
            \t\t<key>get-task-allow</key>
            \t\t<\(apsEnvironment == "development" ? "true" : "false")/>
            \t\t<key>keychain-access-groups</key>
            \t\t<array>
            \t\t\t<string>\(teamId).*</string>
            \t\t</array>
            \t</dict>
            \t<key>Name</key>
            \t<string>iOS Team Provisioning Profile: com.example.tern</string>
            \t<key>TeamIdentifier</key>
            \t<array>
            \t\t<string>\(teamId)</string>
            \t</array>
            \t<key>Version</key>
            \t<integer>1</integer>
            </dict>
            </plist>
            """
    }
}
