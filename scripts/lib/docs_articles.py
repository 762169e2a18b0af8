#!/usr/bin/env python3
"""Makes DocC articles of pages in docs/, for the server's reference (scripts/docs.sh).

Each page becomes CATALOG/<name>.md, the same text with its links adjusted: a link to another page
made here becomes a DocC link (`[text](<doc:name>)`, which docc checks), a link to any other file
of the repository names that file in code voice (the reference is served without the repository),
and images are copied beside the articles. The pages stay the one source; nothing here is kept.

Usage: docs_articles.py DOCS_DIR CATALOG NAME...
"""

import os
import re
import shutil
import sys

LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")


def convert(text, names, docs_dir, catalog):
    def replace(match):
        image, label, target = match.groups()
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return match.group(0)  # a web address or an anchor: as it is
        path, _, anchor = target.partition("#")
        base = os.path.basename(path)
        stem, ext = os.path.splitext(base)
        if image:
            source = os.path.normpath(os.path.join(docs_dir, path))
            if not os.path.isfile(source):
                sys.exit(f"docs_articles: the image {target} does not exist")
            shutil.copy(source, os.path.join(catalog, base))
            return f"![{label}]({base})"
        if ext == ".md" and stem in names and os.path.dirname(path) in ("", "."):
            return f"[{label}](<doc:{stem}>)"
        where = os.path.relpath(os.path.normpath(os.path.join(docs_dir, path)), os.path.dirname(docs_dir))
        if not os.path.exists(os.path.join(os.path.dirname(docs_dir), where)):
            sys.exit(f"docs_articles: a link to {target} leads nowhere")
        return f"{label} (`{where}`)" if label.strip("`") != where else f"`{where}`"

    out = []
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        out.append(line if fenced else LINK.sub(replace, line))
    return "\n".join(out)


def main():
    docs_dir, catalog, *names = sys.argv[1:]
    for name in names:
        source = os.path.join(docs_dir, name + ".md")
        with open(source, encoding="utf-8") as f:
            text = f.read()
        if not text.startswith("# "):
            sys.exit(f"docs_articles: {source} must start with a '# ' title")
        with open(os.path.join(catalog, name + ".md"), "w", encoding="utf-8") as f:
            f.write(convert(text, set(names), docs_dir, catalog))


if __name__ == "__main__":
    main()
