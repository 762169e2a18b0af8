#!/usr/bin/env bash
# The Swift in the DocC articles compiles against the SDK as built: every ```swift block of
# Sources/*/*.docc/*.md that uses only Tern and Foundation is type-checked (each block as the body
# of a function of its own) against the modules of the debug build. Blocks that use UIKit,
# SwiftUI or UserNotifications (the app delegate, the extension) are compiled for iOS instead, as
# the example app (scripts/examples.sh), which holds the same code. ActivityKit's blocks (Live
# Activities) are left out too; the example app has no Live Activity, so no build checks them.
# Run by `make test`.
set -euo pipefail
# shellcheck source=../lib/sdk-modules.sh
source "$(dirname "$0")/../lib/sdk-modules.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
modules_path=$(modules_dir)

python3 - "$root" "$tmp/Snippets.swift" <<'PY'
import glob, os, re, sys
root, out = sys.argv[1], sys.argv[2]
apple_only = re.compile(
    r"\b(UIKit|SwiftUI|UserNotifications|ActivityKit|UIApplication|UNNotification\w*|UIApplicationDelegateAdaptor"
    r"|registerForPushNotifications|registerHostCategories|handleNotificationRequest)\b|@main")
# Names the articles use as placeholders for the app's own values.
prelude = """import Foundation
import TernCore
import TernInApp
import TernInbox
import TernProfile
import TernPush
import TernTarget

private let deviceToken = Data([0xAB, 0xCD])
"""
bodies = []
for path in sorted(glob.glob(os.path.join(root, "Sources", "*", "*.docc", "*.md"))):
    text = open(path, encoding="utf-8").read()
    for number, block in enumerate(re.findall(r"```swift\n(.*?)```", text, re.S)):
        if apple_only.search(block):
            continue
        where = os.path.relpath(path, root)
        # The prelude imports every SDK module; a block's own imports would not be at file scope.
        lines = [line for line in block.splitlines() if not re.match(r"\s*import \w+\s*$", line)]
        indented = "".join("    " + line + "\n" if line else "\n" for line in lines)
        bodies.append(f"// {where}, block {number + 1}\n@MainActor func snippet{len(bodies)}() async throws {{\n{indented}}}\n")
with open(out, "w", encoding="utf-8") as f:
    f.write(prelude + "\n" + "\n".join(bodies))
print(f"docs-snippets: {len(bodies)} Swift blocks of the DocC articles")
PY

mapfile -t flags < <(tool_flags "$modules_path")
# -target and -module-cache-path come from tool_flags; the C shims' module maps too.
if swiftc -typecheck -swift-version 6 -parse-as-library -module-name DocSnippets "${flags[@]}" \
    "$tmp/Snippets.swift" >"$tmp/log" 2>&1; then
    echo "docs-snippets: they compile against the SDK"
else
    # Each error, named by the article and block it came from.
    python3 - "$tmp/Snippets.swift" "$tmp/log" <<'PY'
import re, sys
source = open(sys.argv[1], encoding="utf-8").read().splitlines()
for line in open(sys.argv[2], encoding="utf-8"):
    match = re.match(r".*Snippets\.swift:(\d+):\d+: error: (.*)", line)
    if not match:
        continue
    number = int(match.group(1))
    origin = next((source[i][3:] for i in range(number - 1, -1, -1) if source[i].startswith("// Sources/")), "?")
    print(f"{origin}: error: {match.group(2)}\n    {source[number - 1].strip()}")
PY
    echo "docs-snippets: a DocC article's Swift does not compile against the SDK (above)"
    exit 1
fi
