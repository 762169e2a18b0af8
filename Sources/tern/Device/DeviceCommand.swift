import Foundation
import TernCore
import TernPush
import TernServer

/// `tern device`: the SDK on Linux as a simulated iPhone, against a Tern server. Prints every SDK
/// event as a JSON line; waits until the outbox is empty (or `--wait` seconds) before exiting.
enum DeviceCommand {
    static let spec = CommandSpec(
        name: "tern device",
        usage: "tern device [options] <command> [command options]",
        summary: """
            Runs the Tern SDK (TernCore, TernPush) as a simulated device against a Tern server, printing
            every SDK event as a JSON line. Its data (the SDK's SQLite outbox) lives in --data, so a second
            run continues where the first stopped, and two processes can share it like an app and its
            extension.
            """,
        sections: [
            (
                "Options",
                [
                    OptionSpec("data", "DIR", "the device's storage (default ./.tern-device)"),
                    OptionSpec(
                        "bootstrap", "FILE", "read api_url and rtoken from a bootstrap.json (./.tern/bootstrap.json)"),
                    OptionSpec("api-url", "URL", "the server's API root, e.g. http://127.0.0.1:8080/api/v1"),
                    OptionSpec("rtoken", "TOKEN", "the resource token"),
                    OptionSpec("jwt", "TOKEN", "a JWT sent with every request (Authorization: Bearer)"),
                    OptionSpec(
                        "identity-mode", "MODE",
                        "how identity logins prove the person: auto (default), basic or verified"),
                    OptionSpec(
                        "identity-token", "TOKEN", "the JWT a VERIFIED identity login sends (the app backend's)"),
                    OptionSpec(
                        "apns-environment", "ENV",
                        "the APNs environment the device says its token belongs to (apns_environment): sandbox "
                            + "(a development build) or production (default)"),
                    OptionSpec("wait", "SECONDS", "how long to wait for the outbox to empty (default 30; 0: don't)"),
                    OptionSpec("os-version", "V", "what the device reports (default 18.6.2)"),
                    OptionSpec("model", "M", "what the device reports (default iPhone14,7)"),
                    OptionSpec("name", "N", "what the device reports (default iPhone)"),
                    OptionSpec("quiet", "don't print SDK events"),
                    OptionSpec("help", "this text"),
                ]
            ),
            (
                "Command options",
                [
                    OptionSpec("provider", "P", "set-token, status: ios-apns, ios-firebase or ios-huawei"),
                    OptionSpec("token", "TOKEN", "set-token: the push token"),
                    OptionSpec("sync", "true|false", "subscribe, suspend, unsubscribe: wait for the answer"),
                    OptionSpec("profile-field", "K=V", repeatable: true, "subscribe…: a profile field"),
                    OptionSpec("custom-field", "K=V", repeatable: true, "subscribe…: a subscription custom field"),
                    OptionSpec("cat", "NAME[=true|false]", repeatable: true, "subscribe…: a category"),
                    OptionSpec("replace", "subscribe…: replace the categories"),
                    OptionSpec("skip-triggers", "subscribe…: skip the triggers"),
                    OptionSpec("sids", "SID[,SID…]", "goals: the pixels"),
                    OptionSpec("count", "N", "goals: how many"),
                    OptionSpec("prefix", "NAME", "goals: the goals' names, NAME-0…"),
                    OptionSpec("pace", "SECONDS", "goals: the time between two"),
                    OptionSpec("message-id", "ID", "delivery, open: the message"),
                    OptionSpec("activity-type", "NAME", "live-activity-…: the ActivityAttributes type's name"),
                    OptionSpec(
                        "activity-id", "ID", "live-activity-…: the app's id of the activity (none: push-to-start)"),
                ]
            ),
        ],
        maxPositionals: 3,
        footer: """
            Commands:
              set-token --provider P --token TOKEN
              token                                   print the saved token
              subscribe|suspend|unsubscribe [--sync true|false] [--profile-field k=v]... [--custom-field k=v]...
                                [--cat NAME[=true|false]]... [--replace] [--skip-triggers]
              status latest|current|latest-for-provider [--provider P]
              goals --sids SID[,SID…] --count N [--prefix NAME] [--pace SECONDS]
                                queue N goals (event/post) named NAME-0…, spread over the pixels; each is
                                durably queued before the next, and a rerun continues after the last one queued
              delivery|open --message-id ID           a push event (event/push)
              live-activity-token --activity-type NAME [--activity-id ID] --token HEX
                                a Live Activity's push token (with --activity-id) or the push-to-start token
              live-activity-end --activity-type NAME [--activity-id ID]
                                the activity ended (with --activity-id), or the push-to-start token goes
              authenticate | logout | consent on|off | foreground | background
              identity-login EXTERNAL_ID | identity-logout   queue a login / logout in the identity journal
              identity-state                          print the confirmed binding, the queued operations, a halt
              inbox-read ID | inbox-delete ID | inbox-sync       the signed-in person's inbox (needs --jwt)
              preference CHANNEL.CATEGORY=on|off | follow TOPIC | unfollow TOPIC
              flush                                   only send what is queued
              outbox                                  print the outbox's counts
              clear                                   delete the device's SDK data
              run                                     read commands from standard input, one per line

            Exit status: 0 when the outbox emptied, 3 when requests are still queued after --wait, 2 for usage
            errors and a command the SDK could not run (it did not start: its events say why), 4 when the
            server cannot be reached.
            """)

    static func run(_ arguments: [String]) async {
        do {
            let parsed = try spec.parse(arguments)
            guard let command = parsed.positionals.first, !parsed.has("help") else {
                print(spec.help)
                exit(parsed.has("help") ? ExitCode.ok.rawValue : ExitCode.usage.rawValue)
            }
            let device = try SimulatedDevice(DeviceSetup(parsed))
            await device.start()
            if command == "run" {
                await device.runScript()
            } else {
                try await device.perform(command, parsed)
            }
            exit(await device.finish())
        } catch {
            FileHandle.standardError.write(Data("tern device: \(error)\n".utf8))
            exit(ExitCode.usage.rawValue)
        }
    }
}

/// A JWT given on the command line.
struct StaticJWT: JWTInterface {
    let token: String
    func getToken() -> String? { token }
}

/// An identity JWT given on the command line, whatever the person.
struct StaticIdentityToken: IdentityTokenProvider {
    let token: String
    func identityToken(externalId: String) async -> String? { token }
}
