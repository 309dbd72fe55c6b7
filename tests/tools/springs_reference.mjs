// springs_reference.mjs — the independent reference for marrow's spring
// bones: three-vrm's own implementation (@pixiv/three-vrm-springbone, MIT)
// under Node loads a glTF with VRMC_springBone through three's GLTFLoader
// and the VRMSpringBoneLoaderPlugin, drives it with a motion, steps 60 times
// a second and writes every spring joint's (and tip's) world position per
// frame to JSON. tests/test_springs_vrm.c runs marrow's "frame" mode on the
// same file and motion and compares.
//
// Needs npm (not run by `make test`; the JSON it wrote is committed):
//   mkdir -p /tmp/vrmref && cd /tmp/vrmref && npm install three @pixiv/three-vrm-springbone
//   NODE_PATH=/tmp/vrmref/node_modules node tests/tools/springs_reference.mjs \
//       tests/data/springs/spring_rig.gltf tests/data/springs/spring_rig_three_vrm.json
//
// The motion (keep it the same as motion() in tests/test_springs_vrm.c): the
// root walks, sways and turns (the character's placement), the hips bob and
// rock, the chest twists and the head nods; at 4 s the walk stops dead
// (the bob dies out over a quarter second) and the body turns for a second.
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

// the ES modules, so three is one instance for the loader, the plugin and us
const modules = process.env.NODE_PATH || 'node_modules';
const at = (p) => pathToFileURL(`${modules}/${p}`).href;
const THREE = await import(at('three/build/three.module.js'));
const { GLTFLoader } = await import(at('three/examples/jsm/loaders/GLTFLoader.js'));
const { VRMSpringBoneLoaderPlugin } = await import(at('@pixiv/three-vrm-springbone/lib/three-vrm-springbone.module.js'));

const [, , inPath, outPath, secondsArg] = process.argv;
const seconds = Number(secondsArg || 10), fps = 60;
const text = readFileSync(inPath, 'utf8');

const loader = new GLTFLoader();
loader.register((parser) => new VRMSpringBoneLoaderPlugin(parser));
const gltf = await new Promise((ok, fail) => loader.parse(text, '', ok, fail));
const manager = gltf.userData.vrmSpringBoneManager;
const scene = gltf.scene;
const byName = (n) => scene.getObjectByName(n);

// what to record: every spring joint and the tip of every chain, by name
const json = JSON.parse(text);
const names = [];
for (const s of json.extensions.VRMC_springBone.springs)
  for (const j of s.joints) names.push(json.nodes[j.node].name);
const objects = names.map(byName);

const q = (ax, ay, az, angle) => new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(ax, ay, az), angle);
// smooth 0..1 ramp over [a, b]
const ramp = (t, a, b) => (t <= a ? 0 : t >= b ? 1 : (t - a) / (b - a));
function motion(t) {
  const stop = ramp(t, 4, 4.001);        // the walk stops at 4 s
  const tw = Math.min(t, 4);
  return {
    root_t: [0.4 * Math.sin(1.3 * tw), 0, 1.1 * tw + 0.2 * Math.sin(2.6 * tw)],
    root_yaw: 0.9 * Math.sin(0.9 * tw) + stop * 1.2 * ramp(t, 4, 5),
    hips_y: 0.95 + (1 - ramp(t, 4, 4.25)) * 0.04 * Math.sin(6.4 * t),
    hips_x: 0.25 * Math.sin(3.2 * t), hips_z: 0.15 * Math.sin(2.1 * t),
    chest_y: 0.4 * Math.sin(2.3 * t), head_x: 0.3 * Math.sin(1.7 * t + 1),
  };
}
function apply(t) {
  const m = motion(t);
  byName('root').position.fromArray(m.root_t);
  byName('root').quaternion.copy(q(0, 1, 0, m.root_yaw));
  byName('hips').position.set(0, m.hips_y, 0);
  byName('hips').quaternion.copy(q(1, 0, 0, m.hips_x).multiply(q(0, 0, 1, m.hips_z)));
  byName('chest').quaternion.copy(q(0, 1, 0, m.chest_y));
  byName('head').quaternion.copy(q(1, 0, 0, m.head_x));
}

const frames = [];
const v = new THREE.Vector3();
for (let f = 0; f <= seconds * fps; f++) {
  apply(f / fps);
  if (f === 0) {
    scene.updateMatrixWorld(true);
    manager.reset();
  } else {
    manager.update(1 / fps);     // what VRM.update(delta) does for the springs
  }
  scene.updateMatrixWorld(true);   // the render that follows
  const row = [];
  for (const o of objects) {
    o.getWorldPosition(v);
    row.push(+v.x.toFixed(7), +v.y.toFixed(7), +v.z.toFixed(7));
  }
  frames.push(row);
}
writeFileSync(outPath, JSON.stringify({
  generator: 'tests/tools/springs_reference.mjs with @pixiv/three-vrm-springbone',
  model: inPath, fps, seconds, joints: names, frames,
}) + '\n');
console.log(`${outPath}: ${frames.length} frames of ${names.length} joints`);
