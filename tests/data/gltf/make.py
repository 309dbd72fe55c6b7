#!/usr/bin/env python3
"""make.py — writes the hand-made glTF cases of tests/test_gltf.c and
tests/cli_gltf.sh (run from this folder; the outputs are committed).

hard.gltf: every buffer a data: URI; a sparse POSITION accessor (vertex 3 is
stored as 9,9,9 and the sparse value puts it at 1,1,0); a TRIANGLE_STRIP
without indices; a skin whose joints A (a scene root) and B (under the
non-joint node Mid, another root) are not one subtree, without
inverseBindMatrices; vertex 0 has 8 influences through JOINTS_0/1 +
WEIGHTS_0 (float) / WEIGHTS_1 (normalized UNSIGNED_BYTE) summing to 0.796;
an animation with a CUBICSPLINE rotation on A (0 to 90 degrees about Z,
zero tangents), a STEP translation on B and a morph weights channel.

hard.glb: the same document as a .glb with one BIN chunk.

tiny_times.gltf: hard.gltf with key times 0 and 1e-44 s (an infinite key
rate once crashed sampling); the loader merges the second key into the first.

bad/*: one malformed file per refusal the issue lists.
"""
import base64
import json
import math
import os
import struct


def b64(data):
    return "data:application/octet-stream;base64," + base64.b64encode(data).decode()


def f32(*v):
    return struct.pack("<%df" % len(v), *v)


def hard_doc():
    pos = f32(0, 0, 0, 1, 0, 0, 0, 1, 0, 9, 9, 9)               # 48 bytes
    sp_idx = struct.pack("<B", 3) + b"\0\0\0"                    # 4 bytes
    sp_val = f32(1, 1, 0)                                        # 12
    j0 = bytes([0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0])  # 16
    w0 = f32(0.1, 0.1, 0.1, 0.1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)  # 64
    j1 = bytes([0, 1, 0, 1] + [0] * 12)                          # 16
    w1 = bytes([25, 25, 25, 25] + [0] * 12)                      # 16
    times = f32(0, 1)                                            # 8
    s = math.sqrt(0.5)
    rot = f32(0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,                # key 0: in, value, out
              0, 0, 0, 0, 0, 0, s, s, 0, 0, 0, 0)                # key 1
    tr = f32(0, 1, 0, 0, 2, 0)                                   # 24
    wts = f32(0, 1)                                              # 8
    blobs = [pos, sp_idx, sp_val, j0, w0, j1, w1, times, rot, tr, wts]
    doc = {
        "asset": {"version": "2.0", "generator": "marrow tests/data/gltf/make.py"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1, 3]}],
        "nodes": [
            {"name": "Body", "mesh": 0, "skin": 0},
            {"name": "A", "translation": [1, 0, 0]},
            {"name": "B", "translation": [0, 1, 0]},
            {"name": "Mid", "translation": [0, 0, 1], "children": [2]},
        ],
        "skins": [{"joints": [1, 2]}],
        "meshes": [{"name": "strip", "primitives": [{
            "mode": 5,
            "attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2, "JOINTS_1": 3, "WEIGHTS_1": 4},
            "targets": [{"POSITION": 0}],
        }], "weights": [0]}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
             "sparse": {"count": 1, "indices": {"bufferView": 1, "componentType": 5121},
                        "values": {"bufferView": 2}}},
            {"bufferView": 3, "componentType": 5121, "count": 4, "type": "VEC4"},
            {"bufferView": 4, "componentType": 5126, "count": 4, "type": "VEC4"},
            {"bufferView": 5, "componentType": 5121, "count": 4, "type": "VEC4"},
            {"bufferView": 6, "componentType": 5121, "normalized": True, "count": 4, "type": "VEC4"},
            {"bufferView": 7, "componentType": 5126, "count": 2, "type": "SCALAR"},
            {"bufferView": 8, "componentType": 5126, "count": 6, "type": "VEC4"},
            {"bufferView": 9, "componentType": 5126, "count": 2, "type": "VEC3"},
            {"bufferView": 10, "componentType": 5126, "count": 2, "type": "SCALAR"},
        ],
        "animations": [{"name": "wave", "samplers": [
            {"input": 5, "output": 6, "interpolation": "CUBICSPLINE"},
            {"input": 5, "output": 7, "interpolation": "STEP"},
            {"input": 5, "output": 8},
        ], "channels": [
            {"sampler": 0, "target": {"node": 1, "path": "rotation"}},
            {"sampler": 1, "target": {"node": 2, "path": "translation"}},
            {"sampler": 2, "target": {"node": 0, "path": "weights"}},
        ]}],
    }
    return doc, blobs


def write_gltf(name, doc, blobs):
    doc = json.loads(json.dumps(doc))
    doc["buffers"] = [{"byteLength": len(b), "uri": b64(b)} for b in blobs]
    doc["bufferViews"] = [{"buffer": i, "byteLength": len(b)} for i, b in enumerate(blobs)]
    with open(name, "w") as f:
        json.dump(doc, f, indent=1)


