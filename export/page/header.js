/* kprof page: the warnings, the facts per side and the run summary. Part of
   the page's one script: see common.js. */

  // ---------------------------------------------------------------- warnings

  if (D.warnings && D.warnings.length) {
    const ul = el('ul', {id: 'warnings'});
    for (const w of D.warnings) ul.append(el('li', null, w));
    const s = el('section', {className: 'warnings', role: 'alert'},
      el('h2', null, D.warnings.length === 1 ? 'Warning' : D.warnings.length + ' warnings'), ul);
    app.insertBefore(s, nav.nextSibling);
  }

  // ---------------------------------------------------------------- header: facts per side

  {
    const s = section('sec-header', DIFF ? 'Profiles' : 'Profile', 'profiles');
    const box = el('div', {id: 'header'});
    SIDES.forEach((side, k) => {
      const dl = el('dl');
      // One run: its duration. Several: each (up to 6), else their sum and range.
      const durationText = (sd) => {
        const ds = sd.durations_s || [sd.duration_s];
        if (ds.length <= 1) return ds[0] == null ? '–' : fixed(ds[0], 3) + ' s';
        if (ds.some((d) => d == null)) return '– (not known for every run)';
        if (ds.length <= 6) return ds.map((d) => fixed(d, 1)).join(' / ') + ' s';
        const sum = ds.reduce((a, b) => a + b, 0);
        return fixed(sum, 1) + ' s in ' + ds.length + ' runs (' + fixed(Math.min(...ds), 1) + '–' +
          fixed(Math.max(...ds), 1) + ' s each)';
      };
      const fact = (name, value, cls) => {
        if (value == null || value === '') return;
        dl.append(el('dt', null, name), el('dd', {className: cls}, String(value)));
      };
      fact('kernel', side.kernel);
      let ev = side.event || '';
      if (side.requested && side.requested !== '(default)' && side.requested !== side.event) {
        ev += ' (requested ' + side.requested + ')';
      }
      fact('event', ev);
      fact('fallback', side.fallback, 'fallback');
      fact('rate', side.rate);
      fact('samples', count(side.samples), 'num-inline');
      fact('lost', count(side.lost));
      fact('duration', durationText(side));
      if (side.runs != null && side.runs !== 1) fact('runs', side.runs);
      fact('command', side.command, 'mono');
      fact('source', side.source_format);
      const role = !DIFF ? null : k === 0 ? 'base' : 'vs base' + (side.noise ? ' · noise: ' + side.noise : '');
      const card = el('div', {className: 'side-card', dataset: {side: k}},
        el('h3', null, side.label || '', role ? el('span', {className: 'role'}, role) : null), dl);
      if (side.noise_text) card.append(el('div', {className: 'noise-text'}, side.noise_text));
      box.append(card);
    });
    s.append(box);
  }

  // ---------------------------------------------------------------- environment (diff)

  // What differs besides the workload: the facts that differ and every
  // kernel option that differs (the text diff shows the curated ones only).
  if (DIFF && D.environment) {
    const E = D.environment;
    const s = section('sec-env', 'What differs besides the workload', 'environment');
    const recorded = (E.recorded || []).filter(Boolean).length;
    const note = (text) => s.append(el('p', {className: 'note'}, text));
    const table = (id, first, rows, lastTitle) => {
      const head = el('tr', null, el('th', null, first));
      for (let k = 0; k < SIDES.length; ++k) head.append(el('th', null, label(k)));
      head.append(el('th', null, lastTitle));
      const body = el('tbody');
      for (const r of rows) {
        const tr = el('tr', null, td(r[0], 'name'));
        for (const v of r[1]) tr.append(td(v));
        tr.append(td(r[2] || ''));
        body.append(tr);
      }
      s.append(el('div', {className: 'table-wrap'},
        el('table', {id, className: 'data'}, el('thead', null, head), body)));
    };
    if (recorded < 2) {
      note('Not known: ' + (recorded ? 'only one profile' : 'no profile') +
        ' recorded its environment (kprof record keeps it; older files and imports lack it).');
    } else if (E.same) {
      note('Nothing: same environment (' + count(E.same_facts) + ' facts and ' +
        count(E.config_options) + ' kernel options alike).');
    } else {
      const facts = E.facts || [], config = E.config || [];
      note(count(facts.length) + ' facts differ, ' + count(E.same_facts - (E.unknown_facts || 0)) +
        ' alike' + (E.unknown_facts ? ', ' + count(E.unknown_facts) + ' known on one side only' : '') + '.');
      if (facts.length) table('env-facts', 'fact', facts.map((f) => [f.key, f.values, f.cost]), 'what it moves');
      const withConfig = (E.config_recorded || []).filter(Boolean).length;
      if (withConfig < 2) {
        note('Kernel configuration: not compared (' + withConfig + ' of ' + SIDES.length + ' profiles recorded one).');
      } else {
        const curated = config.filter((c) => c.cost).length;
        note('Kernel configuration: ' + count(config.length) + ' of ' + count(E.config_options) +
          ' options differ (' + curated + ' known to move costs, first); y: built in, m: module, -: not set, ?: not recorded.');
        if (config.length) table('env-config', 'option', config.map((c) => [c.option, c.values, c.cost]), 'what it costs');
      }
    }
  }

  // ---------------------------------------------------------------- run summary (diff)

  if (DIFF && D.summary && D.summary.rows && D.summary.rows.length) {
    const s = section('sec-summary', 'Run summary', 'summary');
    const sr = D.summary.rows;
    const speedTitle = 'speedup' + (D.summary.speedup_source ? ' (' + D.summary.speedup_source + ')' : '');
    const cols = [
      ['runs', 'runs', (r) => count(r.runs), true],
      ['speedup', speedTitle, (r) => r.speedup == null ? '–'
        : fixed(r.speedup, 3) + (r.speedup_sd != null ? ' ± ' + fixed(r.speedup_sd, 3) : ''), true],
      ['score', 'score', (r) => fixed(r.score, 3)],
      ['real_s', 'real s', (r) => fixed(r.real_s, 3)],
      ['interrupts_per_s', 'interrupts/s', (r) => fixed(r.interrupts_per_s, 0)],
      ['ctxsw_per_s', 'ctx switches/s', (r) => fixed(r.ctxsw_per_s, 0)],
      ['user_pct', 'user %', (r) => fixed(r.user_pct, 1)],
      ['sys_pct', 'sys %', (r) => fixed(r.sys_pct, 1)],
      ['idle_pct', 'idle %', (r) => fixed(r.idle_pct, 1)],
      ['iowait_pct', 'iowait %', (r) => fixed(r.iowait_pct, 1)],
      ['samples', 'samples', (r) => count(r.samples), true],
      ['lost', 'lost', (r) => count(r.lost), true],
    ].filter((c) => c[3] || sr.some((r) => r[c[0]] != null));   // drop columns all unknown
    const head = el('tr', null, el('th', null, 'side'));
    for (const c of cols) head.append(el('th', {className: 'num', dataset: {key: c[0]}}, c[1]));
    const body = el('tbody');
    for (const r of sr) {
      const tr = el('tr', null, td(r.label, 'name'));
      for (const c of cols) tr.append(td(c[2](r), 'num'));
      body.append(tr);
    }
    s.append(el('div', {className: 'table-wrap'},
      el('table', {id: 'summary', className: 'data'}, el('thead', null, head), body)));
  }
