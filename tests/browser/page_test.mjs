// The report page as a reader sees it, measured in Debian's headless Chromium (playwright-core,
// network off), in two parts (tests/browser/run_page.sh):
//
//   --equations PAGE.html ...  at 600, 1024 and 1600 px wide, and after a resize from 1600 to
//     600: no equation number's box meets a glyph of any equation; every glyph and number lies in
//     its block's box, nothing scrolls sideways (neither a block nor the page); every equation
//     keeps its one number; a block set in broken lines has exactly the glyphs of the block as
//     written (no term lost or doubled).
//   --shapes PAGE.html  the page's scene names each body's declared shape (box, cylinder, disk,
//     rod, sphere, and the box read back from a matrix inertia) with its sizes, and the browser
//     draws each as that shape: the three.js geometry, and the extent of the drawn solid along
//     the frame's axes (a rod along y long in y, a disk about x thin in x, a cube not a sphere).
//
// Usage: node page_test.mjs --equations PAGE.html [PAGE.html ...] | --shapes PAGE.html
import path from 'node:path';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const webDir = process.env.APPELL_WEB_DIR ||
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');
const { chromium } = createRequire(path.join(webDir, 'package.json'))('playwright-core');

const [mode, ...files] = process.argv.slice(2);
if ((mode !== '--equations' && mode !== '--shapes') || files.length === 0) {
  console.log('usage: node page_test.mjs --equations PAGE.html ... | --shapes PAGE.html');
  process.exit(2);
}
const userDataDir = fs.mkdtempSync(path.join(process.env.TMPDIR || '/tmp', 'appell-chromium-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.APPELL_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  offline: true,
  viewport: { width: 1600, height: 900 },
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
});

let failures = 0, passes = 0;
function check(where, what, ok, detail = '') {
  if (ok) { ++passes; return; }
  ++failures;
  console.log(`FAIL ${where}: ${what}${detail ? ': ' + detail : ''}`);
}

async function open(file, width) {
  const page = await context.newPage();
  await page.setViewportSize({ width, height: 900 });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto('file://' + path.resolve(file), { waitUntil: 'load' });
  await page.waitForFunction(() => window.appellReport && window.appellReport.ready, null, { timeout: 120000 });
  errors.push(...await page.evaluate(() => window.appellReport.errors));
  return { page, errors };
}

