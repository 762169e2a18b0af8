import Foundation
import TernProtocol

/// The token is the install's until someone signs in, then theirs; signing out hands it back, so
/// the next person on the phone does not get the last one's pushes.
///
/// After `authenticate()` (the app's JWT provider now gives the user's JWT) and after `logOut()`
/// (it gives the install's, anonymous, JWT again), the SDK sends `push/unsuspend` with the device's
/// token: the subscriptions with this token in other profiles are suspended and the JWT profile's
/// one is subscribed again. When that profile has no subscription and the app's last status call
/// was `subscribe`, the SDK subscribes it. Apps on an rToken alone have no user to hand over to: nothing is sent.
enum IdentityHandOver {
    static func run(_ ready: ReadyCore, signedIn: Bool) async {
        let function = signedIn ? "authenticate" : "logOut"
        guard await ready.auth.hasProvider, await ready.token() != nil else { return }
        // The re-subscribe below carries the hand-over's time, not the time its turn comes: the
        // server ignores a change older than the one it applied last, and a status call the app
        // makes meanwhile (stamped when made) must stay the newer one whichever is sent first.
        let time = Int64((ready.now.timeIntervalSince1970 * 1000).rounded())
        // Retried like a status change: a sign-out must reach the server.
        guard let entry = await SubscriptionAPI.unsuspendEntry(ready, function: function, retryable: true) else {
            return
        }
        // The app's last status call as it stands now: the re-subscribe below is only made when no
        // status call came in between, so the app's own later call always has the last word.
        let intent = await StatusChange.lastIntentMarker(ready)
        guard intent?.endpoint == .pushSubscribe else {
            await ready.enqueue(entry)
            return
        }
        await ready.enqueue(entry) { result in
            guard result?.httpCode == 200, result?.response?.profile?.subscription == nil else { return }
            // Through the mailbox: after every call the app made before the answer came.
            ready.post(function) { ready in
                guard await StatusChange.lastIntentMarker(ready) == intent else { return }
                let change = StatusChange(
                    endpoint: .pushSubscribe, function: function, sync: true, requestId: RequestKey.make(),
                    time: time)
                await change.enqueue(ready)
            }
        }
    }
}
