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
  for (const el of document.querySelectorAll('.tex')) {
    try {
      katex.render(el.dataset.tex, el, { displayMode: true, throwOnError: true, strict: 'ignore' });
      el.classList.add('rendered');
    } catch (e) {
      el.textContent = 'KaTeX could not typeset this block: ' + e.message;
      el.classList.add('tex-error');
      report.errors.push(String(e));
    }
  }

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

  async function animate() {
    const anim = data.animation;
    if (!anim) return;
    const coreUrl = moduleUrl('asset-three-core', []);
    const threeUrl = moduleUrl('asset-three-module', [["'./three.core.js'", JSON.stringify(coreUrl)]]);
    const orbitUrl = moduleUrl('asset-orbit-controls', [["from 'three'", 'from ' + JSON.stringify(threeUrl)]]);
    const THREE = await import(threeUrl);
    const { OrbitControls } = await import(orbitUrl);

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

    const slider = document.getElementById('time-slider');
    const label = document.getElementById('time-label');
    const play = document.getElementById('play');
    const speed = document.getElementById('speed');
    slider.max = String(anim.times.length - 1);
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
      report.index = index;
      report.time = anim.times[index];
      slider.value = String(index);
      label.textContent = 't = ' + report.time.toFixed(3) + ' s';
      setCursors(report.time);
      renderer.render(scene, camera);
    }
    controls.addEventListener('change', () => renderer.render(scene, camera));
    slider.addEventListener('input', () => { stop(); show(Number(slider.value)); });

    let playing = false, startClock = 0, startTime = 0;
    function stop() { playing = false; play.textContent = 'play'; }
    function tick(now) {
      if (!playing) return;
      const t = startTime + (now - startClock) / 1000 * Number(speed.value);
      let i = report.index;
      while (i + 1 < anim.times.length && anim.times[i + 1] <= t) ++i;
      show(i);
      if (i + 1 >= anim.times.length) { stop(); return; }
      requestAnimationFrame(tick);
    }
    play.addEventListener('click', () => {
      if (playing) { stop(); return; }
      if (report.index + 1 >= anim.times.length) show(0);
      playing = true;
      play.textContent = 'pause';
      startClock = performance.now();
      startTime = anim.times[report.index];
      requestAnimationFrame(tick);
    });
    speed.addEventListener('change', () => {
      startClock = performance.now();
      startTime = anim.times[report.index];
    });
    if (anim.times.length < 2) { play.disabled = true; slider.disabled = true; }

    report.renderer = renderer;
    report.frames = frames;
    report.show = show;
    report.frameCount = anim.times.length;
    show(0);
  }

  animate()
    .catch((e) => { report.errors.push(String(e && e.stack || e)); console.error(e); })
    .finally(() => { report.ready = true; document.body.dataset.ready = 'true'; });
})();
