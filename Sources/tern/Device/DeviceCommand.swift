import Foundation
import TernCore
import TernPush

/// `tern device`: the SDK on Linux as a simulated iPhone, against a Tern server. Prints every SDK
/// event as a JSON line; waits until the outbox is empty (or `--wait` seconds) before exiting.
enum DeviceCommand {
    static let usage = """
        tern device [options] <command> [command options]

        Runs the Tern SDK (TernCore, TernPush) as a simulated device against a Tern server, printing
        every SDK event as a JSON line. Its data (the SDK's SQLite outbox) lives in --data, so a second
        run continues where the first stopped, and two processes can share it like an app and its
        extension.

        Options:
          --data DIR          the device's storage (default ./.tern-device)
          --bootstrap FILE    read api_url and rtoken from a server's bootstrap.json (default ./.tern/bootstrap.json)
          --api-url URL       the server's API root, e.g. http://127.0.0.1:8080/api/v1
          --rtoken TOKEN      the resource token
          --jwt TOKEN         a JWT sent with every request (Authorization: Bearer)
          --wait SECONDS      how long to wait for the outbox to empty before exiting (default 30; 0: don't)
          --os-version V, --model M, --name N   what the device reports (default 18.6.2, iPhone14,7, iPhone)
          --quiet             don't print SDK events

        Commands:
          set-token --provider ios-apns|ios-firebase|ios-huawei --token TOKEN
          token                                   print the saved token
          subscribe|suspend|unsubscribe [--sync true|false] [--profile-field k=v]... [--custom-field k=v]...
                                [--cat NAME[=true|false]]... [--replace] [--skip-triggers]
          status latest|current|latest-for-provider [--provider P]
          goals --sids SID[,SID…] --count N [--prefix NAME] [--pace SECONDS]
                                queue N goals (event/post) named NAME-0…, spread over the pixels; each is
                                durably queued before the next, and a rerun continues after the last one queued
          delivery|open --message-id ID           a push event (event/push)
          authenticate | logout | consent on|off | foreground | background
          flush                                   only send what is queued
          outbox                                  print the outbox's counts
          clear                                   delete the device's SDK data
          run                                     read commands from standard input, one per line

        Exit status: 0 when the outbox emptied, 3 when requests are still queued after --wait, 2 for usage errors.
        """

    static func run(_ arguments: [String]) async {
        do {
            let parsed = try DeviceArguments(arguments)
            guard let command = parsed.positionals.first, !parsed.has("help") else {
                print(usage)
                exit(parsed.has("help") ? 0 : 2)
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
            exit(2)
        }
    }
}

/// A JWT given on the command line.
struct StaticJWT: JWTInterface {
    let token: String
    func getToken() -> String? { token }
}
