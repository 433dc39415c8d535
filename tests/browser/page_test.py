#!/usr/bin/python3
"""kprof's HTML pages in a real browser: Debian's chromium, headless, driven
over the DevTools protocol (cdp.py). Every assertion reads the live DOM.

  page_test.py --kprof BIN --programs DIR --source DIR --out DIR

Pages:
  (a) the shipped samples/generic.kprof vs samples/rt.kprof;
  (b) the call-tree program (tests/programs) recorded with -g, with its caller
      kprof_ct_b's path made twice as slow on the new side;
  (c) the call-tree program twice, unchanged (A/A);
  (d) two listings whose function names hold markup;
  (e) kprof report --html of (b)'s new profile;
  (f) two runs a side;
  (g) kprof report --html of a profile whose stacks are shallow but for 0.09%
      that are 150 frames deeper (--deep-stacks writes it).
Screenshots of (a) and (b) are written to --out and checked to be non-blank.
Exit status 77 (ctest: skipped) when chromium or python3-websocket is missing.
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

ARGS = None
try:
    import websocket  # noqa: F401  (python3-websocket; cdp.py needs it)
    from PIL import Image  # python3-pil, for the screenshot check
    import cdp
except ImportError as e:  # pragma: no cover
    print(f"SKIP: {e} (scripts/install-deps.sh installs python3-websocket and python3-pil)")
    sys.exit(77)


def kprof(*args, check=True):
    r = subprocess.run([ARGS.kprof, *args], capture_output=True, text=True, timeout=120)
    if check and r.returncode != 0:
        raise AssertionError(f"kprof {' '.join(args)} exited {r.returncode}: {r.stderr}")
    return r


def record_calltree(path, factor):
    kprof("record", "-g", "-F", "4999", "-o", path, "--",
          os.path.join(ARGS.programs, "kprof_prog_calltree"), "1.5", factor)


def island(html_path):
    with open(html_path, encoding="utf-8") as f:
        page = f.read()
    start = page.index('id="kprof-data">') + len('id="kprof-data">')
    return json.loads(page[start:page.index("</script>", start)])


def changed_nodes(data):
    s = data["strings"]
    return [s[n["n"]] for n in data["flame"]["nodes"][1:]
            if n["cmp"][1] and n["cmp"][1]["v"] == "changed" and n["cmp"][1]["sd"] == ""]


# JavaScript helpers evaluated in the page.
FRAMES = """[...document.querySelectorAll('#flame .frame')].map(e => {
  const r = e.getBoundingClientRect();
  return {node: +e.dataset.node, name: e.dataset.name, color: e.dataset.color,
          x: r.left, y: r.top, w: r.width, h: r.height,
          bg: getComputedStyle(e).backgroundColor};
})"""
ROWS = """[...document.querySelectorAll('#diff-table tbody tr')].map(e => ({
  name: e.dataset.name, image: e.dataset.image, verdict: e.dataset.verdict,
  text: e.textContent}))"""


def rgb(css):
    parts = css[css.index("(") + 1:css.index(")")].split(",")
    return tuple(float(p) for p in parts[:3])


class PageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="kprof-browser-")
        d = cls.dir
        cls.pages = {}
        # (a) the shipped kernels
        a = os.path.join(d, "a.html")
        kprof("diff", os.path.join(ARGS.source, "samples/generic.kprof"),
              os.path.join(ARGS.source, "samples/rt.kprof"), "--label", "generic", "--label", "rt",
              "--html", a, "--json", os.path.join(d, "a.json"))
        cls.pages["a"] = a
        # (b) one caller slowed
        base, slow = os.path.join(d, "base.kprof"), os.path.join(d, "slow.kprof")
        record_calltree(base, "1")
        record_calltree(slow, "2")
        b = os.path.join(d, "b.html")
        kprof("diff", base, slow, "--label", "base", "--label", "slow", "--html", b)
        cls.pages["b"] = b
        # (c) A/A. At the 5% false discovery rate a correct diff still marks a
        # frame "changed" in up to 5% of A/A pairs; one fresh pair is drawn
        # when the first one has such a frame (both: ~1 in 400 runs).
        c = os.path.join(d, "c.html")
        cls.aa_attempts = 0
        for attempt in range(2):
            cls.aa_attempts += 1
            aa1, aa2 = os.path.join(d, f"aa1-{attempt}.kprof"), os.path.join(d, f"aa2-{attempt}.kprof")
            record_calltree(aa1, "1")
            record_calltree(aa2, "1")
            kprof("diff", aa1, aa2, "--html", c)
            if not changed_nodes(island(c)):
                break
            print(f"A/A pair {attempt + 1} had changed frames {changed_nodes(island(c))}; "
                  "recording another", file=sys.stderr)
        cls.pages["c"] = c
        # (d) markup in names, from two pasted perf report listings
        cls.evil = ["operator<< <std::string>(std::ostream&, \"q\" & 'x')",
                    "evil</script><img src=x onerror=window.__pwned=1>"]
        for side, counts in (("d1", (5000, 3000, 2000)), ("d2", (2000, 6000, 2000))):
            total = sum(counts)
            lines = ["# Overhead       Samples  Command  Shared Object  Symbol",
                     "# ........  ............  .......  .............  ......", "#"]
            for name, k in zip(cls.evil + ["main"], counts):
                lines.append(f"    {100 * k / total:6.2f}%  {k:12d}  app      app            [.] {name}")
            with open(os.path.join(d, side + ".txt"), "w") as f:
                f.write("\n".join(lines) + "\n")
        dh = os.path.join(d, "d.html")
        kprof("diff", os.path.join(d, "d1.txt"), os.path.join(d, "d2.txt"), "--html", dh)
        cls.pages["d"] = dh
        # (e) one profile
        e = os.path.join(d, "e.html")
        kprof("report", slow, "--html", e)
        cls.pages["e"] = e
        # (f) two runs a side, from the recordings above
        f = os.path.join(d, "f.html")
        kprof("diff", base, os.path.join(d, "aa1-0.kprof"), "--", slow,
              os.path.join(d, "aa2-0.kprof"), "--html", f)
        cls.pages["f"] = f
        # (g) a few very deep stacks
        deep = os.path.join(d, "deep.kprof")
        subprocess.run([ARGS.deep_stacks, deep], check=True, timeout=60)
        g = os.path.join(d, "g.html")
        kprof("report", deep, "--html", g)
        cls.pages["g"] = g
        # (i) cost per system call, known by construction
        pa, pb = os.path.join(d, "pc-base.kprof"), os.path.join(d, "pc-slow.kprof")
        subprocess.run([ARGS.per_call_profiles, pa, pb], check=True, timeout=60)
        i = os.path.join(d, "i.html")
        kprof("diff", pa, pb, "--label", "generic", "--label", "rt", "--html", i)
        cls.pages["i"] = i
        # (h) three kernels: the shipped two and this machine's
        h = os.path.join(d, "h.html")
        kprof("diff", os.path.join(ARGS.source, "samples/generic.kprof"),
              os.path.join(ARGS.source, "samples/rt.kprof"), base,
              "--label", "generic", "--label", "rt", "--label", "here", "--html", h)
        cls.pages["h"] = h
        # (j) a --off-cpu recording: its off-CPU flame graph beside the on-CPU one
        oc = os.path.join(d, "offcpu.kprof")
        kprof("record", "-g", "--off-cpu", "-F", "999", "-o", oc, "--",
              os.path.join(ARGS.programs, "kprof_prog_offcpu"), "0.5")
        j = os.path.join(d, "j.html")
        kprof("report", oc, "--html", j)
        cls.pages["j"] = j

        cls.browser = cdp.Browser(width=1400, height=1000)
        cls.browser.__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.browser.__exit__(None, None, None)
        shutil.rmtree(cls.dir, ignore_errors=True)

    def open(self, key):
        self.browser.open("file://" + self.pages[key])
        self.assertEqual(self.browser.errors(), [], f"console errors on page {key}")
        return island(self.pages[key])

    def frames(self):
        return self.browser.evaluate(FRAMES)

    def frame_of(self, name, parent_name=None):
        data = self.data
        s = data["strings"]
        for i, n in enumerate(data["flame"]["nodes"]):
            if s[n["n"]] == name and (parent_name is None or
                                      s[data["flame"]["nodes"][n["p"]]["n"]] == parent_name):
                for f in self.frames():
                    if f["node"] == i:
                        return f
        self.fail(f"no drawn frame {name} (under {parent_name})")

    def assert_colors_follow_verdicts(self):
        nodes = self.data["flame"]["nodes"]
        frames = self.frames()
        self.assertGreater(len(frames), 3, "the flame graph is drawn")
        for f in frames:
            cmp = nodes[f["node"]]["cmp"][1]
            if cmp is None:
                continue
            if cmp["sd"]:
                want = "one-sided"
            elif cmp["v"] != "changed":
                want = "grey"
            else:
                want = "red" if cmp["d"] > 0 else "blue"
            self.assertEqual(f["color"], want, f"frame {f['name']}: {cmp}")
            r, g, b = rgb(f["bg"])
            if want == "red":
                self.assertGreater(r, max(g, b) + 30, f"{f['name']} painted {f['bg']}")
            elif want == "blue":
                self.assertGreater(b, max(r, g) + 20, f"{f['name']} painted {f['bg']}")
            elif want == "grey":
                self.assertLess(max(r, g, b) - min(r, g, b), 40, f"{f['name']} painted {f['bg']}")

    def screenshot(self, name):
        path = os.path.join(ARGS.out, name)
        self.browser.screenshot(path)
        with Image.open(path) as im:
            im = im.convert("RGB")
            self.assertGreater(im.size[0] * im.size[1], 800 * 600)
            colors = im.getcolors(maxcolors=1 << 20)
            self.assertIsNotNone(colors)
            self.assertGreater(len(colors), 50, f"{name} looks blank")
            # No single colour covers nearly everything (a blank or error page).
            self.assertLess(max(c for c, _ in colors), 0.95 * im.size[0] * im.size[1])
        print(f"screenshot: {path}", file=sys.stderr)

    # ------------------------------------------------------------ (a)

    def test_a_title_names_the_files(self):
        self.open("a")
        self.assertEqual(self.browser.evaluate("document.title"),
                         "kprof diff: generic (generic.kprof) vs rt (rt.kprof)")

    def test_a_shipped_kernels_table_verdicts(self):
        self.data = self.open("a")
        with open(os.path.join(self.dir, "a.json")) as f:
            want = json.load(f)
        rows = {(r["name"], r["image"]): r for r in self.browser.evaluate(ROWS)}
        self.assertGreaterEqual(len(rows), 30)
        for row in want["rows"][:30]:
            got = rows.get((row["name"], row["image"]))
            self.assertIsNotNone(got, f"{row['name']} is in the table")
            self.assertEqual(got["verdict"], row["sides"][1]["verdict"], row["name"])
        # Facts of the shipped pair, as `kprof diff` prints them.
        self.assertEqual(rows[("_raw_spin_unlock_irqrestore", "[kernel]")]["verdict"], "changed")
        self.assertEqual(rows[("migrate_disable", "[kernel]")]["verdict"], "changed")
        self.assertIn("+++", rows[("migrate_disable", "[kernel]")]["text"])
        self.assertIn("irq-skid", rows[("_raw_spin_unlock_irqrestore", "[kernel]")]["text"])
        # Issue 24: PREEMPT_RT's own code is said to be, migrate_enable is not (it is not RT-only).
        self.assertIn("CONFIG_PREEMPT_RT", rows[("rt_spin_unlock", "[kernel]")]["text"])
        self.assertNotIn("CONFIG_", rows[("migrate_enable", "[kernel]")]["text"])
        self.assertNotIn("irq-skid", rows[("crunch", "/bin/syscalls")]["text"])
        header = self.browser.evaluate("document.querySelector('#header').textContent")
        samples = str(want['profiles'][1]['samples'])  # as the page writes counts
        for fact in ("generic", "rt", "6.1.0-50-amd64", "cpu-clock", "999 Hz", samples):
            self.assertIn(fact, header)
        chart = self.browser.evaluate(
            "[...document.querySelectorAll('#delta-chart .bar')].map(e => [e.dataset.name, e.dataset.verdict])")
        self.assertIn(["_raw_spin_unlock_irqrestore", "changed"], chart)
        self.assert_colors_follow_verdicts()
        self.screenshot("diff-a.png")

    def test_a_filter_and_sort(self):
        self.data = self.open("a")
        self.browser.type_into("#filter", "spin")
        rows = self.browser.evaluate(ROWS)
        self.assertGreater(len(rows), 0)
        for r in rows:
            self.assertIn("spin", (r["name"] + r["image"]).lower())
        self.browser.type_into("#filter", "")
        # Sort by a share column: clicking its header orders the rows by it.
        keys = self.browser.evaluate(
            "[...document.querySelectorAll('#diff-table thead th[data-key]')].map(e => e.dataset.key)")
        self.assertGreater(len(keys), 3)
        name_key = next(k for k in keys if "name" in k or "function" in k)
        self.browser.evaluate(
            f"document.querySelector('#diff-table thead th[data-key=\"{name_key}\"]').click()")
        names = [r["name"] for r in self.browser.evaluate(ROWS)]
        self.assertTrue(names == sorted(names) or names == sorted(names, reverse=True),
                        f"sorted by {name_key}: {names[:5]}")

    # ------------------------------------------------------------ (b)

    def test_b_slowed_caller_is_red_and_zooms(self):
        self.data = self.open("b")
        self.assertTrue(self.data["flame"]["chains"])
        self.browser.evaluate("document.querySelector('#flame').scrollIntoView({block: 'center'})")
        b = self.frame_of("kprof_ct_b", "main")
        self.assertEqual(b["color"], "red", "the slowed caller's frame")
        a = self.frame_of("kprof_ct_a", "main")
        self.assertEqual(a["color"], "blue", "its sibling's share shrank")
        self.assert_colors_follow_verdicts()
        self.screenshot("diff-b.png")
        # Hover shows the numbers.
        self.browser.hover(b["x"] + b["w"] / 2, b["y"] + b["h"] / 2)
        tip = self.browser.evaluate("document.querySelector('#tooltip').textContent")
        self.assertIn("kprof_ct_b", tip)
        self.assertIn("changed", tip)
        # Click zooms: the frame spans the graph.
        width = self.browser.evaluate("document.querySelector('#flame').getBoundingClientRect().width")
        self.browser.click(b["x"] + b["w"] / 2, b["y"] + b["h"] / 2)
        self.assertEqual(self.browser.evaluate("document.querySelector('#flame').dataset.zoom"),
                         str(b["node"]))
        zoomed = self.frame_of("kprof_ct_b", "main")
        self.assertGreater(zoomed["w"], 0.95 * width)
        self.browser.evaluate("document.querySelector('#flame-reset').click()")
        self.assertEqual(self.browser.evaluate("document.querySelector('#flame').dataset.zoom"), "0")
        self.assertEqual(self.browser.errors(), [])

    def test_b_search_finds_a_function(self):
        self.data = self.open("b")
        self.browser.type_into("#flame-search", "kprof_ct_leaf")
        matches = self.browser.evaluate(
            "[...document.querySelectorAll('#flame .frame.match')].map(e => e.dataset.name)")
        self.assertGreaterEqual(len(matches), 2, "the leaf under a and under b")
        self.assertTrue(all(m == "kprof_ct_leaf" for m in matches), matches)
        text = self.browser.evaluate("document.querySelector('#flame-match').textContent")
        self.assertIn("%", text)

    # ------------------------------------------------------------ (c)

    def test_c_same_workload_paints_nothing(self):
        self.data = self.open("c")
        # Issue 24: two recordings of this boot: the same environment, said once.
        env = self.browser.evaluate("document.querySelector('#sec-env').textContent")
        self.assertIn("Nothing: same environment", env)
        self.assertEqual(self.browser.evaluate("document.querySelectorAll('#env-facts').length"), 0)
        # Issue 23, item 15: one kernel on both sides: labelled and titled by file.
        title = self.browser.evaluate("document.title")
        self.assertRegex(title, r"^kprof diff: aa1-\d\.kprof vs aa2-\d\.kprof$")
        colors = {f["color"] for f in self.frames()}
        self.assertNotIn("red", colors, f"A/A ({self.aa_attempts} pairs recorded)")
        self.assertNotIn("blue", colors, f"A/A ({self.aa_attempts} pairs recorded)")
        self.assert_colors_follow_verdicts()

    # ------------------------------------------------------------ (d)

    def test_d_markup_in_names_is_text(self):
        self.data = self.open("d")
        rows = self.browser.evaluate(ROWS)
        names = [r["name"] for r in rows]
        for evil in self.evil:
            self.assertIn(evil, names)
        self.assertEqual(self.browser.evaluate("document.querySelectorAll('#app img').length"), 0)
        self.assertEqual(self.browser.evaluate("typeof window.__pwned"), "undefined")
        texts = self.browser.evaluate(
            "[...document.querySelectorAll('#flame .frame')].map(e => e.textContent)")
        self.assertTrue(any("</script>" in t for t in texts), texts)

    # ------------------------------------------------------------ (e)

    def test_e_report_page(self):
        self.data = self.open("e")
        title = self.browser.evaluate("document.title")
        self.assertRegex(title, r"^kprof report: .+ \(slow\.kprof\)$")
        rows = self.browser.evaluate(
            "[...document.querySelectorAll('#report-table tbody tr')].map(e => e.textContent)")
        self.assertTrue(any("kprof_ct_leaf" in r for r in rows))
        colors = {f["color"] for f in self.frames()}
        self.assertIn("user", colors)
        self.assertTrue(colors <= {"user", "kernel", "other"}, colors)
        leaf = self.frame_of("kprof_ct_leaf", "kprof_ct_b")
        self.assertGreater(leaf["w"], 10)

    def test_e_timeline_chart(self):
        # The run over time: a rate bar per slice, a line per top function
        # with a point per slice, as the island holds them; the hottest first.
        self.data = self.open("e")
        t = self.data["timeline"]
        slices = len(t["rate"])
        self.assertGreater(slices, 4)
        self.assertEqual(len(t["edges_s"]), slices + 1)
        chart = self.browser.evaluate(
            "(() => { const c = document.querySelector('#timeline');"
            " const lines = [...c.querySelectorAll('.timeline-line')];"
            " return {w: c.getBoundingClientRect().width,"
            "  bars: c.querySelectorAll('.rate-bar').length,"
            "  names: lines.map(l => l.dataset.name),"
            "  points: lines.map(l => l.querySelectorAll('circle').length)}; })()")
        self.assertGreater(chart["w"], 600)
        self.assertEqual(chart["bars"], slices)
        self.assertEqual(chart["names"], [self.data["strings"][r["n"]] for r in t["rows"]])
        self.assertEqual(chart["names"][0], "kprof_ct_leaf")
        self.assertEqual(set(chart["points"]), {slices})
        # A listing keeps no records: no timeline there.
        self.open("d")
        self.assertIsNone(self.browser.evaluate("document.getElementById('sec-timeline')"))

    # ------------------------------------------------------------ (f)

    def test_f_cards_show_each_runs_duration(self):
        # Issue 23, item 10: not the first run's duration beside all runs' samples.
        data = self.open("f")
        cards = self.browser.evaluate(
            "[...document.querySelectorAll('.side-card')].map(c => c.textContent)")
        self.assertEqual(len(cards), 2)
        for k, card in enumerate(cards):
            durations = data["sides"][k]["durations_s"]
            self.assertEqual(len(durations), 2)
            want = " / ".join(f"{d:.1f}" for d in durations) + " s"
            self.assertIn(want, card)


    # ------------------------------------------------------------ (i)

    def test_i_cost_per_call_and_what_accounts_for_it(self):
        # Issue 25: the seed's table, each call's verdict, and bars per function.
        self.open("i")
        rows = self.browser.evaluate(
            "[...document.querySelectorAll('#per-call-table tbody tr')].map(r => "
            "[...r.children].map(c => c.textContent))")
        self.assertEqual(rows, [["generic", "1000", "200", "50"], ["rt", "1300", "200", "50"]])
        verdicts = self.browser.evaluate(
            "Object.fromEntries([...document.querySelectorAll('#per-call-changes tbody tr')]"
            ".map(r => [r.dataset.call, r.dataset.verdict]))")
        self.assertEqual(verdicts, {"chdir": "changed", "newuname": "noise"})
        split = self.browser.evaluate(
            "[...document.querySelectorAll('.per-call-split')].map(b => ({call: b.dataset.call, "
            "head: b.querySelector('h3').textContent, rows: [...b.querySelectorAll('.split-row')]"
            ".map(r => [r.dataset.function, r.dataset.verdict, "
            "r.querySelector('.bar').getBoundingClientRect().width])}))")
        self.assertEqual(len(split), 1, split)
        self.assertEqual(split[0]["call"], "chdir")
        self.assertIn("+300.0 ns per call", split[0]["head"])
        self.assertIn("accounted for: 100%", split[0]["head"])
        first = split[0]["rows"][0]
        self.assertEqual(first[:2], ["rt_spin_unlock", "changed"])
        self.assertGreater(first[2], 20, "the largest change has a visible bar")
        self.screenshot("per-call.png")

    # ------------------------------------------------------------ (j)

    def test_j_off_cpu_flame_graph_beside_the_on_cpu_one(self):
        # Issue 26: the same flame graph, drawn from the off-CPU stacks, in a
        # section of its own; both work on their own (search, one tooltip).
        data = self.open("j")
        self.assertIn("off_cpu_flame", data)
        names = self.browser.evaluate(
            "[...document.querySelectorAll('#off-cpu-flame .frame')].map(e => e.dataset.name)")
        self.assertIn("[blocked]", names)
        self.assertIn("do_nanosleep", names)
        on = self.browser.evaluate(
            "[...document.querySelectorAll('#flame .frame')].map(e => e.dataset.name)")
        self.assertIn("compute", on)
        self.assertNotIn("[blocked]", on, "the on-CPU graph keeps CPU samples only")
        self.assertEqual(self.browser.evaluate("document.querySelectorAll('#tooltip').length"), 1)
        self.assertEqual(self.browser.evaluate(
            "document.querySelectorAll('.flamegraph').length"), 2)
        self.browser.type_into("#off-cpu-flame-search", "nanosleep")
        matched = self.browser.evaluate(
            "[...document.querySelectorAll('#off-cpu-flame .frame.match')].map(e => e.dataset.name)")
        self.assertIn("do_nanosleep", matched)
        self.assertEqual(self.browser.evaluate(
            "document.querySelectorAll('#flame .frame.match').length"), 0,
            "searching one graph leaves the other as it was")
        self.screenshot("off-cpu.png")

    def test_i_per_call_and_env_csv_read_by_pythons_csv(self):
        # The CSVs other tools read, through Python's own csv module.
        pa, pb = os.path.join(self.dir, "pc-base.kprof"), os.path.join(self.dir, "pc-slow.kprof")
        out = os.path.join(self.dir, "per-call.csv")
        kprof("diff", "--per-call", pa, pb, "--label", "generic", "--label", "rt", "--csv", out)
        with open(out, newline="") as f:
            rows = list(csv.DictReader(f))
        chdir = [r for r in rows if r["system_call"] == "chdir" and r["function"] == ""]
        self.assertEqual(len(chdir), 1, rows)
        self.assertEqual(chdir[0]["verdict"], "changed")
        self.assertAlmostEqual(float(chdir[0]["delta"]), 300, places=3)
        self.assertEqual(chdir[0]["unit"], "ns")
        spin = [r for r in rows if r["system_call"] == "chdir" and r["function"] == "rt_spin_unlock"]
        self.assertEqual(spin[0]["verdict"], "changed")
        env = os.path.join(self.dir, "env.csv")
        kprof("diff", os.path.join(ARGS.source, "samples/generic.kprof"),
              os.path.join(ARGS.source, "samples/rt.kprof"), "--label", "generic", "--label", "rt",
              "--env-csv", env)
        with open(env, newline="") as f:
            erows = list(csv.DictReader(f))
        self.assertEqual(list(erows[0].keys()), ["kind", "name", "generic", "rt", "cost"])
        rt = [r for r in erows if r["kind"] == "option" and r["name"] == "PREEMPT_RT"]
        self.assertEqual((rt[0]["generic"], rt[0]["rt"]), ("-", "y"))
        self.assertIn("rt_mutex", rt[0]["cost"])

    # ------------------------------------------------------------ (h)

    def test_h_three_kernels_environment_a_column_each(self):
        # Issue 24: the environment diff of an N-way diff has a column per side.
        self.open("h")
        heads = self.browser.evaluate(
            "[...document.querySelectorAll('#env-config thead th')].map(e => e.textContent)")
        self.assertEqual(heads[0], "option")
        self.assertEqual(heads[-1], "what it costs")
        self.assertEqual(len(heads), 3 + 2, heads)
        for label in ("generic", "rt", "here"):
            self.assertTrue(any(label in h for h in heads), (label, heads))
        rt = self.browser.evaluate(
            "[...document.querySelectorAll('#env-config tbody tr')].map(r => "
            "[...r.children].map(c => c.textContent)).find(r => r[0] === 'PREEMPT_RT')")
        self.assertIsNotNone(rt, "PREEMPT_RT differs among the three")
        self.assertEqual(rt[1:3], ["-", "y"])
        self.assertEqual(len(rt), 5)
        facts = self.browser.evaluate(
            "document.querySelectorAll('#env-facts thead th').length")
        self.assertEqual(facts, 5)

    # ------------------------------------------------------------ (g)

    def test_g_a_few_deep_stacks_do_not_stretch_the_flame_graph(self):
        # Issue 23, item 2: drawn to the depth 99.9% of the samples reach.
        self.data = self.open("g")
        nodes = self.data["flame"]["nodes"]
        self.assertGreater(len(nodes), 150, "the deep chain is in the data")
        height = self.browser.evaluate("document.querySelector('#flame').getBoundingClientRect().height")
        self.assertLessEqual(height, 6 * 18, "root, process, main, work, leaf: 5 rows")
        names = {f["name"] for f in self.frames()}
        self.assertIn("leaf_a", names)
        self.assertNotIn("deep_75", names)
        caption = self.browser.evaluate("document.querySelector('#flame-caption').textContent")
        self.assertRegex(caption, r"\d+ deeper than \d+ levels not drawn \(0\.09% of the samples")
        # Zooming into the deep chain's entry draws it all.
        entry = self.frame_of("deep_entry", "main")  # about 1 px wide: clicked by the DOM
        self.browser.evaluate(
            f"document.querySelector('#flame .frame[data-node=\"{entry['node']}\"]').click()")
        self.assertEqual(self.browser.evaluate("document.querySelector('#flame').dataset.zoom"),
                         str(entry["node"]))
        names = {f["name"] for f in self.frames()}
        self.assertIn("deep_1", names)
        self.assertIn("deep_150", names)
        self.assertEqual(self.browser.errors(), [])


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--kprof", required=True)
    p.add_argument("--programs", required=True)
    p.add_argument("--deep-stacks", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--per-call-profiles", required=True)
    ARGS, rest = p.parse_known_args()
    if not os.access("/usr/bin/chromium", os.X_OK):
        print("SKIP: /usr/bin/chromium is not installed (scripts/install-deps.sh installs it)")
        sys.exit(77)
    os.makedirs(ARGS.out, exist_ok=True)
    unittest.main(argv=[sys.argv[0], "-v", *rest])


if __name__ == "__main__":
    main()
