import Foundation

/// Gives the SDK a JWT signed by the app owner's backend, asked each time a request is sent.
/// Return nil when there is none (the SDK then reports `jwtIsNil` and uses the rToken if it has one).
/// The SDK never logs the token.
///
/// ```swift
/// final class JWTProvider: JWTInterface {
///     func getToken() -> String? { Keychain.read("jwt") }
/// }
/// Tern.shared.setJWTProvider(provider: JWTProvider())
/// ```
public protocol JWTInterface: Sendable {
    func getToken() -> String?
}
