import Foundation
import TernPush
import TernSDKTestKit

/// A token provider whose answers a test scripts: `nilAnswers` nils first, then `token`; deleting
/// renews the token (`-renewed` appended), as Firebase and Huawei do. `silent` never answers.
final class FakeTokenProvider: APNSInterface, FCMInterface, HMSInterface {
    actor Script {
        var token: String?
        var nilAnswers: Int
        var asked = 0
        var deleted = 0

        init(token: String?, nilAnswers: Int) {
            self.token = token
            self.nilAnswers = nilAnswers
        }

        func next() -> String? {
            asked += 1
            if nilAnswers > 0 {
                nilAnswers -= 1
                return nil
            }
            return token
        }

        func delete() {
            deleted += 1
            token = token.map { $0 + "-renewed" }
        }
    }

    let script: Script
    let silent: Bool

    init(token: String?, nilAnswers: Int = 0, silent: Bool = false) {
        script = Script(token: token, nilAnswers: nilAnswers)
        self.silent = silent
    }

    func getToken(completion: @escaping @Sendable (String?) -> Void) {
        guard !silent else { return }
        Task { completion(await script.next()) }
    }

    func deleteToken(completion: @escaping @Sendable (Bool) -> Void) {
        Task {
            await script.delete()
            completion(true)
        }
    }

    var asked: Int { get async { await script.asked } }
    var deleted: Int { get async { await script.deleted } }
}

extension TestSDK {
    /// Fast provider fetches for tests.
    func fastProviders() {
        tern.push.token.setFetchPolicy(ProviderFetchPolicy(attempts: 3, delay: 0.01, timeout: 0.2))
    }
}