def glb_bytes(doc, blobs, buffer_len=None):
    doc = json.loads(json.dumps(doc))
    data = b""
    views = []
    for b in blobs:
        views.append({"buffer": 0, "byteOffset": len(data), "byteLength": len(b)})
        data += b
        data += b"\0" * (-len(data) % 4)
    doc["buffers"] = [{"byteLength": buffer_len or len(data)}]
    doc["bufferViews"] = views
    js = json.dumps(doc).encode()
    js += b" " * (-len(js) % 4)
    out = struct.pack("<4sII", b"glTF", 2, 12 + 8 + len(js) + 8 + len(data))
    out += struct.pack("<II", len(js), 0x4E4F534A) + js
    out += struct.pack("<II", len(data), 0x004E4942) + data
    return out


def tri_doc(pos_blob, extra=None):
    """A one-triangle static mesh with its buffer as a data: URI."""
    doc = {
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}],
        "bufferViews": [{"buffer": 0, "byteLength": len(pos_blob)}],
        "buffers": [{"byteLength": len(pos_blob), "uri": b64(pos_blob)}],
    }
    if extra:
        extra(doc)
    return doc


def main():
    doc, blobs = hard_doc()
    write_gltf("hard.gltf", doc, blobs)
    with open("hard.glb", "wb") as f:
        f.write(glb_bytes(doc, blobs))
    tiny = list(blobs)
    tiny[7] = f32(0, 1e-44)
    write_gltf("tiny_times.gltf", doc, tiny)
    os.makedirs("bad", exist_ok=True)
    tri = f32(0, 0, 0, 1, 0, 0, 0, 1, 0)
    bad = {}
    bad["not_json.gltf"] = b"{\n  \"asset\": {\"version\": \"2.0\"},\n  nodes: []\n}\n"
    bad["wrong_shape.gltf"] = json.dumps(tri_doc(tri, lambda d: d.update(accessors={"0": 1}))).encode()
    bad["past_view.gltf"] = json.dumps(tri_doc(tri, lambda d: d["accessors"][0].update(count=4))).encode()
    bad["huge_count.gltf"] = json.dumps(tri_doc(tri, lambda d: d["accessors"][0].update(count=2147483647))).encode()
    bad["huge_sparse.gltf"] = json.dumps(tri_doc(tri, lambda d: d["accessors"].__setitem__(0, {
        "componentType": 5126, "count": 2000000000, "type": "VEC3",
        "sparse": {"count": 1, "indices": {"bufferView": 0, "componentType": 5125},
                   "values": {"bufferView": 0}}}))).encode()

    def oob(d):
        d["accessors"].append({"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"})
        d["bufferViews"].append({"buffer": 1, "byteLength": 6})
        d["buffers"].append({"byteLength": 6, "uri": b64(struct.pack("<3H", 0, 1, 7))})
        d["meshes"][0]["primitives"][0]["indices"] = 1
    bad["index_out_of_range.gltf"] = json.dumps(tri_doc(tri, oob)).encode()

    def cycle(d):
        d["nodes"] = [{"mesh": 0}, {"children": [2]}, {"children": [1]}]
    bad["cycle.gltf"] = json.dumps(tri_doc(tri, cycle)).encode()
    bad["nan.gltf"] = json.dumps(tri_doc(f32(0, 0, 0, float("nan"), 0, 0, 0, 1, 0))).encode()
    bad["inf.gltf"] = json.dumps(tri_doc(f32(0, 0, 0, float("inf"), 0, 0, 0, 1, 0))).encode()
    bad["missing_bin.gltf"] = json.dumps(tri_doc(tri, lambda d: d["buffers"][0].update(uri="missing.bin"))).encode()
    bad["not_base64.gltf"] = json.dumps(tri_doc(tri, lambda d: d["buffers"][0].update(
        uri="data:application/octet-stream;base64,AAAA*AAA"))).encode()
    bad["escape.gltf"] = json.dumps(tri_doc(tri, lambda d: d["buffers"][0].update(uri="../../etc/passwd"))).encode()
    bad["absolute.gltf"] = json.dumps(tri_doc(tri, lambda d: d["buffers"][0].update(uri="/etc/passwd"))).encode()
    bad["two_parents.gltf"] = json.dumps(tri_doc(tri, lambda d: d.update(
        nodes=[{"mesh": 0}, {"children": [0]}, {"children": [0]}], scenes=[{"nodes": [1, 2]}]))).encode()
    bad["bad_version.gltf"] = json.dumps(tri_doc(tri, lambda d: d["asset"].update(version="1.0"))).encode()
    g = glb_bytes(tri_doc(tri), [tri])
    bad["lying_chunk.glb"] = g[:12] + struct.pack("<I", 0x7FFFFFF0) + g[16:]
    bad["lying_length.glb"] = g[:8] + struct.pack("<I", len(g) + 100) + g[12:]
    bad["short_bin.glb"] = glb_bytes(tri_doc(tri), [tri], buffer_len=400)
    for name, data in bad.items():
        with open(os.path.join("bad", name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
