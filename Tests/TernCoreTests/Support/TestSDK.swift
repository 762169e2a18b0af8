import Foundation
import TernCore
import TernTestSupport

/// An SDK in a temporary directory, with fast retries.
struct TestSDK {
    let directory: TemporaryDirectory
    let tern: Tern

    init(
        directory: TemporaryDirectory? = nil, retryPolicy: RetryPolicy = .fast, transport: (any HTTPTransport)? = nil,
        moduleInitTimeout: TimeInterval = 10, lifecycle: ManualAppLifecycle = ManualAppLifecycle()
    ) throws {
        let directory = try directory ?? TemporaryDirectory(prefix: "tern-core")
        self.directory = directory
        var environment = TernEnvironment.directory(
            directory.url, deviceInfo: HostDeviceInfo(model: "iPhone14,7", name: "iPhone", osVersion: "18.6.2"))
        environment.retryPolicy = retryPolicy
        environment.moduleInitTimeout = moduleInitTimeout
        environment.lifecycle = lifecycle
        environment.random = { 0.5 }
        if let transport { environment.transport = transport }
        tern = Tern(environment: environment)
    }

    func configure(apiUrl: String, rToken: String? = "rt_test", appGroup: String? = "group.test") {
        tern.setAppGroup(groupName: appGroup)
        tern.initialization(configuration: TernConfiguration.Builder(apiUrl: apiUrl).setRToken(rToken).build())
    }

    func close() async {
        await tern.shutdown()
    }
}

extension RetryPolicy {
    /// Milliseconds between attempts, so tests that retry finish quickly.
    static let fast = RetryPolicy(baseDelay: 0.02, maxDelay: 0.1, budget: 60, maxRetryAfter: 2, jitter: 0)
}
