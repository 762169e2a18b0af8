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
    /// The JWT for the next request, or nil when there is none (the SDK then reports `jwtIsNil` and
    /// falls back to the rToken). Called off the main thread for each request that is sent; it may
    /// block briefly, e.g. to read the Keychain.
    ///
    /// - Returns: A JWT signed by the app owner's backend, or nil.
    func getToken() -> String?
}
