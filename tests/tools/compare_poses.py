#!/usr/bin/env python3
"""compare_poses.py — compares posed meshes for tests/cli_reference.sh.

  compare_poses.py match REST.obj POSED.obj REF.txt [POSED.obj REF.txt ...]
      REST.obj / POSED.obj: `marrow pose --rest` and `marrow pose ...` of one
      model (same vertex order); REF.txt: assimp_pose output (rest and posed
      position per vertex, see tests/tools/assimp_pose.c), in the same frame.
      Vertex correspondence: the two readers split vertices differently
      (marrow de-duplicates per index tuple, assimp keeps one vertex per
      corner), so each marrow vertex is paired with the assimp vertices whose
      REST position lies within 1e-4 (0.01 %) of the bounding-box diagonal of its own;
      among several, the one with the nearest rest normal and uv. Never by the
      posed position (that would hide the errors being measured). The rest
      pose, not the bind pose: assimp keeps COLLADA's bind shape matrix in
      its offset matrices, so only skinned positions are comparable; a rest
      pose that disagrees shows as unmatched vertices and as the rest distance.
      Prints per pair: "worst W% mean M% at VERTEX matched N/T unmatched U
      rest R% diag D": W the largest posed distance over matched vertices,
      R the largest nearest-vertex distance between the rest poses (either
      way), in percent of marrow's rest-pose bounding-box
      diagonal.

  compare_poses.py joints REST.obj POSED.obj REF.txt [POSED.obj REF.txt ...]
      For models without meshes (BVH): REST.obj / POSED.obj are `marrow pose`
      skeletons ("# joint I NAME" before each v line), REF.txt is
      `assimp_pose --joints` ("joint NAME x y z"). Joints are paired by name;
      assimp names an End Site "EndSite_P", marrow "P_end". Prints per pair:
      "worst W% mean M% at JOINT matched N/T unmatched U diag D", W the
      largest distance in percent of the diagonal of REST's joint bounds.

  compare_poses.py joints-rooted REST.obj POSED.obj REF.txt [...]
      The same with each side's positions taken relative to its root joint
      (marrow's first): for rest poses, where marrow stands a BVH root at its
      frame-0 position and assimp at its OFFSET (src/formats/bvh.h).

  compare_poses.py points A.obj B.obj
      Symmetric nearest-vertex distance between two OBJ vertex sets (for meshes
      that share no vertex order, as the Khronos CTS references), in percent of
      A's bounding-box diagonal: "worst W% diag D".
"""
import math
import sys


def read_obj(path):
    v, n, t = [], [], []
    with open(path) as f:
        for line in f:
            if line.startswith('v '):
                v.append(tuple(float(x) for x in line.split()[1:4]))
            elif line.startswith('vn '):
                n.append(tuple(float(x) for x in line.split()[1:4]))
            elif line.startswith('vt '):
                t.append(tuple(float(x) for x in line.split()[1:3]))
    return v, n, t


