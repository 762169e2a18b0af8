#!/usr/bin/env python3
"""Turns a `swift-api-digester -dump-sdk` JSON file into the public API as sorted text lines.

One line per public declaration, named by its full path, with its kind, signature, attributes and
(for types) conformances:

    enum TernProtocol.Endpoint : CaseIterable, Decodable, ... (raw String)
    func TernProtocol.Endpoint.path() -> Swift.String  [static]
    init TernProtocol.Goal.init(sid:clientId:...) (Swift.String, Swift.String = default, ...)

The lines are what `api/<Module>.txt` holds, so a change to the public API is a readable diff.
Declarations the compiler made up (`implicit`, `__derived_*`) are left out: the conformance line
that brings them is kept. Imports are left out (they vary with the toolchain).

Usage: api_text.py DUMP.json > Module.txt
"""

import json
import sys

# Conformances every type has in Swift 6 and that say nothing about the API.
# (SendableMetatype and BitwiseCopyable are inferred, and only by newer toolchains.)
IMPLIED_CONFORMANCES = {"Copyable", "Escapable", "SendableMetatype", "BitwiseCopyable"}
# Attributes about storage and the compiler's bookkeeping, not about how code calls the declaration.
IGNORED_ATTRIBUTES = {"Implements", "HasStorage", "HasInitialValue"}


def type_name(node):
    """The printed type of a type node, with its default-argument marker."""
    name = node.get("printedName", "?")
    if node.get("hasDefaultArg"):
        name += " = default"
    ownership = node.get("paramValueOwnership")
    if ownership and ownership != "Default":
        name = f"{ownership.lower()} {name}"
    return name


def flags(node):
    out = []
    for key, word in (("static", "static"), ("throwing", "throws"), ("isLet", "let"), ("isOpen", "open")):
        if node.get(key):
            out.append(word)
    if node.get("funcSelfKind") == "Mutating":
        out.append("mutating")
    if node.get("genericSig"):
        out.append("where " + node["genericSig"])
    attributes = [a for a in node.get("declAttributes", []) if a not in IGNORED_ATTRIBUTES]
    out.extend("@" + a for a in sorted(attributes))
    return "  [" + ", ".join(out) + "]" if out else ""


def lines_for(node, path, out):
    kind = node.get("kind")
    name = node.get("printedName", node.get("name", "?"))
    if kind in ("Import", "Root"):
        pass
    elif node.get("implicit") or node.get("name", "").startswith("__derived"):
        return
    elif kind == "TypeDecl" and node.get("isExternal"):
        # Another module's type this module extends: its members are this module's API.
        full = f"{node.get('moduleName', '?')}.{name}"
        out.append(f"extension {full}")
        for child in node.get("children", []):
            lines_for(child, full, out)
        return
    elif kind == "TypeDecl":
        full = f"{path}.{name}" if path else name
        conformances = sorted(
            c["printedName"] for c in node.get("conformances", []) if c["printedName"] not in IMPLIED_CONFORMANCES)
        line = f"{node.get('declKind', 'Type').lower()} {full}"
        if conformances:
            line += " : " + ", ".join(conformances)
        if node.get("enumRawTypeName"):
            line += f" (raw {node['enumRawTypeName']})"
        if node.get("declKind") == "Enum" and not node.get("isEnumExhaustive", True):
            line += " (non-exhaustive)"
        out.append(line + flags(node))
        for child in node.get("children", []):
            lines_for(child, full, out)
        return
    elif kind in ("Function", "Constructor"):
        children = node.get("children", [])
        result = type_name(children[0]) if children else "()"
        params = ", ".join(type_name(c) for c in children[1:])
        word = "init" if kind == "Constructor" else ("case" if node.get("declKind") == "EnumElement" else "func")
        out.append(f"{word} {path}.{name} ({params}) -> {result}{flags(node)}")
        return
    elif kind == "Var":
        children = node.get("children", [])
        if node.get("declKind") == "EnumElement":
            # A case: its child is the case constructor's function type, payload included.
            constructor = children[0].get("printedName", "") if children else ""
            out.append(f"case {path}.{name} {constructor}".rstrip())
            return
        value_type = type_name(children[0]) if children else "?"
        accessors = sorted(a.get("accessorKind", a.get("name", "?")) for a in node.get("accessors", []))
        accessor_text = " { " + " ".join(accessors) + " }" if accessors else ""
        out.append(f"var {path}.{name} : {value_type}{accessor_text}{flags(node)}")
        return
    elif kind == "Subscript":
        children = node.get("children", [])
        result = type_name(children[0]) if children else "?"
        params = ", ".join(type_name(c) for c in children[1:])
        out.append(f"subscript {path}[{params}] -> {result}{flags(node)}")
        return
    elif kind == "TypeAlias":
        children = node.get("children", [])
        target = type_name(children[0]) if children else "?"
        out.append(f"typealias {path}.{name} = {target}{flags(node)}")
        return
    elif kind == "AssociatedType":
        out.append(f"associatedtype {path}.{name}{flags(node)}")
        return
    elif kind == "OperatorDecl":
        out.append(f"operator {name}")
        return
    else:
        return
    for child in node.get("children", []):
        lines_for(child, node.get("name", "") if kind == "Root" else path, out)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        dump = json.load(f)
    out = []
    lines_for(dump["ABIRoot"], "", out)
    # Declarations sit under their module's name: path components start with the type.
    module = dump["ABIRoot"].get("name", "")
    lines = sorted(set(out))
    sys.stdout.write(f"// Public API of {module}: generated by scripts/api-baseline.sh, do not edit.\n")
    for line in lines:
        sys.stdout.write(line + "\n")


if __name__ == "__main__":
    main()
