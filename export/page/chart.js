/* kprof page: the delta chart (diff). Part of the page's one script: see
   common.js. */

  // ---------------------------------------------------------------- delta chart (diff)

  let drawChart = null;
  if (DIFF && NS > 1) {
    const s = section('sec-chart', 'Largest changes (Δpp with its ' + SIDES.slice(1).map((sd, k) => levelFor(k + 1)).join(', ') + ' interval)', 'chart');
    const chart = svg('svg', {id: 'delta-chart', role: 'img', 'aria-label': 'largest changes in percentage points'});
    const legend = el('div', {className: 'legend', id: 'delta-legend'});
    const sw = (cls, text) => el('span', null, el('span', {className: 'swatch ' + cls}), text);
    legend.append(sw('red', 'grew (changed)'), sw('blue', 'shrank (changed)'), sw('grey', 'noise / no verdict'),
      sw('one-sided', 'one-sided: +++ only in new, --- only in base'));
    if (NS > 2) {
      legend.append(el('span', null, 'bars per row, top to bottom: ' +
        SIDES.slice(1).map((x, k) => label(k + 1)).join(', ')));
    }
    s.append(legend, chart);
    const maxAbs = (r) => Math.max(0, ...r.cmp.slice(1).map((c) => Math.abs((c && c.d) || 0)));
    const top = ROWS.map((r, i) => ({r, i, m: maxAbs(r)}))
      .sort((a, b) => b.m - a.m || a.i - b.i).slice(0, 25).map((x) => x.r);

    drawChart = function () {
      chart.replaceChildren();
      const W = Math.max(640, s.clientWidth);
      const nway = NS > 2, sub = nway ? 15 : 20, bandH = (NS - 1) * sub + (nway ? 6 : 0);
      const labelW = Math.min(320, Math.round(W * 0.28)), tagW = nway ? 100 : 0, valueW = 150;
      const x0 = labelW + tagW + 8, x1 = W - valueW, top0 = 22;
      const H = top0 + top.length * bandH + 6;
      chart.setAttribute('width', W);
      chart.setAttribute('height', H);
      chart.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
      if (!top.length) {
        chart.append(svg('text', {x: 8, y: 16}, 'no rows'));
        return;
      }
      let lo = 0, hi = 0;
      for (const r of top) for (const c of r.cmp.slice(1)) {
        if (!c) continue;
        for (const v of [c.d, c.lo, c.hi]) if (v != null && isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
      }
      if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
      const pad = (hi - lo) * 0.04;
      lo -= pad; hi += pad;
      const X = (v) => x0 + (v - lo) / (hi - lo) * (x1 - x0);
      // grid and ticks
      const step = niceStep((hi - lo) / 6);
      for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) {
        const v = Math.abs(t) < step / 1e6 ? 0 : t;
        chart.append(svg('line', {className: 'grid', x1: X(v), x2: X(v), y1: top0 - 4, y2: H - 4}));
        chart.append(svg('text', {className: 'tick-label', x: X(v), y: 12, 'text-anchor': 'middle'},
          (v > 0 ? '+' : '') + +v.toPrecision(6) + (v === 0 ? ' pp' : '')));
      }
      top.forEach((r, j) => {
        const y = top0 + j * bandH;
        const name = displayName(r.n, r.i);
        if (j % 2) chart.append(svg('rect', {className: 'band', x: 0, y, width: W, height: bandH}));
        const lt = svg('text', {className: 'label', x: labelW, y: y + bandH / 2 + 4, 'text-anchor': 'end'},
          clip(name, Math.floor(labelW / 6.6)));
        lt.append(svg('title', null, name + (str(r.i) ? '  (' + str(r.i) + ')' : '')));
        chart.append(lt);
        for (let k = 1; k < NS; ++k) {
          const c = r.cmp[k];
          if (!c) continue;
          const yy = y + (nway ? 3 : 0) + (k - 1) * sub, bh = sub - 6, cy = yy + sub / 2;
          if (nway) {
            chart.append(svg('text', {className: 'side-tag', x: labelW + tagW, y: cy + 4, 'text-anchor': 'end'},
              clip(label(k), 15)));
          }
          const d = c.d || 0, color = colorOf(c);
          const bar = svg('rect', {className: 'bar', x: Math.min(X(0), X(d)), y: yy + 3,
            width: Math.max(1, Math.abs(X(d) - X(0))), height: bh,
            dataset: {name: str(r.n), side: k, verdict: c.v || '', color,
              level: color === 'one-sided' && c.v !== 'changed' ? 1 : 2}});
          bar.append(svg('title', null, name + ' vs ' + label(k) + ': ' + signed(c.d) + ' pp ' +
            interval(c.lo, c.hi) + ', ' + (c.v || '') + (c.sd ? ' ' + c.sd : '')));
          chart.append(bar);
          // whisker: the interval; an unbounded end runs to the edge with an arrow
          const wl = c.lo == null ? x0 : X(c.lo), wr = c.hi == null ? x1 : X(c.hi);
          chart.append(svg('line', {className: 'whisker', x1: wl, x2: wr, y1: cy, y2: cy}));
          if (c.lo != null) chart.append(svg('line', {className: 'whisker', x1: wl, x2: wl, y1: cy - 4, y2: cy + 4}));
          else chart.append(svg('path', {className: 'whisker-end', d: `M${wl} ${cy}l6 -4v8z`}));
          if (c.hi != null) chart.append(svg('line', {className: 'whisker', x1: wr, x2: wr, y1: cy - 4, y2: cy + 4}));
          else chart.append(svg('path', {className: 'whisker-end', d: `M${wr} ${cy}l-6 -4v8z`}));
          const vt = svg('text', {className: 'value', x: x1 + 8, y: cy + 4}, signed(c.d) + ' pp');
          chart.append(vt);
          if (c.sd) chart.append(svg('text', {className: 'mark', x: x1 + 88, y: cy + 4}, c.sd));
        }
      });
      chart.append(svg('line', {className: 'axis', x1: X(0), x2: X(0), y1: top0 - 4, y2: H - 4}));
    };
  }
  function niceStep(raw) {
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    const f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
  }
  function clip(s, n) {
    return s.length <= n ? s : s.slice(0, Math.max(1, n - 1)) + '…';
  }
