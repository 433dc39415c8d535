/* kprof page: the flame graph (differential for a diff). Part of the page's
   one script: see common.js. */

  // ---------------------------------------------------------------- flame graph

  // One section per tree: the profile's (or the diff's), and on a report page
  // of a --off-cpu recording its off-CPU time beside it (ids prefixed "off-cpu-").
  const ROW = 18;
  function makeFlame(F, pfx, title) {
    const NODES = F.nodes || [];
    const N = NODES.length;
    const TOTALS = F.totals || [];
    let drawFlame = null, flameResized = null;
    const s = section('sec-' + pfx + 'flame', title, pfx ? 'off-CPU flame graph' : 'flame graph');
    // children lists (CSR, in the given order), depths, display names: once
    const kidStart = new Int32Array(N + 1), kids = new Int32Array(Math.max(0, N - 1));
    const depth = new Int32Array(N);
    for (let k = 1; k < N; ++k) kidStart[NODES[k].p + 1]++;
    for (let k = 0; k < N; ++k) kidStart[k + 1] += kidStart[k];
    const fill = kidStart.slice(0, N);
    for (let k = 1; k < N; ++k) {
      const p = NODES[k].p;
      kids[fill[p]++] = k;
      depth[k] = depth[p] + 1;
    }
    // subtrees are contiguous (parents before children, depth first): their ends
    const subEnd = new Int32Array(N);
    for (let k = N - 1; k >= 0; --k) {
      subEnd[k] = Math.max(subEnd[k], k + 1);
      if (k > 0 && subEnd[k] > subEnd[NODES[k].p]) subEnd[NODES[k].p] = subEnd[k];
    }
    const names = NODES.map((nd) => displayName(nd.n, nd.i));
    let lower = null;   // lower-case names, on first search
    const sideCount = Math.max(1, TOTALS.length);
    const st = {side: DIFF ? Math.min(1, sideCount - 1) : 0, shape: false, zoom: 0, query: ''};
    const wside = () => (st.shape ? 0 : st.side);
    const samples = (k, side) => (NODES[k].s && NODES[k].s[side]) || 0;
    const pct = (k, side) => (TOTALS[side] ? 100 * samples(k, side) / TOTALS[side] : 0);
    // frames with samples on a side, per subtree: the "too narrow" count
    const withSamples = [];
    function subtreeCount(side) {
      if (!withSamples[side]) {
        const c = new Int32Array(N);
        for (let k = N - 1; k >= 0; --k) {
          if (samples(k, side) > 0) c[k] += 1;
          if (k > 0) c[NODES[k].p] += c[k];
        }
        withSamples[side] = c;
      }
      return withSamples[side];
    }
    // self samples per node on a side (a stack ends there)
    const selfs = [];
    function selfOf(side) {
      if (!selfs[side]) {
        const v = new Float64Array(N);
        for (let k = 0; k < N; ++k) v[k] += samples(k, side);
        for (let k = 1; k < N; ++k) v[NODES[k].p] -= samples(k, side);
        selfs[side] = v;
      }
      return selfs[side];
    }
    // The deepest level drawn under `top`: enough for 99.9% of its samples, so
    // that a few very deep stacks (a frame-pointer walk through garbage) do
    // not stretch the graph into a tall white strip; zooming in draws them.
    // Returns [depth, samples beyond it].
    const COVER = 0.999;
    function depthLimit(top, side) {
      const total = samples(top, side);
      if (total <= 0) return [Infinity, 0];
      const self = selfOf(side), base = depth[top], perLevel = [];
      for (let j = top; j < subEnd[top]; ++j) {
        const r = depth[j] - base;
        perLevel[r] = (perLevel[r] || 0) + Math.max(0, self[j]);
      }
      let cum = 0;
      for (let r = 0; r < perLevel.length; ++r) {
        cum += perLevel[r] || 0;
        if (cum >= COVER * total) return [base + r, Math.max(0, total - cum)];
      }
      return [Infinity, 0];
    }
    function colour(k) {
      const nd = NODES[k];
      if (DIFF) {
        const c = nd.cmp ? nd.cmp[st.side] : null;
        const col = colorOf(c);
        // one side only: strong when changed, pale when within noise
        if (col === 'one-sided') return [col, c.v === 'changed' ? 2 : 1];
        return [col, col === 'red' || col === 'blue' ? levelOf(c) : 0];
      }
      const col = nd.m === 'kernel' ? 'kernel' : nd.m === 'user' ? 'user' : 'other';
      let h = 0;                                     // a stable shade per name
      const name = str(nd.n);
      for (let j = 0; j < name.length; ++j) h = (h * 31 + name.charCodeAt(j)) | 0;
      return [col, 1 + ((h >>> 0) % 3)];
    }

    // controls
    const search = el('input', {type: 'search', id: pfx + 'flame-search', placeholder: 'search names',
      'aria-label': 'search frames by name', autocomplete: 'off', spellcheck: 'false'});
    const matchEl = el('span', {id: pfx + 'flame-match', 'aria-live': 'polite'});
    const reset = el('button', {type: 'button', id: pfx + 'flame-reset'}, 'reset zoom');
    const bar = el('div', {className: 'toolbar'});
    let sideSel = null, shape = null;
    if (DIFF && sideCount > 2) {
      sideSel = el('select', {id: pfx + 'flame-side', 'aria-label': 'compared side'});
      for (let k = 1; k < sideCount; ++k) sideSel.append(el('option', {value: k}, label(k) + ' vs ' + label(0)));
      sideSel.value = String(st.side);
      bar.append(el('label', null, 'side ', sideSel));
    }
    if (DIFF) {
      shape = el('input', {type: 'checkbox', id: pfx + 'flame-shape'});
      bar.append(el('label', {title: 'widths from the base profile instead of the compared one'}, shape, 'base shape'));
    }
    bar.append(reset, search, matchEl);
    const legend = el('div', {className: 'legend'});
    const sw = (cls, text) => el('span', null, el('span', {className: 'swatch ' + cls}), text);
    if (DIFF) {
      legend.append(sw('red', 'grew (changed)'), sw('blue', 'shrank (changed)'), sw('grey', 'noise / no verdict'),
        sw('one-sided', 'one side only (changed)'), sw('one-sided pale', 'one side only (noise)'),
        sw('match', 'search match'),
        el('span', null, 'darker = larger |Δpp|; click a frame to zoom'));
    } else {
      legend.append(sw('kernel', 'kernel'), sw('user', 'user'), sw('other', 'other'), sw('match', 'search match'),
        el('span', null, 'click a frame to zoom'));
    }
    const flame = el('div', {id: pfx + 'flame', className: 'flamegraph', dataset: {zoom: '0'}});
    const caption = el('p', {className: 'note', id: pfx + 'flame-caption'});
    s.append(bar, legend, flame, caption);
    let tip = document.getElementById('tooltip');   // one for every flame graph
    if (!tip) {
      tip = el('div', {id: 'tooltip', hidden: '', role: 'tooltip'});
      document.body.append(tip);
    }

    let drawn = [];   // [element, node] of the frames on screen
    let flameWidth = -1;
    flameResized = () => flame.clientWidth !== flameWidth;
    let matched = null;
    function frame(k, x, w, d, full) {
      const [col, lvl] = colour(k);
      const e = document.createElement('div');
      e.className = 'frame' + (w >= 4 ? ' gap' : '') + (full && k !== st.zoom ? ' zoom-path' : '') +
        (matched && matched[k] ? ' match' : '');
      e.style.left = x + 'px';
      e.style.width = w + 'px';
      e.style.bottom = d * ROW + 'px';
      e.dataset.node = k;
      e.dataset.name = str(NODES[k].n);
      e.dataset.color = col;
      if (lvl) e.dataset.level = lvl;
      if (w > 22) { e.textContent = names[k]; e.classList.add('text'); }
      drawn.push([e, k]);
      return e;
    }

    drawFlame = function () {
      const ws = wside();
      if (st.zoom && samples(st.zoom, ws) <= 0) st.zoom = 0;   // not on the side drawn
      flame.dataset.zoom = String(st.zoom);
      const W = flame.clientWidth;
      flameWidth = W;
      drawn = [];
      const frag = document.createDocumentFragment();
      let maxD = 0, narrow = 0, deep = 0;
      const [limit, beyond] = depthLimit(st.zoom, ws);
      if (N && samples(st.zoom, ws) > 0 && W > 0) {
        for (let a = NODES[st.zoom].p; a >= 0; a = NODES[a].p) frag.append(frame(a, 0, W, depth[a], true));
        const scale = W / samples(st.zoom, ws);
        const cnt = subtreeCount(ws);
        const stackK = [st.zoom], stackX = [0];
        while (stackK.length) {
          const k = stackK.pop(), x = stackX.pop();
          const w = samples(k, ws) * scale;
          if (w <= 0) continue;
          if (w < 0.5) { narrow += cnt[k]; continue; }
          if (depth[k] > limit) { deep += cnt[k]; continue; }
          frag.append(frame(k, x, w, depth[k], k === st.zoom));
          if (depth[k] > maxD) maxD = depth[k];
          // push children right to left so that they pop left to right
          let cx = x;
          const xs = [];
          for (let j = kidStart[k]; j < kidStart[k + 1]; ++j) { xs.push(cx); cx += samples(kids[j], ws) * scale; }
          for (let j = kidStart[k + 1] - 1; j >= kidStart[k]; --j) { stackK.push(kids[j]); stackX.push(xs[j - kidStart[k]]); }
        }
      }
      flame.style.height = (drawn.length ? (maxD + 1) * ROW : ROW) + 'px';
      flame.replaceChildren(frag);
      const parts = [drawn.length + ' frames drawn, widths from ' + label(ws) + ' (' + count(TOTALS[ws]) + ' samples)'];
      if (narrow) parts.push(count(narrow) + ' narrower than 0.5 px not drawn');
      if (deep) {
        parts.push(count(deep) + ' deeper than ' + (limit - depth[st.zoom]) + ' levels not drawn (' +
          fixed(100 * beyond / samples(st.zoom, ws), 2) + '% of the samples; click a frame above them to zoom in)');
      }
      if (F.pruned) parts.push(count(F.pruned) + ' left out by kprof as too small');
      if (F.chains === false) parts.push('no call chains: one level, image → function');
      if (!drawn.length) parts[0] = 'no samples to draw from ' + label(ws);
      caption.textContent = parts.join('; ') + '.';
      updateMatch();
    };

    // search: count and share without double counting a match inside a match
    function runSearch() {
      const q = st.query;
      if (!q) { matched = null; return; }
      if (!lower) lower = NODES.map((nd, k) => (names[k] + '\n' + str(nd.n)).toLowerCase());
      matched = new Uint8Array(N);
      for (let k = 1; k < N; ++k) if (lower[k].includes(q)) matched[k] = 1;   // not the root
    }
    function updateMatch() {
      for (const [e, k] of drawn) e.classList.toggle('match', !!(matched && matched[k]));
      if (!matched) { matchEl.textContent = ''; return; }
      const ws = wside();
      const under = new Uint8Array(N);
      let n = 0, total = 0;
      for (let k = 1; k < N; ++k) {
        const p = NODES[k].p;
        under[k] = under[p] || matched[p];
        if (!matched[k] || samples(k, ws) <= 0) continue;
        ++n;
        if (!under[k]) total += samples(k, ws);
      }
      const pc = TOTALS[ws] ? 100 * total / TOTALS[ws] : 0;
      matchEl.textContent = n === 0 ? 'no frame matches'
        : n + (n === 1 ? ' frame matches: ' : ' frames match: ') + pc.toFixed(2) + '% of ' + label(ws);
    }

    // tooltip
    function showTip(k, ev) {
      const nd = NODES[k];
      const rows = el('tbody');
      for (let j = 0; j < sideCount; ++j) {
        rows.append(el('tr', null, el('td', null, label(j) + (DIFF && j === 0 ? ' (base)' : '')),
          el('td', {className: 'num'}, fixed(pct(k, j), 4) + '%'),
          el('td', {className: 'num'}, count(samples(k, j)) + ' samples')));
      }
      for (let j = 1; DIFF && j < sideCount; ++j) {
        const c = nd.cmp && nd.cmp[j];
        if (!c) continue;
        const pre = sideCount > 2 ? label(j) + ': ' : '';
        rows.append(el('tr', null, el('td', null, pre + 'Δpp'),
          el('td', {className: 'num' + changeClass(c)}, signed(c.d)),
          el('td', {className: 'num'}, interval(c.lo, c.hi))));
        rows.append(el('tr', null, el('td', null, pre + 'verdict'),
          el('td', {className: verdictClass(c.v)}, (c.v || '–') + (c.sd ? ' ' + c.sd : '')),
          el('td', {className: 'num'}, 'q = ' + qval(c.q))));
      }
      if (!DIFF && nd.m) rows.append(el('tr', null, el('td', null, 'mode'), el('td', null, nd.m)));
      tip.replaceChildren(el('div', {className: 'tt-name'}, names[k]),
        el('div', {className: 'tt-image'}, str(nd.i) || (k === 0 ? 'all samples' : '')), el('table', null, rows));
      tip.dataset.node = k;
      tip.hidden = false;
      moveTip(ev);
    }
    function moveTip(ev) {
      const r = tip.getBoundingClientRect();
      let x = ev.clientX + 14, y = ev.clientY + 16;
      if (x + r.width > window.innerWidth - 4) x = Math.max(4, ev.clientX - r.width - 14);
      if (y + r.height > window.innerHeight - 4) y = Math.max(4, ev.clientY - r.height - 12);
      tip.style.left = x + 'px';
      tip.style.top = y + 'px';
    }
    let tipNode = -1;
    flame.addEventListener('mousemove', (ev) => {
      const f = ev.target.closest('.frame');
      if (!f) { tip.hidden = true; tipNode = -1; return; }
      const k = +f.dataset.node;
      if (k !== tipNode) { tipNode = k; showTip(k, ev); } else moveTip(ev);
    });
    flame.addEventListener('mouseleave', () => { tip.hidden = true; tipNode = -1; });

    // zoom, reset, side, shape, search
    flame.addEventListener('click', (ev) => {
      const f = ev.target.closest('.frame');
      if (!f) return;
      st.zoom = +f.dataset.node;
      tip.hidden = true; tipNode = -1;
      drawFlame();
    });
    reset.addEventListener('click', () => { st.zoom = 0; drawFlame(); });
    if (sideSel) sideSel.addEventListener('change', () => { st.side = +sideSel.value; drawFlame(); });
    if (shape) shape.addEventListener('change', () => { st.shape = shape.checked; drawFlame(); });
    search.addEventListener('input', () => {
      st.query = search.value.trim().toLowerCase();
      runSearch();
      updateMatch();
    });
    return {draw: drawFlame, resized: flameResized};
  }
  const flames = [makeFlame(D.flame || {nodes: [], totals: []}, '',
    DIFF ? 'Differential flame graph' : 'Flame graph')];
  if (D.off_cpu_flame) {
    flames.push(makeFlame(D.off_cpu_flame, 'off-cpu-',
      DIFF ? 'Off-CPU differential flame graph' : 'Off-CPU flame graph'));
  }
  const drawFlame = () => flames.forEach((f) => f.draw());
  const flameResized = () => flames.some((f) => f.resized());
