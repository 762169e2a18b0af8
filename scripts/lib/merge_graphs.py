#!/usr/bin/env python3
"""Puts a module's Linux and iOS symbol graphs side by side for one DocC archive.

DocC merges graphs of one module made for several platforms when a symbol has the same identifier
(USR) on each, and marks the rest as available on one platform only. A declaration whose type
mentions a platform-specific type (`URL` is FoundationEssentials' on Linux and Foundation's on
iOS; `PlatformNotification` is `UNNotification` on iOS) has a different USR on each platform, and
DocC would show it twice and call links to it ambiguous. Such a Linux symbol is dropped when the
iOS graph has a symbol of the same kind and path that Linux lacks: the iOS one is the SDK's real
declaration. Everything else is kept: Apple-only API (`Apple/` folders, `#if os(iOS)`) appears,
with an "iOS 16.0+" availability (the graph's minimum) on its page; Linux-only API (the simulated
device's) appears as Linux's.

Usage: merge_graphs.py LINUX_DIR IOS_DIR OUT_DIR   (OUT_DIR/linux and OUT_DIR/ios are written)
Prints how many symbols are iOS-only and Linux-only, and the iOS-only ones by name.
"""

import glob
import json
import os
import shutil
import sys


def load(directory):
    graphs = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.symbols.json"))):
        with open(path, encoding="utf-8") as f:
            graphs[os.path.basename(path)] = json.load(f)
    return graphs


def key(symbol):
    return (symbol["kind"]["identifier"], tuple(symbol["pathComponents"]))


def public(symbols):
    return {s["identifier"]["precise"]: s for s in symbols if "::SYNTHESIZED::" not in s["identifier"]["precise"]}


def main():
    linux_dir, ios_dir, out = sys.argv[1:4]
    linux, ios = load(linux_dir), load(ios_dir)
    ios_symbols = public(s for g in ios.values() for s in g["symbols"])
    linux_symbols = public(s for g in linux.values() for s in g["symbols"])
    ios_only_keys = {key(s) for usr, s in ios_symbols.items() if usr not in linux_symbols}
    dropped = {usr for usr, s in linux_symbols.items() if usr not in ios_symbols and key(s) in ios_only_keys}
    for name in ("linux", "ios"):
        shutil.rmtree(os.path.join(out, name), ignore_errors=True)
        os.makedirs(os.path.join(out, name))
    linux_keys = {key(s) for s in linux_symbols.values()}
    for name, graph in ios.items():
        minimum = graph["module"]["platform"].get("operatingSystem", {}).get("minimumVersion", {"major": 16})
        for symbol in graph["symbols"]:
            # An iOS-only symbol says so on its page: "iOS 16.0+", and no other platform.
            availability = symbol.setdefault("availability", [])
            if key(symbol) not in linux_keys and not any(item.get("domain") == "iOS" for item in availability):
                availability.append({"domain": "iOS", "introduced": minimum})
        with open(os.path.join(out, "ios", name), "w", encoding="utf-8") as f:
            json.dump(graph, f)
    for name, graph in linux.items():
        graph["symbols"] = [s for s in graph["symbols"] if s["identifier"]["precise"] not in dropped]
        graph["relationships"] = [
            r for r in graph["relationships"] if r["source"] not in dropped and r["target"] not in dropped
        ]
        with open(os.path.join(out, "linux", name), "w", encoding="utf-8") as f:
            json.dump(graph, f)
    ios_keys = {key(s) for s in ios_symbols.values()}
    apple_only = sorted(".".join(k[1]) for k in ios_keys - linux_keys)
    linux_only = sorted(".".join(k[1]) for k in linux_keys - ios_keys)
    print(f"{len(apple_only)} iOS-only, {len(linux_only)} Linux-only, {len(dropped)} restated for iOS")
    for name in apple_only:
        print(f"  iOS only: {name}")


if __name__ == "__main__":
    main()
