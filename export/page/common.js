/* kprof page: data, helpers, number formats and the page frame. The DOM is
   built with createElement and textContent only: names such as operator<<, a&b
   or a closing script tag are data and render as text, never as markup. The
   page's scripts are one function: export/CMakeLists.txt joins common.js,
   header.js, chart.js, tables.js, flame.js and main.js, in that order, inside
   (function () { 'use strict'; ... })(), so they share one scope and the
   sections appear in that order. */

  // ---------------------------------------------------------------- data and helpers

  const D = JSON.parse(document.getElementById('kprof-data').textContent);
  const S = D.strings || [];
  const SIDES = D.sides || [];
  const NS = SIDES.length;
  const DIFF = D.kind === 'diff';
  const ROWS = D.rows || [];
  const TABLE_LIMIT = 1000;
  const SVGNS = 'http://www.w3.org/2000/svg';

  const str = (i) => (i == null || S[i] == null ? '' : String(S[i]));
  const label = (k) => (SIDES[k] && SIDES[k].label) || 'side ' + k;

  function basename(path) {
    const p = path.replace(/\/+$/, '');
    return p.slice(p.lastIndexOf('/') + 1) || p;
  }

  // "[unknown]" reads as the image it was sampled in: "[libc.so.6]".
  function displayName(n, i) {
    const name = str(n);
    if (name !== '[unknown]') return name;
    const img = str(i);
    if (!img) return name;
    const b = basename(img);
    return b.startsWith('[') && b.endsWith(']') ? b : '[' + b + ']';
  }

  // el('td', {className: 'num', title: 't', dataset: {k: 'v'}}, 'text', child, ...)
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    if (attrs) setAttrs(e, attrs);
    for (const k of kids) if (k != null) e.append(k);
    return e;
  }
  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVGNS, tag);
    if (attrs) setAttrs(e, attrs);
    if (text != null) e.textContent = text;
    return e;
  }
  function setAttrs(e, attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v == null) continue;
      if (k === 'className') e.setAttribute('class', v);
      else if (k === 'text') e.textContent = v;
      else if (k === 'dataset') for (const [dk, dv] of Object.entries(v)) e.dataset[dk] = dv;
      else e.setAttribute(k, v);
    }
  }
  const td = (text, cls, title) => el('td', {className: cls, title}, text);

  // ---------------------------------------------------------------- number formats

  function fixed(v, d) {
    if (v == null || !isFinite(v)) return '–';
    const s = v.toFixed(d);
    return /^-[0.]*$/.test(s) ? s.slice(1) : s;   // "-0.0000" is no change
  }
  function signed(v, d = 4) {
    if (v == null || !isFinite(v)) return '–';
    const s = fixed(v, d);
    return s[0] === '-' ? s : '+' + s;
  }
  const share = (v) => fixed(v, 4);
  const interval = (lo, hi) =>
    '[' + (lo == null ? '−∞' : signed(lo)) + ', ' + (hi == null ? '+∞' : signed(hi)) + ']';
  const ratio = (c) => (!c ? '–' : c.sd ? c.sd : fixed(c.r, 3));
  function qval(q) {
    if (q == null) return '–';
    return q !== 0 && q < 0.001 ? q.toExponential(1) : fixed(q, 3);
  }
  const count = (n) => (n == null ? '–' : String(n));   // plain, as kprof's text output
  function sig(v) {                                  // events per work: 4 significant digits
    if (v == null) return '–';
    const a = Math.abs(v);
    return a >= 1e5 || (a > 0 && a < 1e-3) ? v.toExponential(3) : String(+v.toPrecision(4));
  }
  const level = 100 * (1 - (D.alpha == null ? 0.05 : D.alpha));
  const LEVEL = (+level.toFixed(4)) + '%';
  // The level of side k's intervals: false coverage-rate adjusted, so an
  // interval excludes 0 exactly when its row is changed.
  const levelFor = (k) => (SIDES[k] && SIDES[k].ci_level != null ? (+SIDES[k].ci_level.toFixed(2)) + '%' : LEVEL);

  // A comparison's colour: one-sided, red (grew), blue (shrank) or grey.
  function colorOf(c) {
    if (!c) return 'grey';
    if (c.sd === '+++' || c.sd === '---') return 'one-sided';
    if (c.v === 'changed') return c.d > 0 ? 'red' : 'blue';
    return 'grey';
  }
  // Intensity of a red or blue frame, 1..4, from |Δpp|.
  function levelOf(c) {
    const a = Math.abs((c && c.d) || 0);
    return a < 0.1 ? 1 : a < 0.5 ? 2 : a < 2 ? 3 : 4;
  }
  // A changed row's Δ: red (grew) or blue (shrank) text, one-sided or not.
  const changeClass = (c) => (c && c.v === 'changed' && c.d ? (c.d > 0 ? ' grew' : ' shrank') : '');
  const verdictClass = (v) => 'verdict v-' + String(v || 'none').replace(/\s+/g, '-');

  // ---------------------------------------------------------------- page frame

  const app = document.getElementById('app');
  // The title names the files as well as the labels (kernel releases unless
  // --label): "kprof diff: 6.1 (generic.kprof) vs 6.1-rt (rt.kprof)".
  const titled = (k) => {
    const files = (SIDES[k] && SIDES[k].files) || [];
    if (!files.length || label(k).startsWith(files[0])) return label(k);
    return label(k) + ' (' + files[0] + (files.length > 1 ? ' +' + (files.length - 1) : '') + ')';
  };
  const title = DIFF
    ? 'kprof diff: ' + titled(0) + ' vs ' + SIDES.slice(1).map((s, k) => titled(k + 1)).join(', ')
    : 'kprof report: ' + titled(0);
  document.title = title;
  app.append(el('h1', null, title));
  const nav = el('nav', {className: 'sections'});
  app.append(nav);
  const meta = [];
  if (D.by) meta.push('by ' + D.by);
  if (D.view) meta.push('view: ' + D.view);
  if (D.share) meta.push('shares: ' + D.share);
  if (DIFF) {
    meta.push('false coverage-rate intervals (' + SIDES.slice(1).map((sd, k) => levelFor(k + 1)).join(', ') +
      '), Benjamini–Hochberg FDR ' + (+(100 * D.alpha).toFixed(4)) + '%');
  }
  app.append(el('div', {className: 'meta-line'}, meta.join(' · ')));

  function section(id, heading, navText) {
    const s = el('section', {id}, el('h2', null, heading));
    app.append(s);
    if (navText) nav.append(el('a', {href: '#' + id}, navText));
    return s;
  }
