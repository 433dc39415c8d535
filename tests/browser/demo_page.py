#!/usr/bin/python3
"""The kernel demo's page in Debian's headless chromium (samples/test.sh demo).

    demo_page.py PAGE [--screenshot PNG]

Loads PAGE (kprof diff --html of the demo's kernels), and checks from the
live DOM: no console errors; the on-CPU flame graph is drawn from call
chains (frames on more than one level); the off-CPU flame graph is drawn
beside it; the cost-per-call section is there. With --screenshot, writes the
viewport (1280x900) to PNG (docs/diff.png). Exit 0 when all hold, 1 with a
line per failure, 77 when chromium or python3-websocket is missing.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("page")
    ap.add_argument("--screenshot")
    args = ap.parse_args()
    try:
        import cdp  # needs python3-websocket
    except ImportError as e:
        print(f"SKIP: {e} (apt-get install python3-websocket)", file=sys.stderr)
        return 77
    if not os.path.exists(cdp.CHROMIUM):
        print(f"SKIP: no {cdp.CHROMIUM} (apt-get install chromium)", file=sys.stderr)
        return 77
    failures = []
    with cdp.Browser(width=1280, height=900) as b:
        b.open("file://" + os.path.abspath(args.page))
        errors = b.errors()
        if errors:
            failures.append(f"console errors: {errors}")
        levels = b.evaluate(
            "new Set([...document.querySelectorAll('#flame .frame')]"
            ".map(e => Math.round(e.getBoundingClientRect().top))).size")
        frames = b.evaluate("document.querySelectorAll('#flame .frame').length")
        print(f"on-CPU flame graph: {frames} frames on {levels} levels", file=sys.stderr)
        if levels < 2:
            failures.append(f"the flame graph is {levels} level(s) deep: drawn without call chains")
        off = b.evaluate("document.querySelectorAll('#off-cpu-flame .frame').length")
        print(f"off-CPU flame graph: {off} frames", file=sys.stderr)
        if off == 0:
            failures.append("no off-CPU flame graph")
        per_call = b.evaluate("document.body.textContent.includes('chdir')")
        if not per_call:
            failures.append("the page does not name chdir (no cost per call)")
        if args.screenshot:
            b.evaluate("window.scrollTo(0, 0)")
            b.screenshot(args.screenshot)
    for f in failures:
        print(f"demo page: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
