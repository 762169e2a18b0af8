import Foundation
import TernProtocol

/// Signing the user in and out.
///
/// ```swift
/// Tern.shared.authFunctions.authenticate()   // after the app's own sign-in
/// Tern.shared.authFunctions.logOut()         // on a real sign-out
/// ```
public struct AuthAPI: Sendable {
    let core: CoreServices

    /// Sends `profile/authenticate` with the current credentials (JWT or rToken) and the device's
    /// token, linking the device to the user's profile: `authenticateSuccessful` or `authenticateFailed`.
    /// When the JWT names the person (`identity.external_id`), the identity journal also queues a
    /// login of that id (see ``IdentityAPI``).
    public func authenticate() {
        let function = "authenticate"
        core.perform(function) { ready in
            let token = await ready.token()
            let request = PushTokenRequest(provider: token?.provider, subscriptionId: token?.token)
            guard let body = try? JSONEncoder().encode(request) else { return }
            let entry = OutboxEntry(
                endpoint: .profileAuthenticate, lane: .ordered, body: body,
                meta: OutboxMeta(
                    function: function, success: CoreEvents.authenticateSuccessful,
                    failure: CoreEvents.authenticateFailed))
            let runtime = ready.runtime
            // Signed in from this call on, in call order: a `logOut()` made before the answer comes
            // finds the user signed in. A refusal signs out again, through the mailbox, unless the
            // app called `authenticate()` or `logOut()` since.
            let attempt = await runtime.beginAuthentication()
            await ready.enqueue(entry) { response in
                if let code = response?.httpCode, (200..<300).contains(code) { return }
                ready.post(function) { _ in await runtime.authenticationRefused(attempt) }
            }
            for module in await runtime.modules { await module.authenticationChanged(ready, signedIn: true) }
            // A JWT that names the person (`identity.external_id`) binds the installation through the
            // identity journal too, in the configured mode.
            if await ready.auth.hasProvider, let jwt = await ready.auth.jwt(),
                let externalId = IdentityClaims.externalId(jwt)
            {
                await IdentityQueue.login(ready, externalId: externalId, source: .authenticate)
            }
        }
    }

    /// Ends the user's session: the device is anonymous again (`userLogOut`), or
    /// `notAuthenticatedError` when no one was signed in. When the identity journal's last word is a
    /// login, it also queues a logout (confirmed later: see ``IdentityAPI/identityState``).
    public func logOut() {
        let function = "logOut"
        core.perform(function) { ready in
            // The identity journal's binding ends too, when the journal's last word is a login.
            if await IdentityQueue.isBound(ready) { await IdentityQueue.logout(ready, source: .logOut) }
            guard await ready.isAuthenticated() else {
                ready.emit(.error(function, CoreEvents.notAuthenticatedError))
                return
            }
            await ready.runtime.endAuthentication()
            ready.emit(.info(function, CoreEvents.userLogOut))
            for module in await ready.runtime.modules { await module.authenticationChanged(ready, signedIn: false) }
        }
    }
}
