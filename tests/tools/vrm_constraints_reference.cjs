// vrm_constraints_reference.cjs — the independent reference for marrow's VRM
// node constraints and look-at: three-vrm's own classes (@pixiv/three-vrm-
// node-constraint's VRMNodeConstraintManager with its roll, aim and rotation
// constraints; @pixiv/three-vrm-core's VRMLookAt with its bone and expression
// appliers; MIT) on the node tree of a .gltf/.vrm, posed as asked. It prints
// the constrained joints' local rotations and, for each look-at target, yaw,
// pitch, the eyes' local rotations and the look expression weights, as JSON.
// tests/test_vrm_constraints.c holds the numbers it printed for
// tests/data/vrm/constraints.gltf and the VRM consortium's sample.
//
// Needs npm (not run by `make test`):
//   mkdir -p /tmp/vrmc-ref && cd /tmp/vrmc-ref && npm install three \
//       @pixiv/three-vrm-node-constraint @pixiv/three-vrm-core
//   NODE_PATH=/tmp/vrmc-ref/node_modules node tests/tools/vrm_constraints_reference.cjs \
//       tests/data/vrm/constraints.gltf '[["hips",[0.3,1,0.1],25], ...]' '[[0.5,1.9,1.0], ...]'
// (the pose: [joint, axis, degrees] local rotations; the targets in model space;
// the lists in test_vrm_constraints.c). VRM 0.x files (firstPerson) face -Z:
// faceFront is set as three-vrm's loader does.
const THREE = require('three');
const NC = require('@pixiv/three-vrm-node-constraint');
const core = require('@pixiv/three-vrm-core');
const fs = require('fs');

const [, , path, setsArg, targetsArg] = process.argv;
const buf = fs.readFileSync(path);
const doc = buf.readUInt32LE(0) === 0x46546c67      // "glTF": a .glb / .vrm, its JSON chunk
  ? JSON.parse(buf.subarray(20, 20 + buf.readUInt32LE(12)).toString('utf8'))
  : JSON.parse(buf.toString('utf8'));

// the node tree as three.js objects (TRS as the file gives them)
const objs = doc.nodes.map((n) => {
  const o = new THREE.Object3D();
  o.name = n.name;
  if (n.matrix) new THREE.Matrix4().fromArray(n.matrix).decompose(o.position, o.quaternion, o.scale);
  if (n.translation) o.position.fromArray(n.translation);
  if (n.rotation) o.quaternion.fromArray(n.rotation);
  if (n.scale) o.scale.fromArray(n.scale);
  return o;
});
doc.nodes.forEach((n, i) => (n.children || []).forEach((c) => objs[i].add(objs[c])));
const scene = new THREE.Scene();
doc.scenes[doc.scene || 0].nodes.forEach((i) => scene.add(objs[i]));
scene.updateMatrixWorld(true);

// constraints, set up at rest as the loader plugin does
const manager = new NC.VRMNodeConstraintManager();
doc.nodes.forEach((n, i) => {
  const e = n.extensions && n.extensions.VRMC_node_constraint;
  if (!e) return;
  const c = e.constraint;
  let k;
  if (c.roll) { k = new NC.VRMRollConstraint(objs[i], objs[c.roll.source]); k.rollAxis = c.roll.rollAxis; if (c.roll.weight != null) k.weight = c.roll.weight; }
  else if (c.aim) { k = new NC.VRMAimConstraint(objs[i], objs[c.aim.source]); k.aimAxis = c.aim.aimAxis; if (c.aim.weight != null) k.weight = c.aim.weight; }
  else { k = new NC.VRMRotationConstraint(objs[i], objs[c.rotation.source]); if (c.rotation.weight != null) k.weight = c.rotation.weight; }
  manager.addConstraint(k);
});
manager.setInitState();