// What the equations look like in the page now (runs in the page).
function measureEquations() {
  const problems = [];
  const round = (r) => `[${Math.round(r.left)}, ${Math.round(r.top)}, ${Math.round(r.right)}, ${Math.round(r.bottom)}]`;
  const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  // The glyphs of a rendered block: the leaves with text, rules and drawn delimiters, outside
  // the number column (KaTeX's 2 px struts, zero-width spaces, are not glyphs).
  const glyphsOf = (root) => [...root.querySelectorAll('.katex-html *')]
    .filter((e) => !e.closest('.katex-tag') && !e.classList.contains('vlist-s') &&
      ((e.children.length === 0 && e.textContent.replace(/[\s\u200b]/g, '') !== '') ||
       e.tagName.toLowerCase() === 'svg' || e.classList.contains('frac-line')));
  const textOf = (root) => glyphsOf(root).map((e) => e.textContent).join('').replace(/[\s\u200b]/g, '')
    .split('').sort().join('');
  const blocks = [...document.querySelectorAll('.tex')];
  let numbers = 0, equations = 0, broken = 0;
  const allGlyphs = [];
  for (const [k, el] of blocks.entries()) {
    const box = el.getBoundingClientRect();
    const glyphs = glyphsOf(el).map((e) => ({ r: e.getBoundingClientRect(), t: e.textContent }))
      .filter((g) => g.r.width > 0 && g.r.height > 0);
    allGlyphs.push(...glyphs);
    const nums = [...el.querySelectorAll('.katex-tag .eqn-num')].map((e) => e.getBoundingClientRect());
    numbers += nums.filter((r) => r.width > 0).length;
    const tex = el.dataset.tex;
    const starred = /^\s*\\begin\{\w+\*\}/.test(tex);
    equations += starred ? 0 : /^\s*\\begin\{align\}/.test(tex) ? tex.split('\\\\').length : 1;
    for (const g of glyphs)
      if (g.r.left < box.left - 1 || g.r.right > box.right + 1 || g.r.top < box.top - 1 || g.r.bottom > box.bottom + 1) {
        problems.push(`block ${k + 1}: glyph '${g.t}' ${round(g.r)} outside its box ${round(box)}`);
        break;
      }
    for (const n of nums)
      if (n.width > 0 && (n.left < box.left - 1 || n.right > box.right + 1)) {
        problems.push(`block ${k + 1}: a number ${round(n)} outside its box ${round(box)}`);
        break;
      }
    if (el.scrollWidth > el.clientWidth) problems.push(`block ${k + 1} scrolls: ${el.scrollWidth} > ${el.clientWidth} px`);
    if (el.classList.contains('broken')) {
      ++broken;
      // The same glyphs as the block typeset as written.
      const written = document.createElement('div');
      written.innerHTML = katex.renderToString(tex, { displayMode: true, strict: 'ignore' });
      if (textOf(written) !== textOf(el)) problems.push(`block ${k + 1}: its broken lines do not have the glyphs it has as written`);
    }
  }
  // No number meets a glyph of any block.
  let meetings = 0;
  for (const el of blocks)
    for (const n of [...el.querySelectorAll('.katex-tag .eqn-num')].map((e) => e.getBoundingClientRect()).filter((r) => r.width > 0))
      for (const g of allGlyphs)
        if (meets(n, g.r) && meetings++ < 5) problems.push(`number ${round(n)} over the glyph '${g.t}' ${round(g.r)}`);
  if (meetings > 5) problems.push(`... ${meetings} numbers over glyphs in all`);
  if (document.documentElement.scrollWidth > window.innerWidth)
    problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${window.innerWidth} px`);
  return { problems, numbers, equations, broken, blocks: blocks.length, glyphs: allGlyphs.length };
}

async function checkEquations(where, page) {
  const m = await page.evaluate(measureEquations);
  check(where, 'equations on the page', m.blocks > 0 && m.glyphs > 0, `${m.blocks} blocks`);
  check(where, 'every equation keeps its number', m.numbers === m.equations, `${m.numbers} numbers, ${m.equations} equations`);
  check(where, 'no number over an equation, nothing out of view', m.problems.length === 0, '\n  ' + m.problems.join('\n  '));
  return m;
}

try {
  if (mode === '--equations') {
    for (const file of files) {
      const name = path.basename(file);
      const brokenAt = {};
      for (const width of [600, 1024, 1600]) {
        const { page, errors } = await open(file, width);
        check(`${name} at ${width} px`, 'no console errors', errors.length === 0, errors.join(' | '));
        const m = await checkEquations(`${name} at ${width} px`, page);
        brokenAt[width] = m.broken;
        console.log(`${name} at ${width} px: ${m.blocks} blocks (${m.broken} set in broken lines), ${m.numbers} numbers`);
        await page.close();
      }
      // Set again when the window changes: from wide to narrow.
      const { page } = await open(file, 1600);
      await page.setViewportSize({ width: 600, height: 900 });
      await page.waitForFunction(() => [...document.querySelectorAll('.tex.rendered')]
        .every((el) => el.dataset.layoutWidth === String(el.clientWidth)), null, { timeout: 30000 });
      const m = await checkEquations(`${name} resized from 1600 to 600 px`, page);
      check(`${name} resized from 1600 to 600 px`, 'set as a page opened at 600 px', m.broken === brokenAt[600], `${m.broken} and ${brokenAt[600]} blocks broken`);
      await page.close();
    }
  } else {
    const file = files[0], name = path.basename(file);
    const { page, errors } = await open(file, 1200);
    check(name, 'no console errors', errors.length === 0, errors.join(' | '));
    await page.evaluate(() => window.appellReport.show(0));
    const { solids, drawn } = await page.evaluate(() => ({
      solids: JSON.parse(document.getElementById('appell-data').textContent).animation.solids,
      drawn: window.appellReport.solids(),
    }));
    // name: declared kind, the scene's sizes, the three.js geometry, the drawn extent along the
    // frame's x, y, z (the frame is the world's at t = 0).
    const expected = {
      cube: ['box', [0.2, 0.2, 0.2], 'BoxGeometry', [0.2, 0.2, 0.2]],
      square_bar: ['box', [0.1, 0.1, 0.6], 'BoxGeometry', [0.1, 0.1, 0.6]],
      even_cylinder: ['cylinder', [0.1, 0.1 * Math.sqrt(3), 0], 'CylinderGeometry', [0.2, 0.2, 0.1 * Math.sqrt(3)]],
      rod_along_y: ['rod', [0.8, 0, 0], 'CylinderGeometry', [null, 0.8, null]],
      // (a thin solid is drawn at least a little thick: its thickness is only checked thin)
      disk_about_x: ['disk', [0.25, 0.0125, 0], 'CylinderGeometry', [null, 0.5, 0.5]],
      ball: ['sphere', [0.15, 0, 0], 'SphereGeometry', [0.3, 0.3, 0.3]],
      lumpy: ['box', null, 'BoxGeometry', null],  // a matrix inertia: the box read back
    };
    const near = (a, b) => Math.abs(a - b) <= 1e-6 + 0.02 * Math.abs(b);
    for (const [body, [kind, size, geometry, extent]] of Object.entries(expected)) {
      const solid = solids.find((s) => s.name === body);
      check(name, `${body} in the scene`, !!solid);
      if (!solid) continue;
      check(name, `${body}: the scene names a ${kind}`, solid.kind === kind, solid.kind);
      if (size) check(name, `${body}: its sizes as declared`, size.every((x, k) => near(solid.size[k], x)), JSON.stringify(solid.size));
      const d = drawn.find((s) => s.name === body);
      check(name, `${body}: drawn`, !!d);
      if (!d) continue;
      check(name, `${body}: drawn as ${geometry}`, d.geometry === geometry, d.geometry);
      if (extent) check(name, `${body}: its extent along the frame's axes`, extent.every((x, k) => x === null || near(d.extent[k], x)), JSON.stringify(d.extent));
      if (kind === 'disk') check(name, `${body}: thin along its axis`, d.extent[0] < 0.2 * d.extent[1], JSON.stringify(d.extent));
    }
    await page.close();
  }
} finally {
  await context.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
}
console.log(`${passes} passed, ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
