#!/usr/bin/env python3
"""Lists the tests a ctest run skipped, with the reason each printed, and
(under CI=true, or with --strict) fails when one is not in the expected-skips
list.

  scripts/check-skips.py JUNIT_XML EXPECTED_SKIPS [--strict]

JUNIT_XML is ctest's --output-junit file. EXPECTED_SKIPS holds one test per
line: the ctest name, two or more spaces, and why it may skip on CI's machine
('#' starts a comment). Exit status: 0 fine, 1 an unexpected skip (strict),
2 bad input.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET


def expected_skips(path):
    expected = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = re.split(r"\s{2,}", line.strip(), maxsplit=1)
            if len(parts) != 2:
                sys.exit(f"check-skips: {path}:{n}: want 'TEST  reason', got {line!r}")
            expected[parts[0]] = parts[1]
    return expected


def skip_reason(output):
    """The reason a test printed: gtest's line after '...: Skipped', or a
    shell test's 'SKIP: ...' / 'SKIP name' lines."""
    lines = [l.strip() for l in output.splitlines()]
    for i, line in enumerate(lines):
        if line.endswith(": Skipped") and i + 1 < len(lines) and lines[i + 1]:
            return lines[i + 1]
    for line in lines:
        m = re.search(r"SKIP: (.+)", line)
        if m:
            return m.group(1)
    said = [l for l in lines if l and not l.startswith("[")]
    return " / ".join(said[-3:]) if said else "(no reason printed)"


def main():
    args = [a for a in sys.argv[1:] if a != "--strict"]
    strict = "--strict" in sys.argv[1:] or os.environ.get("CI") == "true"
    if len(args) != 2:
        sys.exit(__doc__)
    junit, listed = args
    try:
        root = ET.parse(junit).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"check-skips: cannot read ctest's JUnit file {junit}: {e}", file=sys.stderr)
        return 2
    expected = expected_skips(listed)
    skipped = []
    for case in root.iter("testcase"):
        if case.find("skipped") is None and case.get("status") != "notrun":
            continue
        out = case.findtext("system-out") or ""
        skipped.append((case.get("name"), skip_reason(out)))
    unexpected = [(n, r) for n, r in skipped if n not in expected]
    print(f"==== skipped tests: {len(skipped)} ({len(unexpected)} not in {listed})")
    for name, reason in skipped:
        mark = "expected" if name in expected else "UNEXPECTED"
        print(f"  {mark}: {name}: {reason}")
    if unexpected and strict:
        print(f"==== check-skips: FAILED: {len(unexpected)} test(s) skipped that CI's machine "
              f"should run; fix the cause, or list the test in {listed} with why it skips there")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
