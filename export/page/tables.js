/* kprof page: the sortable, filterable tables: the matched diff, side by side,
   merged names, events per work, and the report's table. Part of the page's
   one script: see common.js. */

  // ---------------------------------------------------------------- sortable, filterable table

  // cols: [{key, title, sub, num, help, value(item) -> number|string|null, cell(item) -> td}]
  // First click on a column sorts numbers largest first and text in code
  // point order (as C's strcmp); a second click reverses. Unknown values sort
  // last either way.
  function dataTable(id, cols, items, rowOf) {
    const state = {key: null, dir: 1, all: false, filter: '', shown: items};
    const table = el('table', {id, className: 'data'});
    const headRow = el('tr');
    for (const c of cols) {
      const th = el('th', {className: c.num ? 'num' : null, title: c.help, dataset: {key: c.key}}, c.title,
        c.sub ? el('span', {className: 'sub'}, c.sub) : null);
      th.addEventListener('click', () => {
        if (state.key === c.key) state.dir = -state.dir;
        else { state.key = c.key; state.dir = c.num ? -1 : 1; }
        for (const h of headRow.children) { h.removeAttribute('data-sort'); h.removeAttribute('aria-sort'); }
        th.dataset.sort = state.dir > 0 ? 'asc' : 'desc';
        th.setAttribute('aria-sort', state.dir > 0 ? 'ascending' : 'descending');
        refresh();
      });
      headRow.append(th);
    }
    const body = el('tbody');
    table.append(el('thead', null, headRow), body);
    const countEl = el('span', {className: 'count', id: id + '-count'});
    const more = el('button', {type: 'button', className: 'show-all', id: id + '-more', hidden: ''});
    more.addEventListener('click', () => { state.all = true; refresh(); });

    function refresh() {
      const q = state.filter;
      let list = q ? items.filter((it) => it.hay.includes(q)) : items.slice();
      if (state.key) {
        const col = cols.find((c) => c.key === state.key);
        const val = new Map(list.map((it) => [it, col.value(it)]));
        const dir = state.dir;
        list.sort((a, b) => {
          const va = val.get(a), vb = val.get(b);
          const na = va == null || va !== va, nb = vb == null || vb !== vb;
          if (na || nb) return na === nb ? a.idx - b.idx : na ? 1 : -1;
          if (va < vb) return -dir;
          if (va > vb) return dir;
          return a.idx - b.idx;
        });
      }
      state.shown = list;
      const n = state.all ? list.length : Math.min(list.length, TABLE_LIMIT);
      const frag = document.createDocumentFragment();
      for (let j = 0; j < n; ++j) {
        const it = list[j];
        if (!it.tr) it.tr = rowOf(it);
        frag.append(it.tr);
      }
      body.replaceChildren(frag);
      if (n < list.length) {
        more.hidden = false;
        more.textContent = 'show all ' + count(list.length) + ' rows';
      } else {
        more.hidden = true;
      }
      countEl.textContent = (n < list.length ? 'showing ' + count(n) + ' of ' : '') + count(list.length) +
        (q ? ' matching' : '') + ' row' + (list.length === 1 ? '' : 's') +
        (q ? ' (' + count(items.length) + ' in all)' : '');
    }
    refresh();
    return {
      table, more, count: countEl,
      setFilter(text) { state.filter = text.trim().toLowerCase(); refresh(); },
    };
  }

  function filterBox(onInput) {
    const input = el('input', {type: 'text', id: 'filter', placeholder: 'filter by function or image',
      'aria-label': 'filter rows by function or image', autocomplete: 'off', spellcheck: 'false'});
    input.addEventListener('input', () => onInput(input.value));
    return input;
  }
  // what a filter matches: the function (canonical or shown name) or the image
  const hayOf = (names, image) => (names.join('\n') + '\n' + image).toLowerCase();

  // ---------------------------------------------------------------- matched diff table (diff)

  if (DIFF) {
    const s = section('sec-diff', 'Matched diff against ' + label(0) + ' (every row; largest |Δpp| first)', 'diff table');
    const items = ROWS.map((r, idx) => ({
      r, idx, name: displayName(r.n, r.i), image: str(r.i),
      hay: hayOf([str(r.n), displayName(r.n, r.i)], str(r.i)),
    }));
    const cmp = (it, k) => it.r.cmp[k] || null;
    const vrank = {'changed': 0, 'noise': 1, 'no verdict': 2};
    const byFunction = D.by === 'function' || !D.by;
    const cols = [];
    for (let k = 0; k < NS; ++k) {
      cols.push({key: 'pct' + k, title: D.share || 'share', sub: label(k), num: true,
        help: (D.share || 'share') + ' of ' + label(k) + ' (%)', value: (it) => it.r.pct[k],
        cell: (it) => td(share(it.r.pct[k]), 'num', it.r.s ? count(it.r.s[k]) + ' samples' : null)});
      if (k === 0) continue;
      const sub = NS > 2 ? label(k) : null;
      cols.push({key: 'd' + k, title: 'Δpp', sub, num: true,
        help: 'change of the share in percentage points, ' + label(k) + ' − ' + label(0),
        value: (it) => (cmp(it, k) ? cmp(it, k).d : null),
        cell: (it) => {
          const c = cmp(it, k);
          return td(c ? signed(c.d) : '–', 'num' + changeClass(c));
        }});
      cols.push({key: 'ci' + k, title: levelFor(k) + ' interval', sub, num: true,
        help: 'interval on Δpp (sorts by its lower end)',
        value: (it) => { const c = cmp(it, k); return !c ? null : c.lo == null ? -Infinity : c.lo; },
        cell: (it) => { const c = cmp(it, k); return td(c ? interval(c.lo, c.hi) : '–', 'num'); }});
      cols.push({key: 'r' + k, title: 'ratio', sub, num: true,
        help: 'share ratio ' + label(k) + ' / ' + label(0) + '; +++ only in ' + label(k) + ', --- only in base',
        value: (it) => {
          const c = cmp(it, k);
          return !c ? null : c.sd === '+++' ? Infinity : c.sd === '---' ? 0 : c.r;
        },
        cell: (it) => { const c = cmp(it, k); return td(ratio(c), 'num' + (c && c.sd ? ' one-sided' : '')); }});
      cols.push({key: 'v' + k, title: 'verdict', sub,
        help: 'changed: interval excludes 0 after FDR control; noise: within noise',
        value: (it) => {
          const c = cmp(it, k);
          return c ? (vrank[c.v] != null ? vrank[c.v] : 3) * 1e6 - Math.abs(c.d || 0) : null;
        },
        cell: (it) => {
          const c = cmp(it, k);
          const cell = td(c ? c.v : '–', c ? verdictClass(c.v) : null);
          if (c) cell.title = 'q = ' + qval(c.q) + (c.p != null ? ', p = ' + qval(c.p) : '');
          if (c && it.r.k) {  // cpu-clock skid: the change may be a move of interrupt-disabled time
            cell.append(' ', el('span', {className: 'irq-skid',
              title: 'at an interrupt-enable point: cpu-clock charges interrupt-disabled time here'}, 'irq-skid'));
          }
          if (c && it.r.o != null) {  // the function is a differing config option's own code
            const option = 'CONFIG_' + str(it.r.o);
            cell.append(' ', el('span', {className: 'config-option', title: 'this function is ' +
              option + "'s own code, and that option differs between the sides (environment)"}, option));
          }
          return cell;
        }});
      if (D.has_work) {
        cols.push({key: 'w' + k, title: 'Δwork %', sub, num: true,
          help: 'change of events per unit of work, %', value: (it) => (cmp(it, k) ? cmp(it, k).w : null),
          cell: (it) => { const c = cmp(it, k); return td(c && c.w != null ? signed(c.w, 2) + '%' : '–', 'num'); }});
      }
    }
    if (byFunction) {
      cols.push({key: 'name', title: 'function', value: (it) => str(it.r.n),
        cell: (it) => td(it.name, 'name', rawTitle(it.r))});
    }
    cols.push({key: byFunction ? 'image' : 'name', title: byFunction ? 'image' : D.by,
      value: (it) => (byFunction ? it.image : str(it.r.n)),
      cell: (it) => (byFunction ? td(it.image, 'image', it.image) : td(it.name, 'name', rawTitle(it.r)))});

    const rowOf = (it) => {
      const r = it.r;
      const tr = el('tr', {dataset: {name: str(r.n), image: it.image, verdict: (r.cmp[1] && r.cmp[1].v) || ''}});
      let allNoise = true;
      for (let k = 1; k < NS; ++k) {
        const v = (r.cmp[k] && r.cmp[k].v) || '';
        tr.dataset['verdict-' + k] = v;   // data-verdict-K
        if (v === 'changed') allNoise = false;
      }
      if (allNoise) tr.className = 'all-noise';
      for (const c of cols) tr.append(c.cell(it));
      return tr;
    };
    const t = dataTable('diff-table', cols, items, rowOf);
    s.append(el('div', {className: 'toolbar'}, filterBox((q) => t.setFilter(q)), t.count),
      el('div', {className: 'table-wrap'}, t.table), t.more);
  }
  function rawTitle(r) {
    const raw = (r.raw || []).map(str).filter((x) => x !== str(r.n));
    return str(r.n) + (raw.length ? '\nmerged: ' + raw.join(', ') : '');
  }

  // ---------------------------------------------------------------- side by side top-N (diff)

  if (DIFF) {
    const n = D.top > 0 ? D.top : 0;
    const s = section('sec-top', (n ? 'Top ' + n : 'All rows') + ' per side', 'top-N');
    const box = el('div', {id: 'side-by-side'});
    const tops = SIDES.map((side, k) =>
      ROWS.map((r, idx) => ({r, idx})).filter((x) => x.r.s ? x.r.s[k] > 0 : x.r.pct[k] > 0)
        .sort((a, b) => b.r.pct[k] - a.r.pct[k] || a.idx - b.idx).slice(0, n || undefined));
    const inTop = tops.map((list) => new Set(list.map((x) => x.r)));
    tops.forEach((list, k) => {
      const body = el('tbody');
      list.forEach((x, j) => {
        const only = inTop.every((set, kk) => kk === k || !set.has(x.r));
        body.append(el('tr', {className: only && NS > 1 ? 'only-here' : null,
          dataset: {name: str(x.r.n), image: str(x.r.i)}},
        td(String(j + 1), 'num'), td(share(x.r.pct[k]), 'num'),
        td(displayName(x.r.n, x.r.i), 'name', displayName(x.r.n, x.r.i) + (str(x.r.i) ? '\n' + str(x.r.i) : ''))));
      });
      const table = el('table', {className: 'data', dataset: {side: k}},
        el('colgroup', null, el('col', {className: 'rank'}), el('col', {className: 'share'}), el('col')),
        el('thead', null, el('tr', null, el('th', {className: 'num'}, '#'),
          el('th', {className: 'num'}, D.share || 'share'), el('th', null, 'function'))), body);
      box.append(el('div', {className: 'top-side'}, el('h3', null, label(k) + (k === 0 ? ' (base)' : '')), table));
    });
    s.append(el('p', {className: 'note'}, 'Names in the top of one side only are marked in amber.'), box);
  }

  // ---------------------------------------------------------------- merged clone names (diff)

  if (DIFF) {
    const s = section('sec-merged', 'Merged names', 'merged');
    const box = el('div', {id: 'merged'});
    const merged = ROWS.filter((r) => (r.raw || []).some((x) => str(x) !== str(r.n)));
    if (!merged.length) {
      box.append(el('p', {className: 'note'}, 'No raw names were merged into another row.'));
    } else {
      const body = el('tbody');
      for (const r of merged) {
        const raws = el('td', {className: 'raw-names'});
        for (const x of r.raw) raws.append(el('code', null, str(x)), ' ');
        body.append(el('tr', {dataset: {name: str(r.n), image: str(r.i)}},
          td(displayName(r.n, r.i), 'name'), td(str(r.i), 'image', str(r.i)), raws));
      }
      box.append(el('p', {className: 'note'}, (merged.length === 1 ? '1 row merges' : merged.length + ' rows merge') +
        ' clones (.cold, .isra, .constprop …) or renamed symbols into one canonical name.'),
      el('table', {className: 'data'}, el('thead', null, el('tr', null, el('th', null, 'function'),
        el('th', null, 'image'), el('th', null, 'raw names merged'))), body));
    }
    s.append(box);
  }

  // ---------------------------------------------------------------- events per unit of work (diff)

  if (DIFF && D.has_work) {
    const s = section('sec-work', 'Events per unit of work', 'work');
    // changed rows first (any side), then by the largest |change|
    const changedW = (r) => r.cmp.slice(1).some((c) => c && c.wv === 'changed');
    const maxW = (r) => Math.max(0, ...r.cmp.slice(1).map((c) => Math.abs((c && c.w) || 0)));
    const list = ROWS.filter((r) => r.epw)
      .sort((a, b) => (changedW(b) - changedW(a)) || (maxW(b) - maxW(a))).slice(0, 50);
    const head = el('tr', null, el('th', null, 'function'));
    for (let k = 0; k < NS; ++k) head.append(el('th', {className: 'num'}, 'events/work', el('span', {className: 'sub'}, label(k))));
    for (let k = 1; k < NS; ++k) {
      head.append(el('th', {className: 'num'}, 'change', el('span', {className: 'sub'}, label(k))),
        el('th', {className: 'num'}, 'interval', el('span', {className: 'sub'}, label(k))),
        el('th', null, 'verdict', el('span', {className: 'sub'}, label(k))));
    }
    const pctOrInf = (v, neg) => (v == null ? (neg ? '−∞' : '+∞') : signed(v, 1) + '%');
    const body = el('tbody');
    for (const r of list) {
      const tr = el('tr', {dataset: {name: str(r.n), image: str(r.i)}}, td(displayName(r.n, r.i), 'name'));
      for (let k = 0; k < NS; ++k) tr.append(td(sig(r.epw[k]), 'num'));
      let anyChanged = false;
      for (let k = 1; k < NS; ++k) {
        const c = r.cmp[k];
        const w = c && c.w;
        const grew = c && c.wv === 'changed' ? (w > 0 ? ' grew' : ' shrank') : '';
        anyChanged = anyChanged || grew !== '';
        tr.append(td(w == null ? '–' : signed(w, 2) + '%', 'num' + grew),
          td(c && c.wv ? '[' + pctOrInf(c.wlo, true) + ', ' + pctOrInf(c.whi, false) + ']' : '', 'num'),
          td(c && c.wv ? c.wv : '', verdictClass(c && c.wv)));
      }
      if (!anyChanged) tr.classList.add('all-noise');
      body.append(tr);
    }
    s.append(el('p', {className: 'note'}, 'The ' + list.length + ' rows with a change of events per unit of work, ' +
      'changed first; every row has it in the Δwork % column of the diff table. Intervals at the false ' +
      'coverage-rate level, verdicts after Benjamini–Hochberg, as for shares.'),
    el('div', {className: 'table-wrap'}, el('table', {id: 'work', className: 'data'}, el('thead', null, head), body)));
  }

  // ---------------------------------------------------------------- report table (report)

  if (!DIFF) {
    const s = section('sec-report', 'Functions (every row; most samples first)', 'table');
    const items = ROWS.map((r, idx) => ({
      r, idx, name: displayName(r.n, r.i), image: str(r.i),
      hay: hayOf([str(r.n), displayName(r.n, r.i)], str(r.i)),
    }));
    const cols = [
      {key: 'pct', title: D.share || 'share', num: true, value: (it) => it.r.pct, cell: (it) => td(share(it.r.pct), 'num')},
      {key: 's', title: 'samples', num: true, value: (it) => it.r.s, cell: (it) => td(String(it.r.s), 'num')},
      {key: 'name', title: 'function', value: (it) => str(it.r.n), cell: (it) => td(it.name, 'name', str(it.r.n))},
      {key: 'image', title: 'image', value: (it) => it.image, cell: (it) => td(it.image, 'image', it.image)},
      {key: 'mode', title: 'mode', value: (it) => it.r.m || '', cell: (it) => td(it.r.m || '', null)},
    ];
    const rowOf = (it) => {
      const tr = el('tr', {dataset: {name: str(it.r.n), image: it.image, mode: it.r.m || ''}});
      for (const c of cols) tr.append(c.cell(it));
      return tr;
    };
    const t = dataTable('report-table', cols, items, rowOf);
    s.append(el('div', {className: 'toolbar'}, filterBox((q) => t.setFilter(q)), t.count),
      el('div', {className: 'table-wrap'}, t.table), t.more);
  }
