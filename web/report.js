// appell report: the page's own script (embedded by appell, see src/report/html_writer.cpp).
// Renders the equations with KaTeX, draws the plots with uPlot and animates the mechanism with
// three.js, whose ES modules are inlined as text and imported from blob: URLs (no request leaves
// the page). window.appellReport exposes the state for the browser test
// (tests/browser/report_test.mjs).
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('appell-data').textContent);
  const report = { ready: false, errors: [], plots: [], time: 0, index: 0 };
  window.appellReport = report;

  // ---- equations ------------------------------------------------------------------------------
  // Each block is the writer's align (or equation) environment, one equation a row (`lhs &= rhs`).
  // KaTeX places the numbers in a column at the right edge of the block's box, whatever the rows'
  // width: a row wider than the box less its number ran under the number, and what went past the
  // box was scrolled out of view. So the page sets every block to its box's width, as a textbook
  // does: a block that fits stays as written (centred); one that does not is set flush left and
  // its long rows are broken between terms (at + and − of the sum, between the assignments of a
  // line, inside a bracket when a term alone is too wide, its pieces closed by \right. and
  // reopened by \left.), continuation lines indented, the number on each equation's last line.
  // The widths are measured, not guessed; the result is measured again and set tighter while
  // anything still reaches the numbers. Again on every change of the box's width.
  const texBlocks = [...document.querySelectorAll('.tex')];
  const measurer = document.createElement('div');
  measurer.setAttribute('aria-hidden', 'true');
  measurer.style.cssText = 'position:absolute;left:-100000px;top:0;visibility:hidden;white-space:nowrap';

  function renderInto(el, tex, display, fleqn) {
    katex.render(tex, el, { displayMode: display, fleqn: !!fleqn, throwOnError: true, strict: 'ignore' });
  }

  // The index of the '}' that closes the '{' at i (the text's end if none does).
  function closingBrace(src, i) {
    let depth = 0;
    for (let k = i; k < src.length; ++k) {
      if (src[k] === '\\') { ++k; continue; }
      if (src[k] === '{') ++depth;
      else if (src[k] === '}' && --depth === 0) return k;
    }
    return src.length - 1;
  }

  // A row's TeX as atoms at brace depth 0: text (a braced group, a control sequence, a
  // character, an environment), open/close (\left·, \right·), amp (&), op (a binary + or −,
  // the writer's " + " and " - "), tag (\notag, \nonumber, \tag{..}), row (\\).
  function atoms(src) {
    const out = [];
    let i = 0;
    const letter = (c) => c !== undefined && /[A-Za-z]/.test(c);
    while (i < src.length) {
      const c = src[i];
      if (c === '{') {
        const j = closingBrace(src, i);
        out.push({ k: 'text', s: src.slice(i, j + 1) });
        i = j + 1;
      } else if (c === '\\') {
        let j = i + 1;
        if (letter(src[j])) while (letter(src[j])) ++j; else ++j;
        const name = src.slice(i, j);
        if (name === '\\left' || name === '\\right') {
          let e = j;
          while (src[e] === ' ') ++e;
          if (src[e] === '\\') { ++e; if (letter(src[e])) while (letter(src[e])) ++e; else ++e; } else ++e;
          out.push({ k: name === '\\left' ? 'open' : 'close', s: src.slice(i, e) });
          i = e;
        } else if (name === '\\begin') {
          const env = src.slice(j).match(/^\{([^}]*)\}/);
          const end = env ? src.indexOf('\\end{' + env[1] + '}', j) : -1;
          const e = end < 0 ? src.length : end + env[1].length + 6;
          out.push({ k: 'text', s: src.slice(i, e) });
          i = e;
        } else if (name === '\\notag' || name === '\\nonumber') {
          out.push({ k: 'tag', s: name });
          i = j;
        } else if (name === '\\tag') {
          let e = j;
          while (src[e] === ' ') ++e;
          e = src[e] === '{' ? closingBrace(src, e) + 1 : e;
          out.push({ k: 'tag', s: src.slice(i, e) });
          i = e;
        } else {
          out.push({ k: name === '\\\\' ? 'row' : 'text', s: name });
          i = j;
        }
      } else if (c === '&') {
        out.push({ k: 'amp', s: c });
        ++i;
      } else if ((c === '+' || c === '-') && src[i - 1] === ' ' && src[i + 1] === ' ') {
        out.push({ k: 'op', s: c });
        ++i;
      } else {
        out.push({ k: 'text', s: c });
        ++i;
      }
    }
    return out;
  }

  const blank = (a) => a.k === 'text' && /^\s*$/.test(a.s);

  // One side of a row (the atoms before or after the &) as the pieces a line break may fall
  // between: a piece starts at a binary operator or after ", \quad" (the next assignment), and
  // has the level of that break: -1 between assignments, else how deep in brackets it is (a
  // bracket raised to a power, (..)^2, is broken last).
  function pieces(side) {
    const powered = new Set();
    const stack = [];
    side.forEach((a, i) => {
      if (a.k === 'open') stack.push(i);
      if (a.k === 'close' && stack.length) {
        const open = stack.pop();
        let n = i + 1;
        while (n < side.length && blank(side[n])) ++n;
        if (n < side.length && side[n].k === 'text' && /^[_^]/.test(side[n].s)) powered.add(open);
      }
    });
    const out = [{ level: -2, atoms: [] }];
    let depth = 0, penalty = 0, previous = null;
    const open = [];
    side.forEach((a, i) => {
      const last = out[out.length - 1];
      if (a.k === 'op' && previous && previous.k !== 'open' && previous.k !== 'op' &&
          !/^[=,(]$/.test(previous.s)) {
        out.push({ level: depth + penalty, atoms: [a] });
      } else if (a.k === 'text' && a.s === '\\quad' && depth === 0 && previous && previous.s === ',') {
        out.push({ level: -1, atoms: [a], lead: true });
      } else {
        last.atoms.push(a);
      }
      if (a.k === 'open') { open.push(powered.has(i)); if (powered.has(i)) penalty += 10; ++depth; }
      if (a.k === 'close' && depth > 0) { if (open.pop()) penalty -= 10; --depth; }
      if (!blank(a)) previous = a;
    });
    return out.filter((p, k) => k === 0 || p.atoms.length > 0);
  }

  // The TeX of pieces [from, to) as one line, given the brackets still open from the lines
  // before (reopened by \left.); those it leaves open are closed by \right. and returned.
  // A continuation line drops the \quad that separated assignments and gives a leading
  // operator an empty atom before it, so that it keeps its spacing as a binary operator.
  function line(list, from, to, openBefore, first) {
    const open = openBefore.slice();
    let tex = open.map(() => '\\left.').join(' ');
    for (let k = from; k < to; ++k) {
      let items = list[k].atoms;
      if (k === from && !first) {
        if (list[k].lead) items = items.slice(1);
        const n = items.findIndex((a) => !blank(a));
        if (n >= 0 && items[n].k === 'op') tex += '{}';
      }
      for (const a of items) {
        if (a.k === 'open') open.push(a.s);
        else if (a.k === 'close') open.pop();
        tex += a.k === 'text' || a.k === 'op' ? a.s : ' ' + a.s + ' ';
      }
    }
    for (let k = 0; k < open.length; ++k) tex += ' \\right.';
    return { tex: tex.trim(), open: open };
  }

  // Breaks `list` into lines no wider than budget(index of the line's first piece), at the
  // least badness: a line each, the room a line leaves unused (but on the last), and the depth
  // of each break (between assignments is free, at the sum's own + and − cheap, inside brackets
  // dear, inside a bracket raised to a power dearest). A piece wider than its line alone gets a
  // line of its own. Returns the lines as [from, to) of pieces.
  function pack(list, widths, budget) {
    const n = list.length;
    const penalty = (level) => (level < 0 ? 0 : level === 0 ? 0.2 : level === 1 ? 1.2 : 2.5 * level);
    const cost = new Array(n + 1).fill(Infinity), from = new Array(n + 1).fill(-1);
    cost[0] = 0;
    for (let i = 0; i < n; ++i) {
      if (cost[i] === Infinity) continue;
      const b = Math.max(budget(i), 1);
      let w = 0;
      for (let j = i + 1; j <= n; ++j) {
        w += widths[j - 1];
        if (w > b && j > i + 1) break;
        const slack = Math.max(0, b - w) / b;
        const c = cost[i] + 1 + (w > b ? 100 : 0) + (j === n ? 0 : 2 * slack * slack + penalty(list[j].level));
        if (c < cost[j]) { cost[j] = c; from[j] = i; }
      }
    }
    const lines = [];
    for (let j = n; j > 0; j = from[j]) lines.unshift([from[j], j]);
    return lines;
  }

  // A block as rows of pieces, or null for one the page leaves as written (not an align or
  // equation environment).
  function parseBlock(tex) {
    const m = tex.match(/^\s*\\begin\{(align\*?|equation\*?)\}([\s\S]*)\\end\{\1\}\s*$/);
    if (!m) return null;
    const rows = [[]];
    for (const a of atoms(m[2])) {
      if (a.k === 'row') rows.push([]); else rows[rows.length - 1].push(a);
    }
    const parsed = rows.filter((r) => r.some((a) => !blank(a))).map((r) => {
      const tags = r.filter((a) => a.k === 'tag').map((a) => a.s);
      let body = r.filter((a) => a.k !== 'tag');
      let amp = body.findIndex((a) => a.k === 'amp');
      if (amp < 0) {  // equation: align at its first relation
        const rel = body.findIndex((a) => a.k === 'text' && a.s === '=');
        if (rel > 0) { body = [...body.slice(0, rel), { k: 'amp', s: '&' }, ...body.slice(rel)]; amp = rel; }
      }
      const lhs = amp < 0 ? [] : body.slice(0, amp), rhs = body.slice(amp + 1);
      while (lhs.length && blank(lhs[0])) lhs.shift();
      while (rhs.length && blank(rhs[0])) rhs.shift();
      return { lhs: lhs.length ? pieces(lhs) : [], rhs: pieces(rhs), aligned: amp >= 0, tags };
    });
    return { starred: m[1].endsWith('*'), rows: parsed };
  }

  // Every piece's width (px) as it is on a line after others (binary spacing included), measured
  // in one pass over all blocks once the fonts its glyphs need are loaded. Returns a quad's width.
  async function measurePieces(blocks) {
    const jobs = [];
    for (const b of blocks) {
      for (const r of b.rows) {
        for (const side of [r.lhs, r.rhs]) {
          let open = [];
          side.forEach((p, k) => {
            const l = line(side, k, k + 1, open, false);
            open = l.open;
            // the rhs's first piece starts with its relation: measured after an empty atom too
            jobs.push({ piece: p, tex: (k === 0 && side === r.rhs ? '{}' : '') + l.tex });
          });
        }
      }
    }
    measurer.textContent = '';
    const spans = jobs.map((job) => {
      const span = document.createElement('span');
      span.style.display = 'inline-block';
      measurer.appendChild(span);
      try { renderInto(span, '\\displaystyle ' + job.tex, false); } catch (e) { span.textContent = ''; }
      return span;
    });
    const quad = document.createElement('span');
    quad.style.display = 'inline-block';
    measurer.appendChild(quad);
    renderInto(quad, '\\displaystyle a\\quad a', false);
    const a = document.createElement('span');
    a.style.display = 'inline-block';
    measurer.appendChild(a);
    renderInto(a, '\\displaystyle a a', false);
    void measurer.offsetWidth;  // laid out: the fonts its glyphs need are being loaded
    if (document.fonts && document.fonts.ready) await document.fonts.ready;
    // A pixel more each: pieces set side by side come out a little wider than measured apart.
    jobs.forEach((job, k) => { job.piece.width = spans[k].getBoundingClientRect().width + 1; });
    const quadWidth = quad.getBoundingClientRect().width - a.getBoundingClientRect().width;
    measurer.remove();
    return quadWidth;
  }

  // The block's rows broken to fit `width` px of content, in the layout of fewest lines (a
  // break inside brackets counts one and a half). Aligned at the relation: the left column as
  // wide as one of the left sides, half the width, or what the right sides leave. Or, where the
  // left sides are long and the box narrow, flush left: a row that does not fit on one line has
  // its relation begin a line of its own (unless its left side is short), continuations
  // indented.
  function brokenTex(block, width, quad) {
    const sum = (side) => side.reduce((w, p) => w + p.width, 0);
    const widest = (side) => side.reduce((w, p) => Math.max(w, p.width), 0);
    const widths = (side) => side.map((p) => p.width);
    // A right side's continuation lines are indented by a quad; where the row sets several
    // quantities (a = .., b = ..), each begins a line at one quad and its continuations at two.
    const indent = (side, i) => (i === 0 ? 0 : side[i].lead || !side.some((p) => p.lead) ? 1 : 2);
    const quads = (n) => (n === 2 ? '\\qquad ' : n === 1 ? '\\quad ' : '');
    const cost = (side, lines) => lines.reduce((c, [from], n) => c + (n === 0 ? 0 : side[from].level > 0 ? 1.5 : 1), 0);
    const aligned = (left) => {
      const right = Math.max(width - left, 0);
      let total = 0;
      const rows = block.rows.map((r) => {
        const lhs = r.lhs.length ? pack(r.lhs, widths(r.lhs), () => left) : [];
        const rhs = pack(r.rhs, widths(r.rhs), (i) => right - quad * indent(r.rhs, i));
        total += cost(r.lhs, lhs) + cost(r.rhs, rhs);
        return { mode: 'aligned', lhs, rhs };
      });
      return { cost: total, rows };
    };
    const flush = () => {
      let total = 0;
      const rows = block.rows.map((r) => {
        const left = sum(r.lhs), right = sum(r.rhs);
        if (left + right <= width || left <= width / 3) {
          const rhs = pack(r.rhs, widths(r.rhs), (i) => (i === 0 ? width - left : width - quad * indent(r.rhs, i)));
          total += cost(r.rhs, rhs);
          return { mode: 'hanging', lhs: r.lhs.length ? [[0, r.lhs.length]] : [], rhs };
        }
        const lhs = pack(r.lhs, widths(r.lhs), (i) => (i === 0 ? width : width - quad));
        const rhs = pack(r.rhs, widths(r.rhs), (i) => (i === 0 ? width - quad : width - 2 * quad));
        total += cost(r.lhs, lhs) + cost(r.rhs, rhs) + 1.5;  // the relation's own line
        return { mode: 'stacked', lhs, rhs };
      });
      return { cost: total, rows };
    };
    // The left column: never narrower than its widest piece, nor so wide that a right side's
    // widest piece has no room.
    const narrowest = Math.max(0, ...block.rows.map((r) => widest(r.lhs)));
    const widestRight = Math.max(0, ...block.rows.map((r) => widest(r.rhs)));
    const rhsNatural = Math.max(0, ...block.rows.map((r) => sum(r.rhs)));
    let best = null;
    for (const c of new Set([width / 2, width - rhsNatural, ...block.rows.map((r) => sum(r.lhs))])) {
      const option = aligned(Math.max(Math.min(c, width - widestRight), narrowest));
      if (!best || option.cost < best.cost) best = option;
    }
    // Flush left gives up the alignment: worth it only for a line saved.
    const alternative = flush();
    if (alternative.cost + 1 < best.cost || !block.rows.every((r) => r.aligned)) best = alternative;

    const texOf = (side, lines) => {
      let open = [];
      return lines.map(([from, to], n) => {
        const l = line(side, from, to, open, n === 0);
        open = l.open;
        return l.tex;
      });
    };
    const rows = block.rows.map((r, k) => {
      const plan = best.rows[k];
      const lhs = texOf(r.lhs, plan.lhs), rhs = texOf(r.rhs, plan.rhs);
      const lines = [];
      if (plan.mode === 'aligned') {
        // The left side's lines, its last with the right side's first after &; the right side's
        // other lines indented under it.
        lines.push(...lhs.slice(0, -1));
        lines.push((lhs.length ? lhs[lhs.length - 1] + ' ' : '') + (r.aligned ? '&' : '') + rhs[0]);
        for (let n = 1; n < rhs.length; ++n)
          lines.push((r.aligned ? '&' : '') + quads(indent(r.rhs, plan.rhs[n][0])) + rhs[n]);
      } else if (plan.mode === 'hanging') {
        lines.push('&' + (lhs.length ? lhs[0] + ' ' : '') + rhs[0]);
        for (let n = 1; n < rhs.length; ++n) lines.push('&' + quads(indent(r.rhs, plan.rhs[n][0])) + rhs[n]);
      } else {
        lhs.forEach((l, n) => lines.push('&' + (n ? '\\quad ' : '') + l));
        rhs.forEach((l, n) => lines.push('&' + (n ? '\\qquad ' : '\\quad ') + l));
      }
      // The equation's number (or its \tag) on its last line.
      const last = lines.length - 1;
      return lines.map((l, n) => (n < last ? l + ' \\notag' : l + (r.tags.length ? ' ' + r.tags.join(' ') : ''))).join(' \\\\\n');
    });
    const env = block.starred ? 'align*' : 'align';
    return '\\begin{' + env + '}\n' + rows.join(' \\\\\n') + '\n\\end{' + env + '}';
  }

  // How far the block's glyphs reach into its numbers' column or past its box (px; <= 0: clear).
  function excess(el) {
    const box = el.getBoundingClientRect();
    const tag = el.querySelector('.katex-tag');
    const limit = tag ? tag.getBoundingClientRect().left - 6 : box.right;
    let right = -Infinity, left = Infinity;
    for (const base of el.querySelectorAll('.katex-html > .katex-base')) {
      const r = base.getBoundingClientRect();
      right = Math.max(right, r.right);
      left = Math.min(left, r.left);
    }
    return Math.max(right - limit, box.left - left, right - box.right);
  }

  function layout(el) {
    const width = el.clientWidth;
    el.dataset.layoutWidth = String(width);
    renderInto(el, el.dataset.tex, true);
    el.classList.remove('broken');
    if (excess(el) <= 0 || !el.block) return;
    const tag = el.querySelector('.katex-tag');
    const tagWidth = tag ? tag.getBoundingClientRect().width : 0;
    let budget = width - tagWidth - 12;
    for (let pass = 0; pass < 6; ++pass) {
      renderInto(el, brokenTex(el.block, budget, el.quad), true, true);
      el.classList.add('broken');
      const over = excess(el);
      if (over <= 0) return;
      budget -= over + 2;
    }
  }

  const blocks = [];
  for (const el of texBlocks) {
    try {
      renderInto(el, el.dataset.tex, true);
      el.classList.add('rendered');
      el.block = parseBlock(el.dataset.tex);
      if (el.block) blocks.push(el.block);
    } catch (e) {
      el.textContent = 'KaTeX could not typeset this block: ' + e.message;
      el.classList.add('tex-error');
      report.errors.push(String(e));
    }
  }

  async function setEquations() {
    document.body.appendChild(measurer);
    const quad = await measurePieces(blocks);
    const rendered = texBlocks.filter((el) => el.classList.contains('rendered'));
    for (const el of rendered) el.quad = quad;
    const all = () => {
      for (const el of rendered) {
        try {
          layout(el);
        } catch (e) {  // a broken form KaTeX refuses: the block as written
          renderInto(el, el.dataset.tex, true);
          report.errors.push('equation layout: ' + String(e));
        }
      }
    };
    all();
    let pending = 0;
    window.addEventListener('resize', () => {
      cancelAnimationFrame(pending);
      pending = requestAnimationFrame(() => {
        if (rendered.some((el) => String(el.clientWidth) !== el.dataset.layoutWidth)) all();
      });
    });
  }
  const equationsSet = setEquations().catch((e) => report.errors.push('equation layout: ' + String(e)));

  // ---- plots ----------------------------------------------------------------------------------
  const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2',
    '#7f7f7f', '#bcbd22', '#17becf'];
  const plotsEl = document.getElementById('plots');
  let plotWidth = () => Math.max(320, Math.min(plotsEl.clientWidth || 900, 1100));
  function setCursors(t) {
    for (const u of report.plots) {
      const left = u.valToPos(t, 'x');
      if (isFinite(left)) u.setCursor({ left: left, top: u.cursor.top > 0 ? u.cursor.top : 10 });
    }
  }
  if (data.plots) {
    const sync = uPlot.sync('appell');
    for (const group of data.plots.groups) {
      const box = document.createElement('div');
      box.className = 'plot';
      box.id = 'plot-' + group.id;
      plotsEl.appendChild(box);
      const series = [{ label: 't (s)' }];
      const columns = [data.plots.t];
      group.series.forEach((s, k) => {
        series.push({ label: s.label, stroke: palette[k % palette.length], width: 1.5 });
        columns.push(s.values);
      });
      const u = new uPlot({
        title: group.title,
        width: plotWidth(),
        height: 240,
        scales: { x: { time: false } },
        axes: [{ label: 't (s)' }, {}],
        cursor: { y: false, sync: { key: sync.key }, drag: { x: true, y: false } },
        series: series,
      }, columns, box);
      report.plots.push(u);
    }
    window.addEventListener('resize', () => {
      for (const u of report.plots) u.setSize({ width: plotWidth(), height: 240 });
    });
  }

  // ---- animation ------------------------------------------------------------------------------
  function moduleUrl(id, replacements) {
    let text = document.getElementById(id).textContent;
    for (const [from, to] of replacements) text = text.split(from).join(to);
    return URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
  }

  async function loadThree() {
    const coreUrl = moduleUrl('asset-three-core', []);
    const threeUrl = moduleUrl('asset-three-module', [["'./three.core.js'", JSON.stringify(coreUrl)]]);
    const orbitUrl = moduleUrl('asset-orbit-controls', [["from 'three'", 'from ' + JSON.stringify(threeUrl)]]);
    const THREE = await import(threeUrl);
    const { OrbitControls } = await import(orbitUrl);
    return { THREE, OrbitControls };
  }

  // The controls under the view: play/pause, speed and the time slider, over `times`; show(i)
  // draws step i (and calls showTime).
  function bindTimeline(times, show) {
    const slider = document.getElementById('time-slider');
    const play = document.getElementById('play');
    const speed = document.getElementById('speed');
    slider.max = String(times.length - 1);
    let playing = false, startClock = 0, startTime = 0;
    function stop() { playing = false; play.textContent = 'play'; }
    function tick(now) {
      if (!playing) return;
      const t = startTime + (now - startClock) / 1000 * Number(speed.value);
      let i = report.index;
      while (i + 1 < times.length && times[i + 1] <= t) ++i;
      show(i);
      if (i + 1 >= times.length) { stop(); return; }
      requestAnimationFrame(tick);
    }
    slider.addEventListener('input', () => { stop(); show(Number(slider.value)); });
    play.addEventListener('click', () => {
      if (playing) { stop(); return; }
      if (report.index + 1 >= times.length) show(0);
      playing = true;
      play.textContent = 'pause';
      startClock = performance.now();
      startTime = times[report.index];
      requestAnimationFrame(tick);
    });
    speed.addEventListener('change', () => {
      startClock = performance.now();
      startTime = times[report.index];
    });
    if (times.length < 2) { play.disabled = true; slider.disabled = true; }
  }

  // Step `index` at time t was drawn: the slider, the time label and the plots' cursor follow.
  function showTime(index, t) {
    report.index = index;
    report.time = t;
    document.getElementById('time-slider').value = String(index);
    // Short runs (a vibration of 0.08 s) need more digits than 3 to tell the steps apart.
    const digits = t !== 0 && Math.abs(t) < 0.1 ? 5 : 3;
    document.getElementById('time-label').textContent = 't = ' + t.toFixed(digits) + ' s';
    setCursors(t);
  }

  // The view follows its box's width when the window changes (a narrower window: a narrower
  // view, not one that hangs out of the page).
  function fitView(viewer, renderer, camera, render) {
    window.addEventListener('resize', () => {
      const w = viewer.clientWidth, h = viewer.clientHeight || 480;
      if (!(w > 0) || w === renderer.domElement.width) return;
      renderer.setSize(w, h);
      camera.aspect = w / h;
      camera.updateProjectionMatrix();
      render();
    });
  }

  async function animate() {
    const anim = data.animation;
    if (!anim) return;
    const { THREE, OrbitControls } = await loadThree();

    const viewer = document.getElementById('viewer');
    const width = viewer.clientWidth || 900, height = viewer.clientHeight || 480;
    const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    renderer.setPixelRatio(1);
    renderer.setSize(width, height);
    renderer.setClearColor(0xf7f7f4);
    viewer.appendChild(renderer.domElement);
    const scene = new THREE.Scene();
    scene.add(new THREE.AmbientLight(0xffffff, 1.2));
    const sun = new THREE.DirectionalLight(0xffffff, 2.0);
    scene.add(sun);

    // The size of the motion: the frames' origins over the run and the solids' sizes.
    const box = new THREE.Box3(new THREE.Vector3(0, 0, 0), new THREE.Vector3(0, 0, 0));
    for (const pose of anim.poses)
      for (let i = 0; i < anim.frames.length; ++i)
        box.expandByPoint(new THREE.Vector3(pose[7 * i], pose[7 * i + 1], pose[7 * i + 2]));
    let extent = box.getSize(new THREE.Vector3()).length();
    for (const s of anim.solids) extent = Math.max(extent, Math.hypot(...s.centre) * 2, ...s.size);
    if (!(extent > 0)) extent = 1;
    const dot = extent / 30;  // the thickness of a rod, the radius of a particle

    // Frames: a group per model frame, nested as in the model; solids inside them.
    const frames = anim.frames.map(() => new THREE.Group());
    for (const f of frames) scene.add(f);  // poses are world poses: no nesting
    const frameOf = (index) => (index >= 0 ? frames[index] : scene);
    const colours = [0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2, 0xedc948, 0xb07aa1];
    anim.solids.forEach((s, k) => {
      const material = new THREE.MeshStandardMaterial({
        color: s.source === 'visual' ? 0xa0a0a0 : colours[k % colours.length],
        roughness: 0.6, metalness: 0.1,
      });
      let geometry;
      const [a, b, c] = s.size;
      if (s.kind === 'rod') {
        geometry = new THREE.CylinderGeometry(dot / 2, dot / 2, Math.max(a, dot), 16);
        geometry.rotateZ(Math.PI / 2);  // along x
      } else if (s.kind === 'disk' || s.kind === 'cylinder') {
        geometry = new THREE.CylinderGeometry(a, a, Math.max(b, dot / 4), 40);
        geometry.rotateX(Math.PI / 2);  // axis along z
      } else if (s.kind === 'box') {
        geometry = new THREE.BoxGeometry(Math.max(a, dot / 4), Math.max(b, dot / 4), Math.max(c, dot / 4));
      } else {
        geometry = new THREE.SphereGeometry(a > 0 ? a : 1.5 * dot, 24, 16);
      }
      const mesh = new THREE.Mesh(geometry, material);
      mesh.position.set(...s.centre);
      mesh.quaternion.set(...s.rotation);
      mesh.name = s.name;
      frameOf(s.frame).add(mesh);
      if (s.stem || (s.source === 'particle' && Math.hypot(...s.centre) > 0)) {
        const stem = new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(0, 0, 0), new THREE.Vector3(...s.centre)]);
        frameOf(s.frame).add(new THREE.Line(stem, new THREE.LineBasicMaterial({ color: 0x333333 })));
      }
    });
    for (const f of frames) f.add(new THREE.AxesHelper(extent / 12));

    // The space the motion takes: the frames with their solids at (up to 60) poses of the run.
    const placeFrames = (pose) => frames.forEach((f, i) => {
      f.position.set(pose[7 * i], pose[7 * i + 1], pose[7 * i + 2]);
      f.quaternion.set(pose[7 * i + 3], pose[7 * i + 4], pose[7 * i + 5], pose[7 * i + 6]);
      f.updateMatrixWorld(true);
    });
    const bounds = new THREE.Box3(new THREE.Vector3(0, 0, 0), new THREE.Vector3(0, 0, 0));
    const every = Math.max(1, Math.floor(anim.poses.length / 60));
    for (let k = 0; k < anim.poses.length; k += every) {
      placeFrames(anim.poses[k]);
      for (const f of frames) bounds.expandByObject(f);
    }
    if (anim.solids.some((s) => s.frame < 0)) bounds.expandByObject(scene);
    const sphere = bounds.getBoundingSphere(new THREE.Sphere());
    const radius = sphere.radius > 0 ? sphere.radius : extent;

    // Springs and dampers: lines whose ends are recomputed from the frames.
    const lines = anim.lines.map((l) => {
      const geometry = new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(), new THREE.Vector3()]);
      const line = new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: l.kind === 'spring' ? 0x2ca02c : 0x9467bd }));
      scene.add(line);
      return { spec: l, line: line };
    });

    // World axes and gravity's direction.
    scene.add(new THREE.AxesHelper(radius / 3));
    const g = new THREE.Vector3(...anim.gravity);
    if (g.length() > 0) {
      const side = new THREE.Vector3(1, 0, 0);
      const arrow = new THREE.ArrowHelper(g.clone().normalize(), sphere.center.clone().add(side.multiplyScalar(radius * 1.1)).sub(g.clone().normalize().multiplyScalar(radius / 4)), radius / 2, 0x444444);
      arrow.name = 'gravity';
      scene.add(arrow);
    }

    // Camera: up against gravity; a planar model in the x-y plane is seen from +z.
    const up = g.length() > 0 ? g.clone().normalize().negate() : new THREE.Vector3(0, 0, 1);
    const camera = new THREE.PerspectiveCamera(40, width / height, radius / 1000, radius * 100);
    camera.up.copy(up);
    const centre = sphere.center.clone();
    let view;
    if (Math.abs(up.z) > 0.9) view = new THREE.Vector3(1, -1.2, 0.7);
    else view = new THREE.Vector3(0.25, 0.3, 1);
    // Far enough that the sphere of the motion fills the view's height (half-angle 20°).
    camera.position.copy(centre).add(view.normalize().multiplyScalar(radius / Math.tan(Math.PI / 9) * 1.15));
    camera.lookAt(centre);
    sun.position.copy(camera.position).add(up.clone().multiplyScalar(radius * 2));
    const controls = new OrbitControls(camera, renderer.domElement);
    controls.target.copy(centre);
    controls.update();

    const a0 = new THREE.Vector3(), b0 = new THREE.Vector3();
    function pointInWorld(frame, p, out) {
      out.set(...p);
      if (frame >= 0) frames[frame].localToWorld(out);
      return out;
    }
    function show(index) {
      index = Math.max(0, Math.min(anim.times.length - 1, index));
      const pose = anim.poses[index];
      frames.forEach((f, i) => {
        f.position.set(pose[7 * i], pose[7 * i + 1], pose[7 * i + 2]);
        f.quaternion.set(pose[7 * i + 3], pose[7 * i + 4], pose[7 * i + 5], pose[7 * i + 6]);
        f.updateMatrixWorld(true);
      });
      for (const { spec, line } of lines) {
        pointInWorld(spec.from_frame, spec.from, a0);
        pointInWorld(spec.to_frame, spec.to, b0);
        line.geometry.setFromPoints([a0, b0]);
      }
      showTime(index, anim.times[index]);
      renderer.render(scene, camera);
    }
    controls.addEventListener('change', () => renderer.render(scene, camera));
    bindTimeline(anim.times, show);
    fitView(viewer, renderer, camera, () => renderer.render(scene, camera));

    report.renderer = renderer;
    report.frames = frames;
    report.show = show;
    report.frameCount = anim.times.length;
    // What is drawn, as numbers (the test compares them before and after the slider moves).
    report.state = () => frames.flatMap((f) => [...f.position.toArray(), ...f.quaternion.toArray()]);
    // Each named solid as drawn: its geometry and the extent of its box along the world's axes.
    report.solids = () => {
      const out = [];
      scene.traverse((o) => {
        if (!o.isMesh || !o.name) return;
        const extent = new THREE.Box3().setFromObject(o).getSize(new THREE.Vector3()).toArray();
        out.push({ name: o.name, geometry: o.geometry.type, extent });
      });
      return out;
    };
    show(0);
  }


  // ---- a flexible body: the mesh deformed by u(t) × amplification, coloured by |u| ------------
  // Colour map (viridis at five stops) from 0 to the largest |u| of the run; the colour bar under
  // the view shows the same ramp.
  const ramp = [[0.267, 0.005, 0.329], [0.231, 0.322, 0.545], [0.129, 0.569, 0.549],
    [0.369, 0.788, 0.384], [0.993, 0.906, 0.144]];
  function colourOf(x, out, k) {
    const s = Math.max(0, Math.min(1, x)) * (ramp.length - 1);
    const i = Math.min(ramp.length - 2, Math.floor(s)), f = s - i;
    for (let c = 0; c < 3; ++c) out[k + c] = ramp[i][c] + f * (ramp[i + 1][c] - ramp[i][c]);
  }

  async function animateFlexible() {
    const flex = data.flexible;
    const { THREE, OrbitControls } = await loadThree();
    const viewer = document.getElementById('viewer');
    const width = viewer.clientWidth || 900, height = viewer.clientHeight || 480;
    const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    renderer.setPixelRatio(1);
    renderer.setSize(width, height);
    renderer.setClearColor(0xf7f7f4);
    viewer.appendChild(renderer.domElement);
    const scene = new THREE.Scene();
    scene.add(new THREE.AmbientLight(0xffffff, 1.4));
    const sun = new THREE.DirectionalLight(0xffffff, 1.8);
    scene.add(sun);

    const n = flex.nodes.length / 3;
    const base = Float32Array.from(flex.nodes);
    const positions = new Float32Array(base);
    const colours = new Float32Array(3 * n);
    const magnitude = new Float32Array(n);
    const extent = flex.extent > 0 ? flex.extent : 1;
    const largest = flex.max_displacement > 0 ? flex.max_displacement : 1;

    // Everything of the body in one group: in the floating frame, or placed by the frame's pose.
    const body = new THREE.Group();
    scene.add(body);
    body.add(new THREE.AxesHelper(extent / 8));
    const poses = flex.poses || [];
    const inWorld = document.getElementById('in-world');

    // Solids: the surface triangles, lit flat on both sides; the undeformed mesh as a ghost.
    let surface = null;
    if (flex.triangles.length > 0) {
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute('position', new THREE.BufferAttribute(positions, 3));
      geometry.setAttribute('color', new THREE.BufferAttribute(colours, 3));
      geometry.setIndex(flex.triangles);
      surface = new THREE.Mesh(geometry, new THREE.MeshStandardMaterial({
        vertexColors: true, side: THREE.DoubleSide, flatShading: true, roughness: 0.7, metalness: 0.0,
      }));
      body.add(surface);
      const ghost = new THREE.BufferGeometry();
      ghost.setAttribute('position', new THREE.BufferAttribute(base, 3));
      ghost.setIndex(flex.triangles);
      body.add(new THREE.Mesh(ghost, new THREE.MeshBasicMaterial({
        color: 0x888888, wireframe: true, transparent: true, opacity: 0.15,
      })));
    }
    // Beams: a tube per segment between its deformed ends, coloured by the ends' mean |u|; the
    // undeformed line as a ghost.
    const tubes = [];
    const radius = extent / 120;
    if (flex.segments.length > 0) {
      const unit = new THREE.CylinderGeometry(radius, radius, 1, 12, 1);
      for (let k = 0; k < flex.segments.length; k += 2) {
        const tube = new THREE.Mesh(unit, new THREE.MeshStandardMaterial({ roughness: 0.6 }));
        body.add(tube);
        tubes.push({ tube, a: flex.segments[k], b: flex.segments[k + 1] });
      }
      const ghost = new THREE.BufferGeometry();
      ghost.setAttribute('position', new THREE.BufferAttribute(base, 3));
      ghost.setIndex(flex.segments);
      body.add(new THREE.LineSegments(ghost, new THREE.LineBasicMaterial({ color: 0x999999 })));
    }

    // Camera: a planar beam (x-y) from +z; a body along x from its side, z up. In the world the
    // sphere holds the body at every pose of its frame.
    const box = new THREE.Box3().setFromArray(base);
    const bodySphere = box.getBoundingSphere(new THREE.Sphere());
    const camera = new THREE.PerspectiveCamera(40, width / height, 1e-6, 1e6);
    if (flex.planar) camera.up.set(0, 1, 0); else camera.up.set(0, 0, 1);
    const controls = new OrbitControls(camera, renderer.domElement);
    function frameView(world) {
      const sphere = bodySphere.clone();
      if (world && poses.length > 0) {
        const points = poses.map((p) => bodySphere.center.clone()
          .applyQuaternion(new THREE.Quaternion(p[3], p[4], p[5], p[6])).add(new THREE.Vector3(p[0], p[1], p[2])));
        sphere.setFromPoints(points);
        sphere.radius += bodySphere.radius;
      }
      const r = Math.max(sphere.radius, extent / 2) * 1.25;
      const view = flex.planar ? new THREE.Vector3(0.15, -0.25, 1) : new THREE.Vector3(0.45, -1, 0.5);
      // Near enough that the body fills the view's width (a long beam, seen from its side).
      const across = Math.atan(Math.tan(Math.PI / 9) * width / height);
      camera.near = r / 1000;
      camera.far = r * 100;
      camera.updateProjectionMatrix();
      camera.position.copy(sphere.center).add(view.normalize().multiplyScalar(1.1 * r / Math.tan(across)));
      camera.lookAt(sphere.center);
      sun.position.copy(camera.position).add(camera.up.clone().multiplyScalar(r * 2));
      controls.target.copy(sphere.center);
      controls.update();
    }
    frameView(false);

    // The colour bar.
    document.getElementById('colour-ramp').style.background = 'linear-gradient(to right, ' +
      ramp.map((c) => 'rgb(' + c.map((x) => Math.round(255 * x)).join(',') + ')').join(', ') + ')';
    document.getElementById('colour-high').textContent = flex.max_displacement.toPrecision(3);

    // Amplification: the number and a logarithmic slider around the page's default.
    const amplificationInput = document.getElementById('amplification');
    const amplificationSlider = document.getElementById('amplification-slider');
    const decade = Math.log10(flex.amplification);
    amplificationSlider.min = String(Math.floor(decade) - 3);
    amplificationSlider.max = String(Math.ceil(decade) + 2);
    let amplification = flex.amplification;

    const a = new THREE.Vector3(), b = new THREE.Vector3(), yAxis = new THREE.Vector3(0, 1, 0);
    const colour = new Float32Array(3);
    function show(index) {
      index = Math.max(0, Math.min(flex.times.length - 1, index));
      const u = flex.displacements[index];
      const scale = flex.unit * amplification;
      for (let i = 0; i < n; ++i) {
        const ux = u[3 * i] * flex.unit, uy = u[3 * i + 1] * flex.unit, uz = u[3 * i + 2] * flex.unit;
        positions[3 * i] = base[3 * i] + scale * u[3 * i];
        positions[3 * i + 1] = base[3 * i + 1] + scale * u[3 * i + 1];
        positions[3 * i + 2] = base[3 * i + 2] + scale * u[3 * i + 2];
        magnitude[i] = Math.hypot(ux, uy, uz);
        colourOf(magnitude[i] / largest, colours, 3 * i);
      }
      if (surface) {
        surface.geometry.attributes.position.needsUpdate = true;
        surface.geometry.attributes.color.needsUpdate = true;
        surface.geometry.computeBoundingSphere();
      }
      for (const t of tubes) {
        a.fromArray(positions, 3 * t.a);
        b.fromArray(positions, 3 * t.b);
        const length = a.distanceTo(b);
        t.tube.position.copy(a).add(b).multiplyScalar(0.5);
        t.tube.quaternion.setFromUnitVectors(yAxis, b.clone().sub(a).normalize());
        t.tube.scale.set(1, length > 0 ? length : 1e-9, 1);
        colourOf((magnitude[t.a] + magnitude[t.b]) / 2 / largest, colour, 0);
        t.tube.material.color.setRGB(colour[0], colour[1], colour[2]);
      }
      if (inWorld && inWorld.checked && poses[index]) {
        const p = poses[index];
        body.position.set(p[0], p[1], p[2]);
        body.quaternion.set(p[3], p[4], p[5], p[6]);
      } else {
        body.position.set(0, 0, 0);
        body.quaternion.identity();
      }
      showTime(index, flex.times[index]);
      renderer.render(scene, camera);
    }
    if (inWorld) inWorld.addEventListener('change', () => { frameView(inWorld.checked); show(report.index); });
    function setAmplification(value, from) {
      if (!(value >= 0) || !isFinite(value)) return;
      amplification = value;
      report.amplification = value;
      if (from !== amplificationInput) amplificationInput.value = String(Number(value.toPrecision(4)));
      if (from !== amplificationSlider && value > 0) amplificationSlider.value = String(Math.log10(value));
      show(report.index);
    }
    amplificationInput.addEventListener('input', () => setAmplification(Number(amplificationInput.value), amplificationInput));
    amplificationSlider.addEventListener('input', () => setAmplification(Math.pow(10, Number(amplificationSlider.value)), amplificationSlider));
    controls.addEventListener('change', () => renderer.render(scene, camera));
    bindTimeline(flex.times, show);
    fitView(viewer, renderer, camera, () => renderer.render(scene, camera));

    report.renderer = renderer;
    report.show = show;
    report.frameCount = flex.times.length;
    report.vertexCount = n;
    report.setAmplification = (v) => setAmplification(v, null);
    report.state = () => Array.from(positions);
    setAmplification(flex.amplification, null);
  }

  const drawn = (data.flexible ? animateFlexible() : animate())
    .catch((e) => { report.errors.push(String(e && e.stack || e)); console.error(e); });
  Promise.all([drawn, equationsSet])
    .finally(() => { report.ready = true; document.body.dataset.ready = 'true'; });
})();
