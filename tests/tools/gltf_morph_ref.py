#!/usr/bin/env python3
"""gltf_morph_ref.py — an independent glTF 2.0 reader for tests/cli_morph.sh,
written from the specification (sections 3.6 Accessors, 3.7.2.2 Morph
Targets, 3.7.3 Skins, 3.11 Animations, Appendix C interpolation), sharing
no code with marrow.

  gltf_morph_ref.py pose MODEL.gltf ANIM TIME
      Prints one "v x y z" line per vertex of every triangle primitive, nodes
      in depth-first order from the scene's roots, primitives in file order
      (marrow pose's order): the morphed vertex (base + sum w_k * delta_k,
      weights from animation ANIM's weights channel at TIME seconds, the
      mesh's `weights` otherwise; ANIM "-" for no animation), skinned with
      the skin's joint matrices (world * inverse bind) when the node has a
      skin, else moved by the node's world matrix. Node TRS come from the
      animation's channels at TIME (clamped to the keys). Times outside a
      sampler's keys hold its end keys.

  gltf_morph_ref.py compare A.obj B.obj TOL
      Compares the v lines of two OBJ files (same count, same order); prints
      the largest distance as a percent of A's bounding-box diagonal and
      exits 1 when it is above TOL percent.

  gltf_morph_ref.py fixtures DIR
      Writes the small glTF files cli_morph.sh poses and the malformed ones it
      expects refused or warned about (buffers as data: URIs).
"""
import base64
import json
import math
import os
import struct
import sys

COMP = {5120: ('b', 1), 5121: ('B', 1), 5122: ('h', 2), 5123: ('H', 2), 5125: ('I', 4), 5126: ('f', 4)}
NCOMP = {'SCALAR': 1, 'VEC2': 2, 'VEC3': 3, 'VEC4': 4, 'MAT4': 16}
NORM = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0}


def load(path):
    doc = json.load(open(path))
    bufs = []
    for b in doc.get('buffers', []):
        uri = b['uri']
        if uri.startswith('data:'):
            bufs.append(base64.b64decode(uri.split(',', 1)[1]))
        else:
            bufs.append(open(os.path.join(os.path.dirname(path), uri), 'rb').read())
    return doc, bufs


def accessor(doc, bufs, i):
    a = doc['accessors'][i]
    fmt, size = COMP[a['componentType']]
    n = NCOMP[a['type']]
    count = a['count']
    out = [[0.0] * n for _ in range(count)]
    if 'bufferView' in a:
        bv = doc['bufferViews'][a['bufferView']]
        data = bufs[bv['buffer']]
        base = bv.get('byteOffset', 0) + a.get('byteOffset', 0)
        stride = bv.get('byteStride', 0) or n * size
        for k in range(count):
            vals = struct.unpack_from('<' + fmt * n, data, base + k * stride)
            out[k] = [float(v) for v in vals]
    if a.get('normalized') and a['componentType'] in NORM:
        out = [[max(v / NORM[a['componentType']], -1.0) for v in row] for row in out]
    if 'sparse' in a:
        sp = a['sparse']
        ibv = doc['bufferViews'][sp['indices']['bufferView']]
        ifmt, isz = COMP[sp['indices']['componentType']]
        vbv = doc['bufferViews'][sp['values']['bufferView']]
        for k in range(sp['count']):
            idx = struct.unpack_from('<' + ifmt, bufs[ibv['buffer']],
                                     ibv.get('byteOffset', 0) + sp['indices'].get('byteOffset', 0) + k * isz)[0]
            out[idx] = [float(v) for v in struct.unpack_from(
                '<' + fmt * n, bufs[vbv['buffer']],
                vbv.get('byteOffset', 0) + sp['values'].get('byteOffset', 0) + k * n * size)]
    return out


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return [aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz]


