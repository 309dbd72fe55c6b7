#!/usr/bin/env python3
"""golden_tree_fuzz.py — a property test of `marrow test`'s golden handling
(issue 40): everything beside a scene is untrusted input.

    golden_tree_fuzz.py MARROW TMPDIR [ROUNDS] [SEED]

Each round builds, in a fresh folder, a scene folder whose NAME.golden
entries are drawn at random: missing, a folder, a link to a folder or file
outside, a FIFO, a regular file; inside a golden folder every name the
runner reads or writes (FRAME.png, FRAME.pose.json, the old fixed
FRAME.pose.json.tmp) is drawn the same way (links to outside files, folders
and a real PNG, FIFOs, garbage, folders). Then it runs `marrow test`,
`marrow test --update` and `marrow test --approve` with a short --timeout
and checks the properties:
  - no file outside the scene and output folders changed: a decoy folder
    (files, a folder, a PNG, all that the links point at) hashes the same
    before and after, and nothing new appears beside it;
  - every run exits 0, 1, 3 or 4 within its limit (a FIFO never hangs);
  - the run's output, logs and report never contain the decoy's secret (a
    link's bytes, e.g. in a parse error of a scene or model that is a link).
Scene files themselves (c.lua) and the model the scenes load are drawn from
the same kinds.
Prints one "ok"/"FAIL" line per property and round; exits 1 on a failure.
"""
import hashlib
import os
import random
import shutil
import subprocess
import sys
import time

SECRET = "decoy-secret-4b1d"
SCENE = """scene = {size = {32, 24}, shots = {0, 1}}
local m = require "marrow"
function load() print(m.model("model.md5mesh")) end
function draw() m.camera{target = {0, 1, 0}, distance = 4} end
"""


def tree_hash(root):
    """Hash of every path, kind, link target and file content under root."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            p = os.path.join(dirpath, name)
            h.update(p.encode())
            if os.path.islink(p):
                h.update(b"L" + os.readlink(p).encode())
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    h.update(b"F" + f.read())
            elif os.path.isdir(p):
                h.update(b"D")
    return h.hexdigest()


def make_entry(rng, path, decoy, png, allow_dir):
    kinds = ["none", "link_file", "link_dir", "link_png", "fifo", "garbage", "empty"]
    if allow_dir:
        kinds.append("dir")
    kind = rng.choice(kinds)
    if kind == "link_file":
        os.symlink(os.path.join(decoy, "secret.txt"), path)
    elif kind == "link_dir":
        os.symlink(os.path.join(decoy, "folder"), path)
    elif kind == "link_png":
        os.symlink(png, path)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "garbage":
        with open(path, "wb") as f:
            f.write(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))))
    elif kind == "empty":
        open(path, "wb").close()
    elif kind == "dir":
        os.mkdir(path)
    return kind


def run(cmd, limit):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=limit)
        return p.returncode, time.monotonic() - t0, (p.stdout + p.stderr).decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return 124, time.monotonic() - t0, ""


def main():
    marrow, tmp = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    failed = 0

    def check(name, cond, detail=""):
        nonlocal failed
        if cond:
            print("  ok   " + name)
        else:
            failed += 1
            print("  FAIL " + name)
            if detail:
                print("       " + detail.replace("\n", "\n       ")[:600])

    for r in range(rounds):
        rng = random.Random(seed * 1000 + r)
        base = os.path.join(tmp, "round%d" % r)
        scenes, decoy, out = (os.path.join(base, d) for d in ("scenes", "decoy", "out"))
        os.makedirs(os.path.join(decoy, "folder"))
        os.makedirs(scenes)
        os.makedirs(out)
        with open(os.path.join(decoy, "secret.txt"), "w") as f:
            f.write(SECRET + "\n")
        png = os.path.join(decoy, "image.png")
        shutil.copy(os.path.join(os.path.dirname(__file__), "..", "scenes", "lighting.golden", "0000.png"), png)
        kinds = []
        for name in ("a", "b"):
            with open(os.path.join(scenes, name + ".lua"), "w") as f:
                f.write(SCENE)
            g = os.path.join(scenes, name + ".golden")
            kind = rng.choice(["none", "dir", "dir", "dir", "link_dir", "link_file", "fifo", "file"])
            kinds.append(name + ":" + kind)
            if kind == "dir":
                os.mkdir(g)
                for frame in (0, 1):
                    for suffix in (".png", ".pose.json", ".pose.json.tmp", ".png.tmp"):
                        entry = "%04d%s" % (frame, suffix)
                        kinds.append(entry + "=" + make_entry(rng, os.path.join(g, entry), decoy, png, True))
            elif kind == "link_dir":
                os.symlink(os.path.join(decoy, "folder"), g)
            elif kind == "link_file":
                os.symlink(os.path.join(decoy, "secret.txt"), g)
            elif kind == "fifo":
                os.mkfifo(g)
            elif kind == "file":
                with open(g, "w") as f:
                    f.write("x")
        # The scene files and what they load are drawn too: a FIFO or a link
        # where a scene or its model belongs.
        kind = rng.choice(["file", "fifo", "link_file", "link_dir"])
        kinds.append("c.lua:" + kind)
        c = os.path.join(scenes, "c.lua")
        if kind == "file":
            with open(c, "w") as f:
                f.write(SCENE)
        elif kind == "fifo":
            os.mkfifo(c)
        elif kind == "link_file":
            os.symlink(os.path.join(decoy, "secret.txt"), c)
        else:
            os.symlink(os.path.join(decoy, "folder"), c)
        kinds.append("model=" + make_entry(rng, os.path.join(scenes, "model.md5mesh"), decoy, png, True))
        before = tree_hash(decoy)
        beside = sorted(os.listdir(base))
        what = "round %d (seed %d: %s)" % (r, seed, " ".join(kinds))
        tag = "round %d" % r
        runs = [("test", [marrow, "test", "--timeout", "5", "--out", out, scenes]),
                ("test --update", [marrow, "test", "--update", "--timeout", "5", "--out", out, scenes]),
                ("test --approve", [marrow, "test", "--approve", out])]
        for label, cmd in runs:
            rc, secs, text = run(cmd, 20)
            check("%s: %s exits 0/1/3/4 in %.1f s" % (tag, label, secs), rc in (0, 1, 3, 4) and secs < 15,
                  "exit %d; %s\n%s" % (rc, what, text[-400:]))
            logs = ""
            for dirpath, _, files in os.walk(out):
                for name in files:
                    if name == "log.txt" or name.endswith(".html") or name.endswith(".xml"):
                        with open(os.path.join(dirpath, name), "rb") as f:
                            logs += f.read().decode("utf-8", "replace")
            check("%s: %s shows nothing of the decoy" % (tag, label), SECRET[:12] not in text + logs, what)
            if label == "test --update":   # a fresh run to approve: compare against what was written
                run([marrow, "test", "--timeout", "5", "--out", out, scenes], 20)
        check("%s: nothing outside the scene and output folders changed" % tag,
              tree_hash(decoy) == before and sorted(os.listdir(base)) == beside, what)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