def read_ref(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith('#') or line.startswith('mesh '):
                continue
            x = [float(a) for a in line.split()]
            if len(x) == 11:
                rows.append(x)
    return rows


def diagonal(points):
    lo = [min(p[i] for p in points) for i in range(3)]
    hi = [max(p[i] for p in points) for i in range(3)]
    return math.dist(lo, hi)


class Grid:
    def __init__(self, points, cell):
        self.cell = cell
        self.cells = {}
        for i, p in enumerate(points):
            self.cells.setdefault(self.key(p), []).append(i)

    def key(self, p):
        return tuple(int(math.floor(c / self.cell)) for c in p)

    def near(self, p):
        k = self.key(p)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    yield from self.cells.get((k[0] + dx, k[1] + dy, k[2] + dz), ())


def match(rest_obj, pairs):
    rest, nrm, uv = read_obj(rest_obj)
    if not rest:
        print("error: no vertices in %s" % rest_obj)
        return 1
    diag = diagonal(rest)
    eps = 1e-4 * diag
    cap = 0.02 * diag
    pairing = None
    for posed_obj, ref_txt in pairs:
        posed, _, _ = read_obj(posed_obj)
        ref = read_ref(ref_txt)
        if len(rest) != len(posed) or not ref:
            print("error: %d rest, %d posed, %d reference vertices" % (len(rest), len(posed), len(ref)))
            return 1
        if pairing is None:
            pairing, rest_worst = pair(rest, nrm, uv, ref, eps, cap)
        worst, total, at, matched = 0.0, 0.0, -1, 0
        for i, j in enumerate(pairing):
            if j is None or j >= len(ref):
                continue
            matched += 1
            d = math.dist(posed[i], ref[j][3:6])
            total += d
            if d > worst:
                worst, at = d, i
        n = len(rest)
        print("worst %.4f%% mean %.4f%% at %d matched %d/%d unmatched %d rest %.4f%% diag %.6g" %
              (100 * worst / diag, 100 * total / max(matched, 1) / diag, at, matched, n, n - matched,
               100 * rest_worst / diag, diag))
    return 0


def pair(rest, nrm, uv, ref, eps, cap):
    """For each marrow vertex, the assimp vertex at its rest position (within
    eps; nearest normal and uv among several), or None. Also the rest-pose
    distance: the largest nearest-vertex distance either way, capped."""
    # Two grids each way: cells of eps hold every point within eps of a
    # query in its 27 cells, so a vertex with a match there has its nearest
    # distance there too (at most eps); only the others search the cells of
    # cap (the same minimum, found among far more points).
    ref_pts = [r[0:3] for r in ref]
    fine, grid = Grid(ref_pts, eps), Grid(ref_pts, cap)
    pairing, rest_worst = [], 0.0
    for i, b in enumerate(rest):
        best, score, near = None, None, cap
        for j in sorted(fine.near(b)):
            r = ref[j]
            d = math.dist(b, r[0:3])
            near = min(near, d)
            if d > eps:
                continue
            s = 0.0
            if i < len(nrm) and any(r[6:9]):
                s += math.dist(nrm[i], r[6:9])
            if i < len(uv):
                s += math.dist(uv[i], r[9:11])
            if score is None or s < score:
                best, score = j, s
        pairing.append(best)
        if best is None:
            near = min([math.dist(b, ref_pts[j]) for j in grid.near(b)] + [cap])
            if near >= cap and len(ref) < 100000:  # beyond the grid: search all
                near = min(math.dist(b, r[0:3]) for r in ref)
        rest_worst = max(rest_worst, near)
    fine_back, back = Grid(rest, eps), Grid(rest, cap)
    for p in ref_pts:
        near = min([math.dist(p, rest[i]) for i in fine_back.near(p)] + [cap])
        if near > eps:
            near = min([math.dist(p, rest[i]) for i in back.near(p)] + [cap])
            if near >= cap and len(rest) < 100000:
                near = min(math.dist(p, q) for q in rest)
        rest_worst = max(rest_worst, near)
    return pairing, rest_worst


def points(a_obj, b_obj):
    a, _, _ = read_obj(a_obj)
    b, _, _ = read_obj(b_obj)
    if not a or not b:
        print("error: %d and %d vertices" % (len(a), len(b)))
        return 1
    diag = diagonal(a)
    cap = 0.02 * diag  # cells of 2%: anything further reads as 2%
    ga, gb = Grid(a, cap), Grid(b, cap)
    worst = 0.0
    for p, other, g in ((a, b, gb), (b, a, ga)):
        for q in p:
            d = min([math.dist(q, other[j]) for j in g.near(q)] + [cap])
            worst = max(worst, d)
    print("worst %.4f%% diag %.6g" % (100 * worst / diag, diag))
    return 0


def read_joints_obj(path):
    names, pos, name = [], [], None
    with open(path) as f:
        for line in f:
            if line.startswith('# joint '):
                name = line.split(None, 3)[3].strip()
            elif line.startswith('v '):
                names.append(name)
                pos.append(tuple(float(x) for x in line.split()[1:4]))
                name = None
    return names, pos


def read_joints_ref(path):
    ref = {}
    with open(path) as f:
        for line in f:
            if line.startswith('joint '):
                _, name, x, y, z = line.split()
                if name.startswith('EndSite_'):
                    name = name[len('EndSite_'):] + '_end'
                ref[name] = (float(x), float(y), float(z))
    return ref


def joints(rest_obj, pairs, rooted=False):
    _, rest = read_joints_obj(rest_obj)
    if not rest:
        print("error: no joints in %s" % rest_obj)
        return 1
    diag = diagonal(rest)
    for posed_obj, ref_txt in pairs:
        names, posed = read_joints_obj(posed_obj)
        ref = read_joints_ref(ref_txt)
        if rooted and names and names[0] in ref:
            o, r0 = posed[0], ref[names[0]]
            posed = [tuple(a - b for a, b in zip(p, o)) for p in posed]
            ref = {k: tuple(a - b for a, b in zip(v, r0)) for k, v in ref.items()}
        worst, total, at, matched = 0.0, 0.0, '-', 0
        for name, p in zip(names, posed):
            if name not in ref:
                continue
            matched += 1
            d = math.dist(p, ref[name])
            total += d
            if d > worst:
                worst, at = d, name
        n = len(names)
        print("worst %.4f%% mean %.4f%% at %s matched %d/%d unmatched %d diag %.6g" %
              (100 * worst / diag, 100 * total / max(matched, 1) / diag, at, matched, n, n - matched, diag))
    return 0


if __name__ == '__main__':
    if len(sys.argv) >= 5 and len(sys.argv) % 2 == 1 and sys.argv[1] in ('joints', 'joints-rooted'):
        sys.exit(joints(sys.argv[2], list(zip(sys.argv[3::2], sys.argv[4::2])), sys.argv[1] == 'joints-rooted'))
    if len(sys.argv) >= 5 and len(sys.argv) % 2 == 1 and sys.argv[1] == 'match':
        sys.exit(match(sys.argv[2], list(zip(sys.argv[3::2], sys.argv[4::2]))))
    if len(sys.argv) == 4 and sys.argv[1] == 'points':
        sys.exit(points(*sys.argv[2:4]))
    sys.stderr.write(__doc__)
    sys.exit(2)