def slerp(a, b, t):
    d = sum(x * y for x, y in zip(a, b))
    if d < 0:
        b, d = [-x for x in b], -d
    if d > 0.9995:
        r = [x + (y - x) * t for x, y in zip(a, b)]
    else:
        th = math.acos(d)
        s = math.sin(th)
        r = [(math.sin((1 - t) * th) * x + math.sin(t * th) * y) / s for x, y in zip(a, b)]
    n = math.sqrt(sum(x * x for x in r))
    return [x / n for x in r]


def sample(times, values, interp, t, width, is_rot=False):
    """values: flat rows of `width` floats per key (CUBICSPLINE: 3 per key)."""
    n = len(times)
    per = 3 if interp == 'CUBICSPLINE' else 1

    def val(k):
        return values[(k * per + (1 if per == 3 else 0))]
    if t <= times[0] or n == 1:
        return list(val(0))
    if t >= times[-1]:
        return list(val(n - 1))
    k = max(i for i in range(n) if times[i] <= t)
    t0, t1 = times[k], times[k + 1]
    dt = t1 - t0
    u = (t - t0) / dt
    if interp == 'STEP':
        return list(val(k))
    if interp == 'LINEAR':
        if is_rot:
            return slerp(val(k), val(k + 1), u)
        return [a + (b - a) * u for a, b in zip(val(k), val(k + 1))]
    p0, m0 = values[3 * k + 1], values[3 * k + 2]
    p1, m1 = values[3 * (k + 1) + 1], values[3 * (k + 1)]
    u2, u3 = u * u, u * u * u
    r = [(2 * u3 - 3 * u2 + 1) * a + (u3 - 2 * u2 + u) * dt * b + (-2 * u3 + 3 * u2) * c + (u3 - u2) * dt * d
         for a, b, c, d in zip(p0, m0, p1, m1)]
    if is_rot:
        n_ = math.sqrt(sum(x * x for x in r))
        r = [x / n_ for x in r]
    return r


