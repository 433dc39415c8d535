/* kprof page: drawing, redrawing on resize, and the ready mark. Part of the
   page's one script: see common.js. */

  // ---------------------------------------------------------------- draw, redraw on resize, ready

  if (drawChart) drawChart();
  if (drawTimeline) drawTimeline();
  drawFlame();
  let pending = false;
  window.addEventListener('resize', () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      if (!flameResized()) return;
      if (drawChart) drawChart();
      if (drawTimeline) drawTimeline();
      drawFlame();
    });
  });
  document.body.dataset.ready = '1';
