// Opens appell's HTML reports in Debian's headless Chromium (playwright-core drives it; no
// browser is downloaded) with the network switched off, and checks what a person would see:
// no console error, every equation typeset by KaTeX (no raw TeX left), the plots with their
// series, a WebGL canvas that draws (not blank), and a time slider that moves the mechanism and
// the plots' cursor. A flexible body's page (appell fem --response --report) also has its mesh
// drawn (as many vertices as the page's surface nodes) and an amplification that changes the
// picture. Usage:
//   node report_test.mjs [--screenshot FILE] [--flexible-screenshot FILE] PAGE.html:SERIES,.. [...]
// SERIES are the plot series labels the page must have (e.g. q1,dot(q1),T,V,E).
import path from 'node:path';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// playwright-core as web/package-lock.json installed it (web/node_modules).
const webDir = process.env.APPELL_WEB_DIR ||
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');
const { chromium } = createRequire(path.join(webDir, 'package.json'))('playwright-core');

const args = process.argv.slice(2);
let screenshot = null, flexibleScreenshot = null;
const pages = [];
for (let i = 0; i < args.length; ++i) {
  if (args[i] === '--screenshot') screenshot = args[++i];
  else if (args[i] === '--flexible-screenshot') flexibleScreenshot = args[++i];
  else pages.push(args[i]);
}
let rigidShot = screenshot, flexibleShot = flexibleScreenshot;
const executablePath = process.env.APPELL_CHROMIUM || '/usr/bin/chromium';
const userDataDir = fs.mkdtempSync(path.join(process.env.TMPDIR || '/tmp', 'appell-chromium-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath,
  headless: true,
  offline: true,
  viewport: { width: 1200, height: 900 },
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
});

let failures = 0, passes = 0;
function check(page, what, ok, detail = '') {
  if (ok) { ++passes; return; }
  ++failures;
  console.log(`FAIL ${page}: ${what}${detail ? ': ' + detail : ''}`);
}

