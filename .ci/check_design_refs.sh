#!/usr/bin/env bash
# Checks that every citation of the design document in the source tree resolves:
#   a quoted section    (DESIGN.md, "Protocol")  must be a heading of docs/DESIGN.md;
#   a rule number       (DESIGN.md, rule 1; DESIGN.md rule 2; DESIGN.md, rules 1 and 2)
#                       must be an item of the numbered list under its "Rules" heading;
#   a README section    (README, "Outputs"; README.md, "Commands") must be a heading of the
#                       top-level README.md (analysis/README.md's are not checked).
# A citation may wrap onto the next comment line. Files searched: *.h *.cc *.cu *.cuh *.txt
# *.sh *.py *.md, outside build*/ and .git/. Prints each unresolved citation as file:line and
# exits 1 if there is any; exits 2 when docs/DESIGN.md is missing.
#
# Usage: .ci/check_design_refs.sh [ROOT [DESIGN_FILE]]
#   ROOT defaults to this repository; DESIGN_FILE to ROOT/docs/DESIGN.md.
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
design="${2:-$root/docs/DESIGN.md}"
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
exec python3 - "$root" "$design" "$self" <<'PY'
import os
import re
import sys

root, design, self_path = sys.argv[1], sys.argv[2], os.path.realpath(sys.argv[3])
EXTENSIONS = (".h", ".cc", ".cu", ".cuh", ".txt", ".sh", ".py", ".md")

if not os.path.isfile(design):
    print(f"check_design_refs: {design} does not exist", file=sys.stderr)
    sys.exit(2)


def norm(text):
    return " ".join(text.split())


# Headings and rule numbers of the design document (fenced code blocks skipped).
headings, rules = set(), set()
in_fence, in_rules = False, False
with open(design, encoding="utf-8") as f:
    for line in f:
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if m:
            title = norm(m.group(2))
            headings.add(title)
            in_rules = title == "Rules"
            continue
        if in_rules:
            item = re.match(r"^(\d+)\.\s", line)
            if item:
                rules.add(int(item.group(1)))

# The top-level README's headings (its code blocks are indented, not fenced).
readme = os.path.join(root, "README.md")
readme_headings = set()
if os.path.isfile(readme):
    with open(readme, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
            if m:
                readme_headings.add(norm(m.group(2)))

CITE = re.compile(r"DESIGN\.md")
# README or README.md, not analysis/README.md; its section after a comma or a space (so that
# code naming the file, "README.md", readme..., is no citation).
README_CITE = re.compile(r"(?<![/\w.])README(?:\.md)?")
README_SECTION = re.compile(r'^(?:,\s*|\s+)(?:section\s+)?"([^"]*)"')
SECTION = re.compile(r'^,?\s*(?:section\s+)?"([^"]*)"')
RULES = re.compile(r"^,?\s*rules?\s+(\d+(?:\s*(?:,|and|&|-|to)\s*\d+)*)")
COMMENT = re.compile(r"^\s*(?:///|//!|//|#|\*|--|;)?\s?")
# The remainder of a line ends inside a citation: an open quote, or a dangling connector.
DANGLING = re.compile(r'(^|,|\band|\brules?|\bsection)\s*$')


def rule_numbers(text):
    numbers = set()
    for a, b in re.findall(r"(\d+)\s*(?:-|to)\s*(\d+)", text):
        numbers.update(range(int(a), int(b) + 1))
    numbers.update(int(n) for n in re.findall(r"\d+", text))
    return numbers


def citation_text(lines, i, start):
    """The text after DESIGN.md on line i, joined with up to 3 continuation lines."""
    text = lines[i][start:].rstrip("\n")
    j = i
    while j + 1 < len(lines) and j - i < 3:
        opened = re.match(r'^,?\s*(?:section\s+)?"', text) and text.count('"') == 1
        if not opened and not DANGLING.search(text):
            break
        j += 1
        nxt = COMMENT.sub("", lines[j].rstrip("\n"), count=1)
        text = text.rstrip() + " " + nxt.strip()
    return text


checked, unresolved = 0, []
for dirpath, dirnames, filenames in os.walk(root):
    rel_dir = os.path.relpath(dirpath, root)
    dirnames[:] = sorted(d for d in dirnames
                         if d != ".git" and not (rel_dir == "." and d.startswith("build")))
    for name in sorted(filenames):
        if not name.endswith(EXTENSIONS):
            continue
        path = os.path.join(dirpath, name)
        if os.path.realpath(path) == self_path:
            continue
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = f.readlines()
        except OSError as e:
            print(f"check_design_refs: cannot read {path}: {e}", file=sys.stderr)
            continue
        rel = os.path.relpath(path, root)
        for i, line in enumerate(lines):
            for m in README_CITE.finditer(line):
                section = README_SECTION.match(citation_text(lines, i, m.end()))
                if section and readme_headings:
                    checked += 1
                    title = norm(section.group(1))
                    if title not in readme_headings:
                        unresolved.append(f'{rel}:{i + 1}: README, "{title}": no such heading in README.md')
            for m in CITE.finditer(line):
                text = citation_text(lines, i, m.end())
                section = SECTION.match(text)
                if section:
                    checked += 1
                    title = norm(section.group(1))
                    if title not in headings:
                        unresolved.append(f'{rel}:{i + 1}: DESIGN.md, "{title}": '
                                          f"no such heading in {os.path.relpath(design, root)}")
                    continue
                rule = RULES.match(text)
                if rule:
                    checked += 1
                    missing = sorted(n for n in rule_numbers(rule.group(1)) if n not in rules)
                    if missing:
                        listed = ", ".join(str(n) for n in sorted(rules)) or "none"
                        unresolved.append(f"{rel}:{i + 1}: DESIGN.md, rule "
                                          f"{', '.join(str(n) for n in missing)}: not in the "
                                          f'"Rules" list (it has {listed})')

for u in unresolved:
    print(u)
if unresolved:
    print(f"check_design_refs: {len(unresolved)} of {checked} citations do not resolve",
          file=sys.stderr)
    sys.exit(1)
print(f"check_design_refs: all {checked} citations (DESIGN.md and README) resolve")
PY
