import Foundation

/// Where the example's server is and who the app is to it. Put your own values here: the server's
/// `api_url` and `rtoken` are in `.tern/bootstrap.json` after its first start, and the app group must
/// be the one both targets list under Signing & Capabilities.
enum ExampleSettings {
    static let apiURL = "http://127.0.0.1:8080/api/v1"
    static let rToken = "rt_replace_me"
    static let appGroup = "group.org.tern.example"
    /// A pixel of the project, for the goal the screen sends (`tern pixels create 1 --sid app-demo`).
    static let pixelSid = "app-demo"
}
