// Tumble's browser viewer: plays a run's animation.glb (three.js) with play, pause, scrub,
// speed and camera follow, and plots a channel of its timeseries.csv with a cursor synced to the
// animation's time. Everything is fetched from the local `tumble view` server under /run/.
import * as THREE from "three";
import { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";

const $ = (id) => document.getElementById(id);
const host = $("scene");
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio);
host.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x15171c);
scene.add(new THREE.HemisphereLight(0xffffff, 0x333344, 1.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.5);
sun.position.set(3, 5, 4);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(45, 1, 0.001, 1e7);
const controls = new OrbitControls(camera, renderer.domElement);

let mixer = null, action = null, duration = 0, playing = true, follow = null;
const followOffset = new THREE.Vector3();

function resize() {
  const w = host.clientWidth, h = host.clientHeight;
  renderer.setSize(w, h);
  camera.aspect = w / Math.max(h, 1);
  camera.updateProjectionMatrix();
  drawPlot();
}
window.addEventListener("resize", resize);

function frameAll(object) {
  const box = new THREE.Box3().setFromObject(object);
  const size = box.getSize(new THREE.Vector3()).length() || 1;
  const centre = box.getCenter(new THREE.Vector3());
  camera.position.copy(centre).add(new THREE.Vector3(0.6, 0.5, 0.8).multiplyScalar(size));
  camera.near = size / 1e4;
  camera.far = size * 1e3;
  camera.updateProjectionMatrix();
  controls.target.copy(centre);
  controls.update();
}

new GLTFLoader().load(
  "/run/animation.glb",
  (gltf) => {
    scene.add(gltf.scene);
    frameAll(gltf.scene);
    const clip = gltf.animations[0];
    if (clip) {
      mixer = new THREE.AnimationMixer(gltf.scene);
      action = mixer.clipAction(clip);
      action.play();
      duration = clip.duration;
      $("time").max = String(duration);
      // Bodies to follow: nodes that move and are not scaled (arrows, strands and the shapes of
      // deforming surfaces are).
      const track = (t) => t.name.split(".");
      const scaled = new Set(clip.tracks.filter((t) => track(t)[1] === "scale").map((t) => track(t)[0]));
      const moving = new Set(clip.tracks.filter((t) => track(t)[1] === "position").map((t) => track(t)[0]));
      for (const n of moving) if (!scaled.has(n)) $("follow").add(new Option(n, n));
    }
    $("status").textContent = "";
    // `?t=SECONDS` opens paused at that time (links to an instant; tests).
    const t = new URLSearchParams(location.search).get("t");
    if (t !== null && action) window.tumbleSeek(Number(t));
  },
  undefined,
  (err) => { $("status").textContent = "cannot load /run/animation.glb: " + err; },
);

// Plots: one channel of timeseries.csv, the cursor at the animation's time.
let table = null;
fetch("/run/timeseries.csv").then((r) => (r.ok ? r.text() : "")).then((text) => {
  const lines = text.trim().split("\n");
  if (lines.length < 2) return;
  const names = lines[0].split(",");
  const rows = lines.slice(1).map((l) => l.split(",").map(Number));
  table = { names, rows };
  names.slice(1).forEach((n, i) => $("channel").add(new Option(n, String(i + 1))));
  const guess = names.findIndex((n, i) => i > 0 && /energy|force|speed|z/.test(n));
  $("channel").value = String(guess > 0 ? guess : 1);
  drawPlot();
});

function currentTime() { return action ? action.time : 0; }

function drawPlot() {
  const c = $("plot");
  c.width = c.clientWidth * devicePixelRatio;
  c.height = c.clientHeight * devicePixelRatio;
  const g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  if (!table) return;
  const col = Number($("channel").value);
  const t = table.rows.map((r) => r[0]), y = table.rows.map((r) => r[col]);
  const ok = y.filter(Number.isFinite);
  if (!ok.length) return;
  const [t0, t1] = [t[0], t[t.length - 1] || 1];
  let [y0, y1] = [Math.min(...ok), Math.max(...ok)];
  if (y1 === y0) { y0 -= 1; y1 += 1; }
  const pad = 40 * devicePixelRatio;
  const X = (v) => pad + ((v - t0) / (t1 - t0 || 1)) * (c.width - 2 * pad);
  const Y = (v) => c.height - pad / 2 - ((v - y0) / (y1 - y0)) * (c.height - pad);
  g.strokeStyle = "#6cf"; g.lineWidth = devicePixelRatio; g.beginPath();
  t.forEach((tv, i) => (i ? g.lineTo(X(tv), Y(y[i])) : g.moveTo(X(tv), Y(y[i]))));
  g.stroke();
  g.fillStyle = "#aaa"; g.font = `${11 * devicePixelRatio}px sans-serif`;
  g.fillText(`${table.names[col]}   [${y0.toPrecision(4)}, ${y1.toPrecision(4)}]`, pad, 14 * devicePixelRatio);
  g.strokeStyle = "#fc6"; g.beginPath();
  g.moveTo(X(currentTime()), 0); g.lineTo(X(currentTime()), c.height); g.stroke();
}
$("channel").addEventListener("change", drawPlot);

$("play").addEventListener("click", () => { playing = !playing; $("play").textContent = playing ? "pause" : "play"; });
$("time").addEventListener("input", (e) => {
  if (!action) return;
  action.time = Number(e.target.value);
  mixer.update(0);
});
$("follow").addEventListener("change", (e) => {
  follow = e.target.value ? scene.getObjectByName(e.target.value) : null;
  if (follow) followOffset.copy(camera.position).sub(follow.getWorldPosition(new THREE.Vector3()));
});

const clock = new THREE.Clock();
function tick() {
  const dt = clock.getDelta();
  if (mixer && playing) {
    mixer.update(dt * Number($("speed").value));
    if (action.time >= duration) action.time = 0;
    $("time").value = String(action.time);
  }
  if (follow) {
    const p = follow.getWorldPosition(new THREE.Vector3());
    camera.position.copy(p).add(followOffset);
    controls.target.copy(p);
  }
  $("clock").textContent = `${currentTime().toFixed(2)} s`;
  controls.update();
  renderer.render(scene, camera);
  drawPlot();
  requestAnimationFrame(tick);
}
resize();
tick();
// Pauses at time `t` (s).
window.tumbleSeek = (t) => {
  playing = false;
  $("play").textContent = "play";
  if (action) { action.time = Math.min(Math.max(t, 0), duration); mixer.update(0); $("time").value = String(action.time); }
};
