import Foundation
import TernServer

/// The command line's top-level help and error exits.
enum Usage {
    static let text = """
        usage: tern <command> [options]

        Server:
          serve                 run the server (tern serve --help lists every option)
          store copy            copy a stopped server's SQLite store and credentials into an empty PostgreSQL
                                (tern store copy --data DIR --database URL; tern store --help)

        Sending:
          send                  send a push, show its progress, then its funnel (tern send --help)

        Device:
          device                the SDK as a simulated device on Linux (tern device --help)

        Management (over HTTP; --url and --admin-key default from ./.tern/bootstrap.json):
          projects      list | create NAME [--audience AUD]
                        | cap PROJECT PUSHES HOURS | cap PROJECT off   a person gets at most PUSHES messages in HOURS
          webhooks      list PROJECT | add PROJECT URL --events push.sent,push.failed,push.delivered,push.opened,
                          subscription.changed,goal.reached,inapp.shown,inapp.clicked,inapp.closed,
                          inapp.error,inbox.read,inbox.deleted
                        | test PROJECT ID (posts a webhook.test event) | remove PROJECT ID
                        the project's events posted to URL, signed (the secret shows once)
          live-activity-channels  list PROJECT | create PROJECT NAME [--sandbox] [--storage most_recent|none]
                        | remove PROJECT NAME [--sandbox] | broadcast PROJECT NAME --event update|end
                          [--content-state JSON] [--title T] [--body B] [--priority 10|5] [--ttl S] [--sandbox]
                        APNs broadcast channels (iOS 18): one push reaches every activity subscribed to it
          databases     list PROJECT | create PROJECT NAME
          resources     list [--project ID] | show ID | create PROJECT NAME [--db ID] [--channels push,email]
          categories    list RESOURCE | set RESOURCE NAME [--title T] [--steady] | delete RESOURCE NAME
          pixels        list PROJECT | create PROJECT [--sid SID] [--name NAME] | delete PROJECT SID
                        | goals PROJECT SID [--limit N]
          jwt-keys      list PROJECT | add PROJECT KID ALG (--pem FILE | --secret-file FILE) | delete PROJECT KID
          keys          list [--project ID] | create --role read|send|full --project ID [--name NAME]
                        | create --role server [--name NAME] | rotate KEY_ID [--grace SECONDS] | revoke KEY_ID
          audit         list [--project ID] [--before ID] [--limit N]
          profiles      show ID | find DB (--email E | --phone P | --field NAME --value V) | test ID [--off]
                        | export ID | erase ID
                        | set DB (--id ID | --email E | --phone P | --field NAME --value V) --set NAME=VALUE …
                          [--create] [--no-triggers]   your backend's write of one person's fields (starts
                          $field_set messages; --no-triggers: a backfill that starts none)
          import        devices RESOURCE FILE   push tokens from another vendor, one JSON object a line (- for stdin):
                          {"subscription_id": T, "provider": P, "matching": {"email": E}, "profile_fields": {…}, …}
                        | profiles DB FILE [--no-triggers]   people's fields from your backend, one JSON object a
                          line (- for stdin):
                          {"matching": {"email": E}, "profile_fields": {…}, "create": true}
          export        devices RESOURCE [FILE] the resource's push devices in that same form, one a line
                          (standard output without FILE): what tern import devices reads
          subscriptions find RESOURCE TOKEN [--provider ios-apns] [--channel push]
                        | test RESOURCE TOKEN [--provider ios-apns] [--off]
          test-devices  list [--project ID]
          push-events   MESSAGE_ID
          messages      list [--limit N] [--before ID] | show ID | stats ID
                        | timeline ID [--bucket minute|hour|day] (sent, failed, delivered, opened,
                          converted a row a bucket, UTC)
                        | cancel ID (stop sending: what is not sent yet is not sent)
                        | edit ID --file FILE (a scheduled or recurring message, before it goes: FILE
                          is the whole request as JSON, as "request" in messages show)
                        | winner ID VARIANT (an A/B test's version to the audience it held back)
          inapp         in-app campaigns: list | create FILE | show | edit | start | pause | end | preview
                        | stats | caps | static (tern inapp --help)
          inbox         put (--profile ID | --profiles A,B | --to-topic NAME | --resource ID) --title T [--body B]
                        [--image URL] [--link URL] [--custom JSON] [--days N] [--project ID]
                        | list PROFILE | expiry PROJECT [DAYS]
          segments      list [--project ID] | show ID | delete ID
                        | create --project ID --name NAME (--where FILTER | --filter JSON) [--resource ID]
                        | edit ID [--name NAME] [--where FILTER | --filter JSON] [--resource ID]
                        | preview ID [--sample N] | preview --project ID (--where F | --filter J) [--resource ID]
                        FILTER: 'session_count >= 3 and app_version >= 2.0', fields.NAME, tags.KEY, and/or,
                        ( ), = != < <= > >= in (a, b) exists, not exists, before/after TIME, within N days,
                        opened M, not opened M, received M, sent M (M a message's id), opened_any within N days
          template      create --project ID --name NAME [tern send's content options: --title, --body, …]
                        | list [--project ID] [--after ID] [--limit N] | show ID | edit ID [options] | delete ID
                        a message's content saved once; tern send --template ID fills in what it leaves out
          preferences   show PROFILE
          topics        list PROJECT | followers PROJECT TOPIC [--limit N]
          identity      policy PROJECT [basic|verified]   the project's identity mode (each set is a new revision)
                        | show RESOURCE TOKEN [--provider ios-apns]   an installation's binding

        Every management command accepts --url URL (the server's api_url) and --admin-key-file FILE, or
        TERN_URL and TERN_ADMIN_KEY (or TERN_ADMIN_KEY_FILE), or --data DIR to read DIR/bootstrap.json.
        The key is the server key (bootstrap.json's admin_key) or a project key from tern keys create;
        a project key reaches only its project, as far as its role allows. A key's secret is shown once.

        Secrets: prefer a file (--admin-key-file, --secret-file) or the environment (TERN_ADMIN_KEY,
        TERN_JWT_SECRET). --admin-key KEY and --secret S still work, but a command line shows in ps to
        every user of the machine.
        """

    /// Prints `tern: <message>` on standard error and exits with `code`.
    static func fail(_ message: String, _ code: ExitCode = .usage) -> Never {
        FileHandle.standardError.write(Data("tern: \(message)\n".utf8))
        exit(code.rawValue)
    }

    /// Runs a command: a ``CommandError`` exits with its reason and its code, any other error with 1.
    static func run(_ body: () async throws -> Void) async {
        do {
            try await body()
        } catch let error as CommandError {
            fail(error.reason, error.exitCode)
        } catch {
            fail("\(error)", .refused)
        }
    }
}
