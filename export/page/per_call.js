/* kprof page: cost per system call (kprof diff --per-call), when every
   profile was recorded with -g --syscalls. Part of the page's one script:
   see common.js. */

  // ---------------------------------------------------------------- cost per system call

  if (DIFF && D.per_call && D.per_call.calls) {
    const P = D.per_call;
    const s = section('sec-per-call', 'Cost per system call', 'per call');
    const unit = P.unit;
    // As the text: sampled somewhere, made at least 100 times on every side.
    const sampled = P.calls.filter((c) => c.sides.some((x) => x && x.verdict !== 'untested') &&
      Math.min(...c.calls) >= 100);
    const shown = sampled.slice(0, 8);
    s.append(el('p', {className: 'note'}, unit + ' per call under each call\'s kernel entry; ' +
      'entry/exit: the system-call path outside any entry, per call of every kind. ' +
      (sampled.length < P.calls.length ? (P.calls.length - sampled.length) +
        ' calls made on every side were never sampled inside or made under 100 times on some side.' : '')));
    const head = el('tr', null, el('th', null, 'kernel'));
    for (const c of shown) head.append(el('th', {className: 'num'}, c.name + '()'));
    head.append(el('th', {className: 'num'}, 'entry/exit'));
    const body = el('tbody');
    P.labels.forEach((lab, k) => {
      const tr = el('tr', null, td(lab, 'name'));
      for (const c of shown) tr.append(td(fixed(c.cost[k], 0), 'num'));
      tr.append(td(fixed(P.entry_exit[k], 0), 'num'));
      body.append(tr);
    });
    s.append(el('div', {className: 'table-wrap'},
      el('table', {id: 'per-call-table', className: 'data'}, el('thead', null, head), body)));

    s.append(el('p', {className: 'note'}, 'Change per call against ' + P.labels[0] + ' (' +
      (P.noise === 'run-variance' ? 'run-to-run variance' : 'sampling statistics: one run a side') +
      '; ' + (+(100 * P.interval_level).toFixed(2)) + '% false-coverage intervals, Benjamini–Hochberg at FDR ' +
      (+(100 * P.alpha).toFixed(2)) + '%).'));
    const ch = el('tbody');
    const signedUnit = (v) => (v == null ? '–' : signed(v, 1));
    for (const c of sampled) {
      for (let k = 1; k < P.labels.length; ++k) {
        const x = c.sides[k];
        const tr = el('tr', {dataset: {call: c.name, side: P.labels[k], verdict: x.verdict}},
          td(c.name, 'name'), td(P.labels[k]), td(fixed(x.base, 1), 'num'), td(fixed(x.cost, 1), 'num'),
          td(signedUnit(x.delta), 'num' + (x.verdict === 'changed' ? (x.delta > 0 ? ' grew' : ' shrank') : '')),
          td(x.ci_lo == null ? '–' : '[' + signedUnit(x.ci_lo) + ', ' + signedUnit(x.ci_hi) + ']', 'num'),
          td(x.verdict, verdictClass(x.verdict)));
        ch.append(tr);
      }
    }
    const chHead = el('tr', null, ...['system call', 'side', P.labels[0] + ' ' + unit, 'new ' + unit,
      'Δ ' + unit, 'interval', 'verdict'].map((t) => el('th', null, t)));
    s.append(el('div', {className: 'table-wrap'},
      el('table', {id: 'per-call-changes', className: 'data'}, el('thead', null, chHead), ch)));

    // Per changed call: a bar per function under it, its Δ per call.
    for (const c of P.calls) {
      for (let k = 1; k < P.labels.length; ++k) {
        const x = c.sides[k];
        if (!x || x.verdict !== 'changed') continue;
        const fns = (x.functions || []).slice(0, 10);
        const max = Math.max(1e-9, ...fns.map((f) => Math.abs(f.delta)));
        const box = el('div', {className: 'per-call-split', dataset: {call: c.name, side: P.labels[k]}});
        box.append(el('h3', null, c.name + '() on ' + P.labels[k] + ' ' + signed(x.delta, 1) + ' ' + unit +
          ' per call — accounted for: ' + fixed(x.accounted_pct, 0) + '% by the functions marked changed'));
        for (const f of fns) {
          const bar = el('span', {className: 'bar ' + (f.verdict === 'changed' ? (f.delta > 0 ? 'grew' : 'shrank') : 'noise')});
          bar.style.width = (100 * Math.abs(f.delta) / max).toFixed(1) + '%';
          box.append(el('div', {className: 'split-row', dataset: {function: f.function, verdict: f.verdict}},
            el('span', {className: 'split-name'}, f.function),
            el('span', {className: 'split-bar'}, bar),
            el('span', {className: 'num'}, signed(f.delta, 1) + ' ' + unit + ' (' + f.verdict + ')')));
        }
        s.append(box);
      }
    }
  }
