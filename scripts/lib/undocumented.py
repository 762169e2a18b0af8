#!/usr/bin/env python3
"""Lists the public symbols of a module's symbol graphs that have no documentation comment.

A symbol counts as documented when it has its own `///` comment. Symbols the compiler made up
(`::SYNTHESIZED::`: members inherited from protocol extensions) and implementations of the standard
library's protocol requirements (`init(from:)`, `encode(to:)`, `==`, `hash(into:)`, `description`,
...; DocC shows the protocol's documentation for them) are not counted. Each one is printed as
`path/to/File.swift:LINE: error: ... Module: kind Type.member`, one a line.

Usage: undocumented.py GRAPHS ROOT --modules M...
    Reads GRAPHS/M/M.symbols.json and GRAPHS/M/M@*.symbols.json (extensions of other modules'
    types). Fails (exit 1) on any undocumented public symbol: there is no list of exceptions (the
    475 symbols grandfathered when the check came in are all documented now).
"""

import argparse
import glob
import json
import os
import sys
from urllib.parse import unquote, urlparse

# Requirements of the standard library's and Foundation's protocols: their documentation is the
# protocol's. Named as the symbol graph names them.
WITNESSES = {
    "init(from:)", "encode(to:)", "==(_:_:)", "!=(_:_:)", "<(_:_:)", "hash(into:)", "hashValue",
    "description", "debugDescription", "init(rawValue:)", "rawValue", "allCases", "id",
    "init(stringLiteral:)", "init(integerLiteral:)", "init(floatLiteral:)", "init(booleanLiteral:)",
    "init(nilLiteral:)", "init(arrayLiteral:)", "init(dictionaryLiteral:)",
    "init(unicodeScalarLiteral:)", "init(extendedGraphemeClusterLiteral:)", "errorDescription",
    "localizedDescription", "makeIterator()", "next()", "makeAsyncIterator()", "callAsFunction",
    "init(stringValue:)", "init(intValue:)", "stringValue", "intValue",
}
# Nested types the compiler expects by name.
WITNESS_TYPES = {"CodingKeys", "AllCases", "RawValue", "Element", "AsyncIterator", "Iterator"}


def undocumented(graph_dir, module, root):
    """(key, where) for each undocumented public symbol of `module`; key is `Module: kind Path`."""
    paths = [os.path.join(graph_dir, f"{module}.symbols.json")]
    paths += sorted(glob.glob(os.path.join(graph_dir, f"{module}@*.symbols.json")))
    found = {}
    for path in paths:
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            graph = json.load(f)
        for symbol in graph["symbols"]:
            precise = symbol["identifier"]["precise"]
            if "::SYNTHESIZED::" in precise or symbol.get("accessLevel") not in ("public", "open"):
                continue
            name = symbol["pathComponents"][-1]
            if name in WITNESSES or name in WITNESS_TYPES:
                continue
            comment = symbol.get("docComment", {}).get("lines", [])
            if any(line.get("text", "").strip() for line in comment):
                continue
            location = symbol.get("location", {})
            file = unquote(urlparse(location.get("uri", "")).path)
            if root and file.startswith(root + "/"):
                file = file[len(root) + 1:]
            line = location.get("position", {}).get("line", 0) + 1
            kind = symbol["kind"]["displayName"].lower()
            found[f"{module}: {kind} {'.'.join(symbol['pathComponents'])}"] = f"{file}:{line}"
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("graphs", help="a directory with one folder of symbol graphs per module")
    parser.add_argument("root", help="the package root, stripped from file names")
    parser.add_argument("--modules", nargs="+", required=True)
    args = parser.parse_args()
    root = os.path.realpath(args.root)
    found = {}
    for module in args.modules:
        found.update(undocumented(os.path.join(args.graphs, module), module, root))
    missing = sorted((found[key], key) for key in found)
    for where, key in missing:
        print(f"{where}: error: public symbol without a documentation comment: {key}")
    if missing:
        print(f"{len(missing)} public symbols without documentation: add a /// comment to each "
              "(what it is; its parameters, return value, errors and defaults)")
        sys.exit(1)


if __name__ == "__main__":
    main()
