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

    report.renderer = renderer;
    report.frames = frames;
    report.show = show;
    report.frameCount = anim.times.length;
    // What is drawn, as numbers (the test compares them before and after the slider moves).
    report.state = () => frames.flatMap((f) => [...f.position.toArray(), ...f.quaternion.toArray()]);
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

    report.renderer = renderer;
    report.show = show;
    report.frameCount = flex.times.length;
    report.vertexCount = n;
    report.setAmplification = (v) => setAmplification(v, null);
    report.state = () => Array.from(positions);
    setAmplification(flex.amplification, null);
  }

  (data.flexible ? animateFlexible() : animate())
    .catch((e) => { report.errors.push(String(e && e.stack || e)); console.error(e); })
    .finally(() => { report.ready = true; document.body.dataset.ready = 'true'; });
})();
