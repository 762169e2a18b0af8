import Foundation
import TernPush
import TernTestSupport

/// An SDK in a temporary directory, simulating an iPhone, with fast retries.
struct PushTestSDK {
    let directory: TemporaryDirectory
    let tern: Tern

    init(directory: TemporaryDirectory? = nil) throws {
        let directory = try directory ?? TemporaryDirectory(prefix: "tern-push")
        self.directory = directory
        var environment = TernEnvironment.directory(
            directory.url, deviceInfo: HostDeviceInfo(model: "iPhone14,7", name: "iPhone", osVersion: "18.6.2"))
        environment.retryPolicy = RetryPolicy(baseDelay: 0.02, maxDelay: 0.1, budget: 60, maxRetryAfter: 2, jitter: 0)
        environment.random = { 0.5 }
        tern = Tern(environment: environment)
    }

    func configure(apiUrl: String) {
        tern.setAppGroup(groupName: "group.push.test")
        tern.initialization(configuration: TernConfiguration.Builder(apiUrl: apiUrl).setRToken("rt_push").build())
    }

    func close() async {
        await tern.shutdown()
    }
}