try {
  for (const spec of pages) {
    const colon = spec.lastIndexOf(':');
    const file = path.resolve(spec.slice(0, colon));
    const expected = spec.slice(colon + 1).split(',').filter((s) => s.length > 0);
    const name = path.basename(file);
    const page = await context.newPage();
    const errors = [], requests = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto('file://' + file, { waitUntil: 'load' });
    await page.waitForFunction(() => window.appellReport && window.appellReport.ready, null, { timeout: 120000 });
    const state = await page.evaluate(() => ({
      errors: window.appellReport.errors,
      tex: document.querySelectorAll('.tex').length,
      rendered: document.querySelectorAll('.tex.rendered .katex').length,
      texErrors: document.querySelectorAll('.tex-error, .katex-error').length,
      text: document.body.innerText,
      plots: document.querySelectorAll('#plots .uplot').length,
      labels: [...document.querySelectorAll('#plots .u-legend .u-label')].map((e) => e.textContent),
      canvas: !!document.querySelector('#viewer canvas'),
      frames: window.appellReport.frameCount || 0,
      flexible: JSON.parse(document.getElementById('appell-data').textContent).flexible || null,
      vertices: window.appellReport.vertexCount || 0,
    }));
    const flexible = state.flexible;
    check(name, 'no console errors', errors.length === 0 && state.errors.length === 0,
      [...errors, ...state.errors].join(' | '));
    check(name, 'only the page itself is requested (no network)',
      requests.every((u) => /^(file|data|blob):/.test(u)), requests.filter((u) => !/^(file|data|blob):/.test(u)).join(' '));
    check(name, 'equations present', state.tex > 0, `${state.tex} blocks`);
    check(name, 'every equation typeset by KaTeX', state.rendered === state.tex && state.texErrors === 0,
      `${state.rendered} of ${state.tex} rendered, ${state.texErrors} errors`);
    const raw = state.text.match(/\\(frac|begin|end|ddot|dot|left|right|mathrm|cos|sin)\b/);
    check(name, 'no raw TeX left on the page', !raw, raw && raw[0]);
    check(name, 'plots drawn', state.plots >= (flexible ? 2 : 3), `${state.plots} plots`);
    for (const label of expected)
      check(name, `plot series ${label}`, state.labels.includes(label), `labels: ${state.labels.join(' ')}`);
    check(name, 'a WebGL canvas', state.canvas);
    check(name, 'an animation of several frames', state.frames > 10, `${state.frames}`);

    // The canvas draws: pixels other than the background, read back from WebGL (counted in the
    // page; the last picture kept there to count the pixels that change).
    const pixels = () => page.evaluate(() => {
      const gl = window.appellReport.renderer.getContext();
      const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
      const buffer = new Uint8Array(w * h * 4);
      gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, buffer);
      const previous = window.appellTestPicture;
      let drawn = 0, changed = 0;
      for (let p = 0; p < buffer.length; p += 4) {
        if (Math.abs(buffer[p] - 0xf7) + Math.abs(buffer[p + 1] - 0xf7) + Math.abs(buffer[p + 2] - 0xf4) > 30) ++drawn;
        if (previous && (buffer[p] !== previous[p] || buffer[p + 1] !== previous[p + 1] || buffer[p + 2] !== previous[p + 2])) ++changed;
      }
      window.appellTestPicture = buffer;
      return { share: drawn / (w * h), changed };
    });
    const before = await pixels();
    const share = before.share;
    check(name, 'the animation is not blank', share > 0.001, `${(100 * share).toFixed(3)} % of pixels drawn`);
    const shotBefore = await page.locator('#viewer').screenshot();

    // The time slider moves the mechanism (the frames' poses and the pixels) and the plots' cursor.
    if (flexible) {
      // The mesh as the page carries it: every surface node a vertex, the faces or segments there.
      check(name, 'the mesh drawn with every surface node', state.vertices === flexible.nodes.length / 3 && state.vertices > 0,
        `${state.vertices} vertices, ${flexible.nodes.length / 3} nodes`);
      check(name, 'faces or beam segments', flexible.triangles.length + flexible.segments.length > 0);
      const hasControl = await page.evaluate(() => !!document.getElementById('amplification') && !!document.getElementById('colour-ramp').style.background);
      check(name, 'the amplification control and the colour bar', hasControl);
      // At the step of the largest deflection, a bigger amplification moves the mesh on screen.
      await page.evaluate(() => window.appellReport.show(Math.round(window.appellReport.frameCount * 0.5)));
      await pixels();
      const amplification = await page.evaluate(() => window.appellReport.amplification);
      await page.locator('#amplification').fill(String(amplification * 3));
      const amplified = await pixels();
      const now = await page.evaluate(() => window.appellReport.amplification);
      check(name, 'typing an amplification changes the picture', amplified.changed > 50 && Math.abs(now - 3 * amplification) < 1e-9 * now,
        `${amplified.changed} pixels changed, amplification ${amplification} -> ${now}`);
      // With the frame's rigid motion (a mechanism's rod), the body moves in the world.
      if (flexible.poses && flexible.poses.length > 0) {
        await pixels();
        await page.locator('#in-world').check();
        const moved = await pixels();
        check(name, 'the frame\'s rigid motion moves the body', moved.changed > 50, `${moved.changed} pixels changed`);
        await page.locator('#in-world').uncheck();
      }
      await page.evaluate((v) => window.appellReport.setAmplification(v), amplification);
      await page.evaluate(() => window.appellReport.show(0));
      await pixels();
    }
    const poseOf = () => page.evaluate(() => window.appellReport.state());
    const poseBefore = await poseOf();
    const last = state.frames - 1;
    // A rigid mechanism moves by 60 % of the run; a vibrating body may be back where it started
    // then, so its slider goes to the frame of the largest displacement.
    let target = Math.round(last * 0.6);
    if (flexible) {
      let most = -1;
      flexible.displacements.forEach((u, k) => {
        const m = Math.max(...u.map(Math.abs));
        if (m > most) { most = m; target = k; }
      });
    }
    await page.locator('#time-slider').evaluate((el, v) => { el.value = String(v); el.dispatchEvent(new Event('input')); }, target);
    const after = await page.evaluate(() => ({
      index: window.appellReport.index, time: window.appellReport.time,
      cursor: window.appellReport.plots.map((u) => u.cursor.idx),
      cursorTimes: window.appellReport.plots.map((u) => u.data[0][u.cursor.idx]),
      label: document.getElementById('time-label').textContent,
    }));
    const poseAfter = await poseOf();
    const moved = Math.max(...poseAfter.flat().map((x, k) => Math.abs(x - poseBefore.flat()[k])));
    check(name, 'the slider moves the mechanism', moved > 1e-3, `largest change ${moved}`);
    check(name, 'the slider sets the time', after.index === target && after.time > 0 && Math.abs(parseFloat(after.label.slice(4)) - after.time) <= 5e-4 * Math.max(1, Math.abs(after.time)), JSON.stringify(after));
    // The plots keep at least the animation's steps (a flexible page plots more): the cursor is at
    // the same time.
    check(name, "the slider moves the plots' cursor", after.cursorTimes.every((t) => t === after.time), JSON.stringify(after.cursorTimes));
    const changed = (await pixels()).changed;
    check(name, 'the picture changes with the pose', changed > 50, `${changed} pixels changed`);
    const shotAfter = await page.locator('#viewer').screenshot();
    check(name, 'the screenshot changes with the pose', !shotAfter.equals(shotBefore));
    // The user guide's pictures: the first rigid and the first flexible page, their motion part.
    const shot = flexible ? flexibleShot : rigidShot;
    if (shot) {
      if (flexible) flexibleShot = null; else rigidShot = null;
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.locator(flexible ? '#response' : '#motion').screenshot({ path: shot });
    }
    await page.close();
    console.log(`${name}: ${state.tex} equation blocks, ${state.plots} plots, ${state.frames} animation frames, ${(100 * share).toFixed(1)} % of the canvas drawn`);
  }
} finally {
  await context.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
}
console.log(`${passes} passed, ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
