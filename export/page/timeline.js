/* kprof page: the run over time (report pages of .kprof recordings, from
   the island's "timeline"): the sampling rate and the top functions' shares
   per time slice, as `kprof report --timeline` prints them in text. Part of
   the page's one script: see common.js. */

  // ---------------------------------------------------------------- timeline (report)

  let drawTimeline = null;
  if (!DIFF && D.timeline && D.timeline.rows && D.timeline.rate.length) {
    const T = D.timeline;
    const s = section('sec-timeline', 'Over time (time slices of equal sample count)', 'timeline');
    s.append(el('div', {className: 'note'},
      'Top: samples per second. Below: each top function\'s share of its slice\'s samples; ' +
      'a phase change shows as a step. Hover a point for its slice.'));
    const legend = el('div', {className: 'legend', id: 'timeline-legend'});
    const chart = svg('svg', {id: 'timeline', role: 'img', 'aria-label': 'samples over time'});
    s.append(legend, chart);
    const hue = (k) => (k * 137.508) % 360;  // well-spread hues, one per row
    T.rows.forEach((r, k) => {
      const sw = el('span', {className: 'swatch'});
      sw.style.background = `hsl(${hue(k)} 65% 48%)`;
      legend.append(el('span', null, sw, displayName(r.n, r.i)));
    });
    const E = T.edges_s, n = T.rate.length;
    const mid = (j) => (E[j] + E[j + 1]) / 2;

    drawTimeline = function () {
      chart.replaceChildren();
      const W = Math.max(640, s.clientWidth), left = 56, right = 16;
      const rateTop = 12, rateH = 60, shareTop = rateTop + rateH + 24, shareH = 180;
      const H = shareTop + shareH + 28;
      chart.setAttribute('width', W);
      chart.setAttribute('height', H);
      chart.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
      const t0 = E[0], t1 = Math.max(E[n], t0 + 1e-9);
      const X = (t) => left + (t - t0) / (t1 - t0) * (W - left - right);
      const maxRate = Math.max(1e-9, ...T.rate);
      const maxShare = Math.min(100, Math.max(1, ...T.rows.flatMap((r) => r.share)) * 1.05);
      const YR = (v) => rateTop + rateH - v / maxRate * rateH;
      const YS = (v) => shareTop + shareH - v / maxShare * shareH;
      // axes, grid and ticks: seconds below, rate and share at the left
      const step = niceStep((t1 - t0) / 8);
      for (let t = Math.ceil(t0 / step) * step; t <= t1 + 1e-12; t += step) {
        chart.append(svg('line', {className: 'grid', x1: X(t), x2: X(t), y1: rateTop, y2: shareTop + shareH}));
        chart.append(svg('text', {className: 'tick-label', x: X(t), y: H - 10, 'text-anchor': 'middle'},
          +t.toPrecision(4) + ' s'));
      }
      chart.append(svg('text', {className: 'tick-label', x: left - 6, y: rateTop + 8, 'text-anchor': 'end'},
        String(Math.round(maxRate)) + '/s'));
      for (const v of [0, maxShare / 2, maxShare]) {
        chart.append(svg('text', {className: 'tick-label', x: left - 6, y: YS(v) + 4, 'text-anchor': 'end'},
          +v.toPrecision(3) + '%'));
        chart.append(svg('line', {className: 'grid', x1: left, x2: W - right, y1: YS(v), y2: YS(v)}));
      }
      chart.append(svg('line', {className: 'axis', x1: left, x2: W - right, y1: rateTop + rateH, y2: rateTop + rateH}));
      chart.append(svg('line', {className: 'axis', x1: left, x2: W - right, y1: shareTop + shareH, y2: shareTop + shareH}));
      // the rate: one step per slice (its samples over its span)
      const rate = svg('g', {className: 'timeline-rate', dataset: {slices: n}});
      for (let j = 0; j < n; ++j) {
        const bar = svg('rect', {className: 'rate-bar', x: X(E[j]), y: YR(T.rate[j]),
          width: Math.max(1, X(E[j + 1]) - X(E[j])), height: rateTop + rateH - YR(T.rate[j])});
        bar.append(svg('title', null, `${fixed(E[j], 3)}–${fixed(E[j + 1], 3)} s: ` +
          `${Math.round(T.rate[j])} samples/s (${T.in_slice[j]} samples)`));
        rate.append(bar);
      }
      chart.append(rate);
      // each row's share: a line through the slices' middles, a dot per slice
      T.rows.forEach((r, k) => {
        const name = displayName(r.n, r.i);
        const g = svg('g', {className: 'timeline-line', dataset: {name: str(r.n), points: r.share.length}});
        g.style.color = `hsl(${hue(k)} 65% 48%)`;
        g.append(svg('path', {d: r.share.map((v, j) => (j ? 'L' : 'M') + X(mid(j)) + ' ' + YS(v)).join('')}));
        r.share.forEach((v, j) => {
          const dot = svg('circle', {cx: X(mid(j)), cy: YS(v), r: 2.5});
          dot.append(svg('title', null, `${name}: ${fixed(v, 2)}% of ${fixed(E[j], 3)}–${fixed(E[j + 1], 3)} s`));
          g.append(dot);
        });
        chart.append(g);
      });
    };
  }
