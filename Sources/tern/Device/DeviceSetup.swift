import Foundation
import TernCore
import TernServer

/// Where the device's SDK talks to and keeps its data.
struct DeviceSetup {
    var dataDirectory: URL
    var apiUrl: String
    var rToken: String?
    var jwt: String?
    var identityMode: IdentityMode
    var identityToken: String?
    /// The APNs environment the device says its token belongs to; nil: the SDK's default (production).
    var apnsEnvironment: APNsEnvironment?
    var quiet: Bool
    var wait: TimeInterval
    var osVersion: String
    var model: String
    var name: String

    static let defaultBootstrap = ".tern/bootstrap.json"

    init(_ arguments: Arguments) throws {
        dataDirectory = URL(fileURLWithPath: arguments.value("data") ?? ".tern-device", isDirectory: true)
        var apiUrl = arguments.value("api-url")
        var rToken = arguments.value("rtoken")
        let bootstrapPath = arguments.value("bootstrap") ?? Self.defaultBootstrap
        if apiUrl == nil || rToken == nil, FileManager.default.fileExists(atPath: bootstrapPath) {
            let data = try Data(contentsOf: URL(fileURLWithPath: bootstrapPath))
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            apiUrl = apiUrl ?? object?["api_url"] as? String
            rToken = rToken ?? object?["rtoken"] as? String
        } else if arguments.value("bootstrap") != nil {
            throw CommandError("no bootstrap file at \(bootstrapPath)")
        }
        guard let apiUrl else {
            throw CommandError(
                "say where the server is: --api-url http://127.0.0.1:8080/api/v1 --rtoken rt_…, or --bootstrap .tern/bootstrap.json"
            )
        }
        self.apiUrl = apiUrl
        self.rToken = rToken
        jwt = arguments.value("jwt")
        let mode = arguments.value("identity-mode") ?? IdentityMode.auto.rawValue
        guard let identityMode = IdentityMode(rawValue: mode) else {
            throw CommandError("--identity-mode is auto, basic or verified, not \(mode)")
        }
        self.identityMode = identityMode
        identityToken = arguments.value("identity-token")
        if let environment = arguments.value("apns-environment") {
            guard let apnsEnvironment = APNsEnvironment(rawValue: environment) else {
                throw CommandError(
                    "--apns-environment is \(APNsEnvironment.wireNames.replacingOccurrences(of: ", ", with: " or ")), "
                        + "not \(environment)")
            }
            self.apnsEnvironment = apnsEnvironment
        }
        quiet = arguments.has("quiet")
        wait = try arguments.double("wait", default: 30)
        osVersion = arguments.value("os-version") ?? "18.6.2"
        model = arguments.value("model") ?? "iPhone14,7"
        name = arguments.value("name") ?? "iPhone"
    }
}