// look-at, built at rest (VRMC_vrm.lookAt, or VRM 0.x's firstPerson)
const v0 = !(doc.extensions && doc.extensions.VRMC_vrm);
let bones = {}, la;
if (!v0) {
  bones = doc.extensions.VRMC_vrm.humanoid.humanBones;
  la = doc.extensions.VRMC_vrm.lookAt;
} else {
  const fp = doc.extensions.VRM.firstPerson, off = fp.firstPersonBoneOffset || {};
  for (const b of doc.extensions.VRM.humanoid.humanBones) bones[b.bone] = { node: b.node };
  const map = (x) => x && { inputMaxValue: x.xRange, outputScale: x.yRange };
  la = { type: fp.lookAtTypeName === 'BlendShape' ? 'expression' : 'bone',
    offsetFromHeadBone: [off.x || 0, off.y != null ? off.y : 0.06, -(off.z || 0)],
    rangeMapHorizontalInner: map(fp.lookAtHorizontalInner), rangeMapHorizontalOuter: map(fp.lookAtHorizontalOuter),
    rangeMapVerticalDown: map(fp.lookAtVerticalDown), rangeMapVerticalUp: map(fp.lookAtVerticalUp) };
}
const normalized = { leftEye: new THREE.Object3D(), rightEye: new THREE.Object3D() };
const humanoid = {
  getRawBoneNode: (b) => (bones[b] ? objs[bones[b].node] : null),
  getNormalizedBoneNode: (b) => normalized[b] || null,
};
const weights = {};
const expressions = { setValue: (name, w) => { weights[name] = w; } };
let lookAt = null, applier = null;
if (la) {
  const out = la.type === 'expression' ? 1 : 10;   // the loader's defaults
  const map = (r) => new core.VRMLookAtRangeMap(Math.max(0.01, r && r.inputMaxValue != null ? r.inputMaxValue : 90),
    r && r.outputScale != null ? r.outputScale : out);
  const maps = [map(la.rangeMapHorizontalInner), map(la.rangeMapHorizontalOuter), map(la.rangeMapVerticalDown), map(la.rangeMapVerticalUp)];
  applier = la.type === 'expression' ? new core.VRMLookAtExpressionApplier(expressions, ...maps)
    : new core.VRMLookAtBoneApplier(humanoid, ...maps);
  lookAt = new core.VRMLookAt(humanoid, applier);
  lookAt.offsetFromHeadBone.fromArray(la.offsetFromHeadBone || [0, 0.06, 0]);
  if (v0) { lookAt.faceFront.set(0, 0, -1); if (applier.faceFront) applier.faceFront.set(0, 0, -1); }
}

// the pose, then the constraints
const byName = Object.fromEntries(objs.map((o) => [o.name, o]));
for (const [name, axis, deg] of JSON.parse(setsArg || '[]'))
  byName[name].quaternion.setFromAxisAngle(new THREE.Vector3(...axis).normalize(), (deg * Math.PI) / 180);
scene.updateMatrixWorld(true);
manager.update();
scene.updateMatrixWorld(true);

const result = { constraints: {}, look: [] };
for (const c of manager.constraints) result.constraints[c.destination.name] = c.destination.quaternion.toArray();
const eyes = [humanoid.getRawBoneNode('leftEye'), humanoid.getRawBoneNode('rightEye')];
const saved = eyes.map((e) => e && e.quaternion.clone());
for (const t of JSON.parse(targetsArg || '[]')) {
  if (!lookAt) break;
  eyes.forEach((e, i) => e && e.quaternion.copy(saved[i]));
  for (const k in weights) delete weights[k];
  lookAt.lookAt(new THREE.Vector3(...t));
  applier.applyYawPitch(lookAt.yaw, lookAt.pitch);
  result.look.push({ target: t, yaw: lookAt.yaw, pitch: lookAt.pitch,
    leftEye: eyes[0] && eyes[0].quaternion.toArray(), rightEye: eyes[1] && eyes[1].quaternion.toArray(),
    weights: [weights.lookLeft || 0, weights.lookRight || 0, weights.lookUp || 0, weights.lookDown || 0] });
}
console.log(JSON.stringify(result, null, 1));