def mat_trs(t, r, s):
    x, y, z, w = r
    rot = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
           [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
           [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    m = [[rot[i][j] * s[j] for j in range(3)] + [t[i]] for i in range(3)]
    return m + [[0, 0, 0, 1]]


def mmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def mvec(m, v, w=1.0):
    return [m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2] + m[i][3] * w for i in range(3)]


def pose(path, anim, time):
    doc, bufs = load(path)
    nodes = doc['nodes']
    trs = []
    for n in nodes:
        if 'matrix' in n:
            m = n['matrix']
            trs.append(('M', [[m[c * 4 + r] for c in range(4)] for r in range(4)]))
        else:
            trs.append(['T', n.get('translation', [0, 0, 0]), n.get('rotation', [0, 0, 0, 1]),
                        n.get('scale', [1, 1, 1])])
    weights = {}
    if anim != '-':
        an = [a for i, a in enumerate(doc.get('animations', []))
              if a.get('name', 'animation%d' % i) == anim][0]
        for ch in an['channels']:
            tgt = ch['target']
            smp = an['samplers'][ch['sampler']]
            times = [r[0] for r in accessor(doc, bufs, smp['input'])]
            vals = accessor(doc, bufs, smp['output'])
            interp = smp.get('interpolation', 'LINEAR')
            p = tgt['path']
            node = tgt['node']
            if p == 'weights':
                tc = len(doc['meshes'][nodes[node]['mesh']]['primitives'][0]['targets'])
                flat = [r[0] for r in vals]
                rows = [flat[i:i + tc] for i in range(0, len(flat), tc)]
                weights[node] = sample(times, rows, interp, time, tc)
            else:
                v = sample(times, vals, interp, time, len(vals[0]), p == 'rotation')
                trs[node][{'translation': 1, 'rotation': 2, 'scale': 3}[p]] = v
    local = [t[1] if t[0] == 'M' else mat_trs(t[1], t[2], t[3]) for t in trs]
    parent = [-1] * len(nodes)
    for i, n in enumerate(nodes):
        for c in n.get('children', []):
            parent[c] = i
    world = [None] * len(nodes)

    def get_world(i):
        if world[i] is None:
            world[i] = local[i] if parent[i] < 0 else mmul(get_world(parent[i]), local[i])
        return world[i]
    scene = doc['scenes'][doc.get('scene', 0)] if 'scenes' in doc else {'nodes': [i for i in range(len(nodes))
                                                                                   if parent[i] < 0]}
    order = []

    def visit(i):
        order.append(i)
        for c in nodes[i].get('children', []):
            visit(c)
    for r in scene['nodes']:
        visit(r)
    out = []
    for i in order:
        n = nodes[i]
        if 'mesh' not in n:
            continue
        mesh = doc['meshes'][n['mesh']]
        for prim in mesh['primitives']:
            if prim.get('mode', 4) < 4:
                continue
            pos = accessor(doc, bufs, prim['attributes']['POSITION'])
            w = weights.get(i, mesh.get('weights'))
            for k, tgt in enumerate(prim.get('targets', [])):
                if 'POSITION' not in tgt or not w or w[k] == 0:
                    continue
                d = accessor(doc, bufs, tgt['POSITION'])
                pos = [[p[c] + w[k] * d[v][c] for c in range(3)] for v, p in enumerate(pos)]
            if 'skin' in n and 'JOINTS_0' in prim['attributes']:
                skin = doc['skins'][n['skin']]
                ibm = accessor(doc, bufs, skin['inverseBindMatrices'])
                jm = [mmul(get_world(j), [[ibm[q][c * 4 + r] for c in range(4)] for r in range(4)])
                      for q, j in enumerate(skin['joints'])]
                js = accessor(doc, bufs, prim['attributes']['JOINTS_0'])
                ws = accessor(doc, bufs, prim['attributes']['WEIGHTS_0'])
                for v, p in enumerate(pos):
                    acc = [0.0, 0.0, 0.0]
                    for c in range(4):
                        if ws[v][c] > 0:
                            q = mvec(jm[int(js[v][c])], p)
                            acc = [a + ws[v][c] * b for a, b in zip(acc, q)]
                    out.append(acc)
            else:
                out.extend(mvec(get_world(i), p) for p in pos)
    for p in out:
        print('v %.9g %.9g %.9g' % tuple(p))


def read_v(path):
    return [[float(x) for x in line.split()[1:4]] for line in open(path) if line.startswith('v ')]


def compare(a, b, tol):
    va, vb = read_v(a), read_v(b)
    if len(va) != len(vb) or not va:
        print('vertex counts differ: %d and %d' % (len(va), len(vb)))
        return 1
    lo = [min(p[c] for p in va) for c in range(3)]
    hi = [max(p[c] for p in va) for c in range(3)]
    diag = math.sqrt(sum((h - l) ** 2 for h, l in zip(hi, lo))) or 1.0
    worst = max(math.dist(p, q) for p, q in zip(va, vb)) / diag * 100
    print('worst %.6f%% of diag %g' % (worst, diag))
    return 0 if worst <= tol else 1


def skinned(g, blob):
    """The quad on a two-joint skin (shape keys on a skinned mesh, as
    Blender exports them): joint 1 at (0, 0.5, 0) rotates 60 degrees about Z
    over 2 s while the weights channel runs."""
    s = math.sin(math.radians(30))
    c = math.cos(math.radians(30))
    s15, c15 = math.sin(math.radians(15)), math.cos(math.radians(15))
    extra = [struct.pack('<16H', 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0),
             struct.pack('<16f', 1, 0, 0, 0, 1, 0, 0, 0, 0.3, 0.7, 0, 0, 0.3, 0.7, 0, 0),
             struct.pack('<32f', *([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] +
                                   [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -0.5, 0, 1])),
             struct.pack('<12f', 0, 0, 0, 1, 0, 0, s15, c15, 0, 0, s, c)]
    off = len(blob)
    for e in extra:
        g['bufferViews'].append({'buffer': 0, 'byteOffset': off, 'byteLength': len(e)})
        blob += e
        off += len(e)
    nb = len(g['bufferViews'])
    g['accessors'] = g['accessors'] + [
        {'bufferView': nb - 4, 'componentType': 5123, 'count': 4, 'type': 'VEC4'},
        {'bufferView': nb - 3, 'componentType': 5126, 'count': 4, 'type': 'VEC4'},
        {'bufferView': nb - 2, 'componentType': 5126, 'count': 2, 'type': 'MAT4'},
        {'bufferView': nb - 1, 'componentType': 5126, 'count': 3, 'type': 'VEC4'}]
    na = len(g['accessors'])
    g['buffers'][0] = {'byteLength': len(blob),
                       'uri': 'data:application/octet-stream;base64,' + base64.b64encode(blob).decode()}
    prim = dict(g['meshes'][0]['primitives'][0])
    prim['attributes'] = dict(prim['attributes'], JOINTS_0=na - 4, WEIGHTS_0=na - 3)
    g['meshes'][0]['primitives'] = [prim]
    g['nodes'] = [{'name': 'quad', 'mesh': 0, 'skin': 0},
                  {'name': 'root', 'children': [2]}, {'name': 'tip', 'translation': [0, 0.5, 0]}]
    g['scenes'] = [{'nodes': [0, 1]}]
    g['skins'] = [{'joints': [1, 2], 'inverseBindMatrices': na - 2}]
    g['animations'] = [{'name': 'bend', 'channels': [{'sampler': 0, 'target': {'node': 0, 'path': 'weights'}},
                                                     {'sampler': 1, 'target': {'node': 2, 'path': 'rotation'}}],
                        'samplers': [{'input': 5, 'output': 6, 'interpolation': 'LINEAR'},
                                     {'input': 5, 'output': na - 1, 'interpolation': 'LINEAR'}]}]
    return g


def fixtures(d):
    """A quad (4 vertices, 2 triangles) with 2 targets; animations with
    STEP, CUBICSPLINE and LINEAR weights channels; malformed variants."""
    pos = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]
    nrm = [0, 0, 1] * 4
    t0 = [0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]        # lifts the bottom edge
    t1 = [0, 0, 0, 0, 0, 0, 0.5, 0, -1, 0.5, 0, -1]   # moves the top edge
    idx = [0, 1, 2, 0, 2, 3]
    times = [0.0, 1.0, 2.0]
    step = [0.0, 0.0, 1.0, 0.5, 0.25, 1.0]
    # CUBICSPLINE: per key in-tangents (2), values (2), out-tangents (2)
    cubic = [0, 0, 0, 0, 1, -1,
             0.5, 2, 1, 0.5, -1, 0.5,
             0, 0, 0.2, 0.8, 0, 0]

    def f32(v):
        return struct.pack('<%df' % len(v), *v)
    parts = [f32(pos), f32(nrm), f32(t0), f32(t1), struct.pack('<6H', *idx) + b'\0\0', f32(times),
             f32(step), f32(cubic), f32([float('nan')] * 6)]
    blob, views, off = b'', [], 0
    for p in parts:
        views.append({'buffer': 0, 'byteOffset': off, 'byteLength': len(p)})
        blob += p
        off += len(p)
    acc = [{'bufferView': 0, 'componentType': 5126, 'count': 4, 'type': 'VEC3', 'min': [0, 0, 0], 'max': [1, 1, 0]},
           {'bufferView': 1, 'componentType': 5126, 'count': 4, 'type': 'VEC3'},
           {'bufferView': 2, 'componentType': 5126, 'count': 4, 'type': 'VEC3'},
           {'bufferView': 3, 'componentType': 5126, 'count': 4, 'type': 'VEC3'},
           {'bufferView': 4, 'componentType': 5123, 'count': 6, 'type': 'SCALAR'},
           {'bufferView': 5, 'componentType': 5126, 'count': 3, 'type': 'SCALAR', 'min': [0], 'max': [2]},
           {'bufferView': 6, 'componentType': 5126, 'count': 6, 'type': 'SCALAR'},
           {'bufferView': 7, 'componentType': 5126, 'count': 18, 'type': 'SCALAR'},
           {'bufferView': 8, 'componentType': 5126, 'count': 6, 'type': 'SCALAR'}]
    prim = {'attributes': {'POSITION': 0, 'NORMAL': 1}, 'indices': 4,
            'targets': [{'POSITION': 2}, {'POSITION': 3, 'NORMAL': 1}]}

    def doc(mesh_weights=(0.25, 0.5), prims=None, anims=None, names=('lift', 'lean')):
        mesh = {'name': 'quad', 'primitives': prims or [prim], 'extras': {'targetNames': list(names)}}
        if mesh_weights is not None:
            mesh['weights'] = list(mesh_weights)
        g = {'asset': {'version': '2.0'}, 'scene': 0, 'scenes': [{'nodes': [0]}],
             'nodes': [{'name': 'quad', 'mesh': 0, 'translation': [1, 2, 3], 'rotation': [0, 0.3826834, 0, 0.9238795],
                        'scale': [2, 2, 2]}],
             'meshes': [mesh], 'accessors': acc, 'bufferViews': views,
             'buffers': [{'byteLength': len(blob),
                          'uri': 'data:application/octet-stream;base64,' + base64.b64encode(blob).decode()}]}
        g['animations'] = anims if anims is not None else [
            {'name': 'step', 'channels': [{'sampler': 0, 'target': {'node': 0, 'path': 'weights'}}],
             'samplers': [{'input': 5, 'output': 6, 'interpolation': 'STEP'}]},
            {'name': 'linear', 'channels': [{'sampler': 0, 'target': {'node': 0, 'path': 'weights'}}],
             'samplers': [{'input': 5, 'output': 6, 'interpolation': 'LINEAR'}]},
            {'name': 'cubic', 'channels': [{'sampler': 0, 'target': {'node': 0, 'path': 'weights'}}],
             'samplers': [{'input': 5, 'output': 7, 'interpolation': 'CUBICSPLINE'}]}]
        return g
    os.makedirs(d, exist_ok=True)

    def write(name, g):
        json.dump(g, open(os.path.join(d, name), 'w'))
    write('quad.gltf', doc())
    write('skinned_quad.gltf', skinned(doc(), blob))
    no_targets = {k: v for k, v in prim.items() if k != 'targets'}
    one_target = dict(prim, targets=[{'POSITION': 2}])
    write('bad_weights_count.gltf', doc(mesh_weights=(0.25, 0.5, 1.0)))
    write('bad_prim_targets.gltf', doc(prims=[prim, one_target]))
    write('some_prims.gltf', doc(prims=[prim, no_targets]))
    write('bad_channel_count.gltf', doc(anims=[
        {'name': 'short', 'channels': [{'sampler': 0, 'target': {'node': 0, 'path': 'weights'}}],
         'samplers': [{'input': 5, 'output': 7, 'interpolation': 'LINEAR'}]}]))
    write('bad_nan_weight.gltf', doc(anims=[
        {'name': 'nan', 'channels': [{'sampler': 0, 'target': {'node': 0, 'path': 'weights'}}],
         'samplers': [{'input': 5, 'output': 8, 'interpolation': 'LINEAR'}]}]))
    return 0


if __name__ == '__main__':
    cmd = sys.argv[1]
    if cmd == 'pose':
        pose(sys.argv[2], sys.argv[3], float(sys.argv[4]))
        sys.exit(0)
    if cmd == 'compare':
        sys.exit(compare(sys.argv[2], sys.argv[3], float(sys.argv[4])))
    if cmd == 'fixtures':
        sys.exit(fixtures(sys.argv[2]))
    sys.exit(2)
