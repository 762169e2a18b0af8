import Foundation

/// Why a preferences or topics call did not succeed: refused before sending, or the server's answer.
public struct PreferencesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status, nil when there was no answer (or the call was refused before sending).
    public let httpCode: Int?
    /// Why, naming the field when the input was wrong.
    public let reason: String

    /// An error.
    public init(httpCode: Int?, reason: String) {
        self.httpCode = httpCode
        self.reason = reason
    }

    public var description: String { httpCode.map { "HTTP \($0): \(reason)" } ?? reason }
}

extension Profile {
    /// The signed-in person's preferences: channel (email, sms, whatsapp, push) → category → whether
    /// they take it. A category never set is on (absent here); `transactional` is always on.
    ///
    /// ```swift
    /// var preferences = try await Tern.shared.profile.preferences()
    /// preferences["email", default: [:]]["marketing"] = false
    /// try await Tern.shared.profile.setPreferences(preferences)
    /// try await Tern.shared.profile.follow(topic: "release-notes")
    /// ```
    ///
    /// Events: `getPreferencesRequestSuccessful` or `getPreferencesRequestFailed`.
    public func preferences() async throws -> [String: [String: Bool]] {
        let ready = try await PreferenceCalls.ready(core, "preferences")
        do {
            let data = try await ready.read(.profilePreferencesGet, body: Data("{}".utf8))
            let answer = try JSONDecoder().decode(PreferencesAnswer.self, from: data)
            ready.emit(
                .info("preferences", PreferencesEvents.getPreferencesRequestSuccessful, value: ["http_code": 200]))
            return answer.preferences
        } catch let error as DirectReadError {
            var value: [String: any Sendable] = ["reason": error.reason]
            if let code = error.httpCode { value["http_code"] = code }
            ready.emit(.error("preferences", PreferencesEvents.getPreferencesRequestFailed, value: value))
            throw PreferencesError(httpCode: error.httpCode, reason: error.reason)
        }
    }

    /// ``preferences()`` with a completion on the main queue.
    public func preferences(completion: @escaping @Sendable (Result<[String: [String: Bool]], any Error>) -> Void) {
        let profile = self
        PreferenceCalls.complete(completion) { try await profile.preferences() }
    }

    /// Sets these switches (others keep their values), through the outbox: it reaches the server once,
    /// even if the app is killed first. Returns once the server took it. Refused at once with the field
    /// and the reason (`invalidPreferencesRequestData`): an unknown channel, a category name with
    /// characters the API does not take, `transactional` turned off. Events:
    /// `setPreferencesRequestSuccessful` or `setPreferencesRequestFailed`.
    public func setPreferences(_ preferences: [String: [String: Bool]]) async throws {
        try await PreferenceCalls.write(
            core, "setPreferences", .profilePreferencesSet, problem: PreferenceRules.problem(preferences),
            body: { try JSONEncoder().encode(PreferencesSetRequest(preferences: preferences)) },
            PreferencesEvents.setPreferencesRequestSuccessful, PreferencesEvents.setPreferencesRequestFailed)
    }

    /// ``setPreferences(_:)`` with a completion on the main queue.
    public func setPreferences(
        _ preferences: [String: [String: Bool]], completion: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        let profile = self
        PreferenceCalls.complete(completion) { try await profile.setPreferences(preferences) }
    }

    /// Adds the signed-in person to a topic of the project, through the outbox. Refused at once for a
    /// name that is empty, longer than 64 bytes, or has other than letters, digits, `_`, `-` and `.`.
    /// Events: `followTopicRequestSuccessful` or `followTopicRequestFailed`.
    public func follow(topic: String) async throws {
        try await PreferenceCalls.write(
            core, "follow", .profileTopicsFollow, problem: PreferenceRules.problem(topic: topic),
            body: { try JSONEncoder().encode(TopicRequest(topic: topic)) },
            PreferencesEvents.followTopicRequestSuccessful, PreferencesEvents.followTopicRequestFailed)
    }

