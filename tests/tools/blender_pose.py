# blender_pose.py — Blender as a second, independent FBX reader (tests only,
# never linked into marrow): imports an FBX with Blender's own importer,
# poses it at FBX times in seconds and writes the deformed meshes of every
# mesh object, in world coordinates, as OBJ (one 'o' per object, 'v' and
# polygon 'f' lines: tests/tools/obj_compare matches the points, whatever
# the order or the splitting of vertices).
#
#   blender -b --factory-startup --python-exit-code 1 \
#       --python tests/tools/blender_pose.py -- IN.fbx OUT_PREFIX [--stack NAME] T1 [T2 ...]
#   blender ... --python tests/tools/blender_pose.py -- --jobs JOBS.txt
#
# writes OUT_PREFIX<i>.obj for the i-th time (0-based). A jobs file holds
# one such job a line, tab-separated: IN.fbx, OUT_PREFIX, the stack name
# (or empty) and the times separated by spaces; each file is imported into
# an empty scene in the same Blender process (Blender starts once). Exit
# status 0 on success, 1 when an import fails (the other jobs still run).
#
# Coordinates. marrow keeps an FBX file's coordinates as they are (fbx.h:
# the file's up axis and unit are reported, nothing is converted), so the
# OBJ must be in the file's own coordinates too. Blender's importer maps
# them with one global matrix applied above the scene's roots:
#     global = Scale(global_scale * UnitScaleFactor / 100) * axis_conversion(file axes -> Blender's Z-up)
# (import_fbx.load; 100 is units_blender_to_fbx_factor for a metric scene
# at scale 1). Here the axis conversion is made the identity by a manual
# orientation from (forward Y, up Z) to Blender's own (forward Y, up Z),
# and the scale UnitScaleFactor / 100 that remains is divided out of every
# written coordinate: UnitScaleFactor is read from the file's GlobalSettings
# with the importer's own parser. So a written point is the file's point.
#
# Options. automatic_bone_orientation off, primary/secondary bone axes Y/X
# (no bone correction matrix: bones keep the file's local axes, which only
# matters to how Blender names its rotations, not to where vertices go);
# use_prepost_rot on (pre/post rotations are part of FBX's transform
# model); ignore_leaf_bones off; anim_offset 0 (its default 1 would start
# every animation one frame late).
#
# Time. The importer puts a key at FBX time t (ticks / 46186158000) on
# frame t * scene.render.fps + anim_offset, with render.fps the file's
# frame rate rounded to an integer (blen_read_animations_curves_iter
# multiplies by scene.render.fps, not by the real rate). So time T seconds
# is frame T * scene.render.fps here, set with frame_set(frame, subframe).
# Between the keys of a curve Blender interpolates linearly (it bakes the
# FBX curves at the union of their key times, linear between them, and its
# F-curves are LINEAR): compare at key times.
#
# Stacks. Blender makes an action per stack (and layer) named
# "OBJECT|STACK" or "OBJECT|STACK|LAYER" and assigns the first it makes;
# --stack NAME assigns every object (and shape key block) the action of
# that stack instead.
import math
import os
import sys

import bpy


def jobs():
    """[(path, prefix, stack or None, [times])] from the command line."""
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if len(argv) == 2 and argv[0] == "--jobs":
        out = []
        with open(argv[1]) as f:
            for line in f:
                line = line.rstrip("\n")
                if not line or line.startswith("#"):
                    continue
                path, prefix, stack, times = line.split("\t")
                out.append((path, prefix, stack or None, [float(t) for t in times.split()]))
        return out
    if len(argv) < 3:
        sys.stderr.write("usage: blender -b --python blender_pose.py -- IN.fbx OUT_PREFIX [--stack NAME] T...\n"
                         "       blender -b --python blender_pose.py -- --jobs JOBS.txt\n")
        sys.exit(2)
    path, prefix, rest = argv[0], argv[1], argv[2:]
    stack = None
    if rest[0] == "--stack" and len(rest) >= 3:
        stack, rest = rest[1], rest[2:]
    return [(path, prefix, stack, [float(t) for t in rest])]


def unit_scale_factor(path):
    from io_scene_fbx import parse_fbx
    from io_scene_fbx.import_fbx import elem_find_first, elem_props_get_number
    root, _version = parse_fbx.parse(path)
    props = elem_find_first(elem_find_first(root, b"GlobalSettings"), b"Properties70")
    return elem_props_get_number(props, b"UnitScaleFactor", 1.0)


def assign_stack(stack):
    """Gives every animated datablock the action of `stack`, if it has one."""
    def pick(idb):
        ad = getattr(idb, "animation_data", None)
        if ad is None:
            return
        name = idb.name
        for a in bpy.data.actions:
            if a.name == name + "|" + stack or a.name.startswith(name + "|" + stack + "|"):
                ad.action = a
                return
        ad.action = None
    for ob in bpy.data.objects:
        pick(ob)
    for key in bpy.data.shape_keys:
        pick(key)


def write_obj(path, depsgraph, inv_scale):
    with open(path, "w") as f:
        f.write("# blender_pose.py: Blender %s, file coordinates\n" % bpy.app.version_string)
        base = 1
        for ob in sorted(bpy.data.objects, key=lambda o: o.name):
            if ob.type != "MESH":
                continue
            ev = ob.evaluated_get(depsgraph)
            mesh = ev.to_mesh()
            mw = ev.matrix_world
            f.write("o %s\n" % ob.name)
            for v in mesh.vertices:
                p = mw @ v.co
                f.write("v %.9g %.9g %.9g\n" % (p.x * inv_scale, p.y * inv_scale, p.z * inv_scale))
            for poly in mesh.polygons:
                f.write("f %s\n" % " ".join(str(base + i) for i in poly.vertices))
            base += len(mesh.vertices)
            ev.to_mesh_clear()


def pose(path, prefix, stack, times):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.unit_settings.system = "METRIC"
    scene.unit_settings.scale_length = 1.0
    res = bpy.ops.import_scene.fbx(
        filepath=path,
        use_manual_orientation=True, axis_forward="Y", axis_up="Z",
        global_scale=1.0, bake_space_transform=False,
        use_anim=True, anim_offset=0.0,
        ignore_leaf_bones=False, force_connect_children=False,
        automatic_bone_orientation=False, primary_bone_axis="Y", secondary_bone_axis="X",
        use_prepost_rot=True, use_subsurf=False)
    if res != {"FINISHED"}:
        sys.stderr.write("blender_pose: import of %s failed: %s\n" % (path, res))
        return False
    if stack:
        assign_stack(stack)
    inv_scale = 100.0 / unit_scale_factor(path)
    fps = scene.render.fps
    for i, t in enumerate(times):
        frame = t * fps
        whole = math.floor(frame + 1e-9)
        scene.frame_set(int(whole), subframe=max(0.0, frame - whole))
        depsgraph = bpy.context.evaluated_depsgraph_get()
        write_obj("%s%d.obj" % (prefix, i), depsgraph, inv_scale)
    sys.stdout.write("blender_pose: %s: %d poses at %d fps\n" % (os.path.basename(path), len(times), fps))
    return True


def main():
    ok = True
    for job in jobs():
        try:
            ok = pose(*job) and ok
        except Exception:
            import traceback
            traceback.print_exc()
            ok = False
    sys.exit(0 if ok else 1)


main()