    /// ``follow(topic:)`` with a completion on the main queue.
    public func follow(topic: String, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let profile = self
        PreferenceCalls.complete(completion) { try await profile.follow(topic: topic) }
    }

    /// Removes the signed-in person from a topic, through the outbox. Events:
    /// `unfollowTopicRequestSuccessful` or `unfollowTopicRequestFailed`.
    public func unfollow(topic: String) async throws {
        try await PreferenceCalls.write(
            core, "unfollow", .profileTopicsUnfollow, problem: PreferenceRules.problem(topic: topic),
            body: { try JSONEncoder().encode(TopicRequest(topic: topic)) },
            PreferencesEvents.unfollowTopicRequestSuccessful, PreferencesEvents.unfollowTopicRequestFailed)
    }

    /// ``unfollow(topic:)`` with a completion on the main queue.
    public func unfollow(topic: String, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let profile = self
        PreferenceCalls.complete(completion) { try await profile.unfollow(topic: topic) }
    }
}

/// What the preference calls share: the ready core, the outbox write awaited, completions.
enum PreferenceCalls {
    static func ready(_ core: CoreServices, _ function: String) async throws -> ReadyCore {
        guard let ready = await core.readyCore(function, timeout: 30) else {
            throw PreferencesError(
                httpCode: nil,
                reason: "the SDK is not initialized (call Tern.initialization first; an unusable configuration "
                    + "is reported as configIsNotSet)")
        }
        return ready
    }

    static func write(
        _ core: CoreServices, _ function: String, _ endpoint: Endpoint, problem: String?,
        body: @escaping @Sendable () throws -> Data, _ success: PreferencesEvents, _ failure: PreferencesEvents
    ) async throws {
        if let problem {
            core.emit(.error(function, PreferencesEvents.invalidPreferencesRequestData, value: ["reason": problem]))
            throw PreferencesError(httpCode: nil, reason: problem)
        }
        _ = try await ready(core, function)
        let data = try body()
        let outcome: PreferencesError? = await withCheckedContinuation {
            (raw: CheckedContinuation<PreferencesError?, Never>) in
            let continuation = ResumeOnce(raw)
            let unqueued = PreferencesError(httpCode: nil, reason: "not queued (collection off or no configuration)")
            core.perform(function, unrun: { continuation.resume(returning: unqueued) }) { ready in
                let entry = OutboxEntry(
                    endpoint: endpoint, lane: .ordered, body: data,
                    meta: OutboxMeta(function: function, success: success, failure: failure, includeProfile: false))
                let accepted = await ready.enqueue(entry) { response in
                    guard let code = response?.httpCode else {
                        continuation.resume(
                            returning: PreferencesError(httpCode: nil, reason: "no answer from the server"))
                        return
                    }
                    if (200..<300).contains(code) {
                        continuation.resume(returning: nil)
                    } else {
                        continuation.resume(
                            returning: PreferencesError(
                                httpCode: code, reason: response?.response?.errorText ?? "the server answered \(code)"))
                    }
                }
                if !accepted { continuation.resume(returning: unqueued) }
            }
        }
        if let outcome { throw outcome }
    }

    static func complete<T: Sendable>(
        _ completion: @escaping @Sendable (Result<T, any Error>) -> Void,
        _ body: @escaping @Sendable () async throws -> T
    ) {
        Task {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            DispatchQueue.main.async { completion(result) }
        }
    }
}

/// A continuation resumed by the first of several answers (the outbox's completion, a refusal).
final class ResumeOnce: Sendable {
    private let state: OnceState

    init(_ continuation: CheckedContinuation<PreferencesError?, Never>) {
        state = OnceState(continuation)
    }

    func resume(returning value: PreferencesError?) {
        let state = state
        Task { await state.resume(value) }
    }

    private actor OnceState {
        var continuation: CheckedContinuation<PreferencesError?, Never>?
        init(_ continuation: CheckedContinuation<PreferencesError?, Never>) { self.continuation = continuation }
        func resume(_ value: PreferencesError?) {
            continuation?.resume(returning: value)
            continuation = nil
        }
    }
}
