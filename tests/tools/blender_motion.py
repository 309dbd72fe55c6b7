# blender_motion.py — makes a "motion without skin" from a skinned,
# animated FBX with Blender (tests only): what a user gets from Mixamo's
# "without skin" download or from Blender when exporting an armature and
# its action alone.
#
#   blender -b --factory-startup --python-exit-code 1 \
#       --python tests/tools/blender_motion.py -- IN.fbx OUT.fbx [--namespace NEW] [--stack NAME] [--metres]
#
# Imports IN.fbx with Blender's default import settings (its axes and unit
# converted to Blender's Z-up metres, anim_offset 0 so that FBX time t
# stays at time t), deletes every mesh object, renames the bones'
# namespace ("mixamorig:Hips" -> "NEW:Hips"; NEW empty drops it) when asked,
# and exports OUT.fbx as binary FBX 7400 with Blender's default export
# settings (Y-up, -Z forward, UnitScaleFactor 100: metres, an "Armature"
# node above the bones), holding only the armature and the stack's action
# (--stack: the action made from that stack; else the one assigned)
# baked at every frame. --metres exports in metres (apply_scale_options
# FBX_SCALE_UNITS: UnitScaleFactor 100, the numbers in metres), as a Blender
# user working in metres gets it; by default Blender writes centimetres.
import sys

import bpy


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if len(argv) < 2:
        sys.stderr.write("usage: blender -b --python blender_motion.py -- IN.fbx OUT.fbx [--namespace NEW] [--stack NAME] [--metres]\n")
        sys.exit(2)
    src, dst, rest = argv[0], argv[1], argv[2:]
    namespace, stack, scale_option = None, None, "FBX_SCALE_NONE"
    while rest:
        if rest[0] == "--namespace" and len(rest) > 1:
            namespace, rest = rest[1], rest[2:]
        elif rest[0] == "--stack" and len(rest) > 1:
            stack, rest = rest[1], rest[2:]
        elif rest[0] == "--metres":
            scale_option, rest = "FBX_SCALE_UNITS", rest[1:]
        else:
            sys.stderr.write("blender_motion: unknown argument %s\n" % rest[0])
            sys.exit(2)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    res = bpy.ops.import_scene.fbx(filepath=src, anim_offset=0.0, automatic_bone_orientation=False)
    if res != {"FINISHED"}:
        sys.stderr.write("blender_motion: import of %s failed\n" % src)
        sys.exit(1)
    for ob in list(bpy.data.objects):
        if ob.type == "MESH":
            bpy.data.objects.remove(ob, do_unlink=True)
    arms = [ob for ob in bpy.data.objects if ob.type == "ARMATURE"]
    if not arms:
        sys.stderr.write("blender_motion: %s has no armature\n" % src)
        sys.exit(1)
    for arm in arms:
        if stack:
            for a in bpy.data.actions:
                if a.name == arm.name + "|" + stack or a.name.startswith(arm.name + "|" + stack + "|"):
                    arm.animation_data.action = a
        if namespace is not None:
            # renaming a bone renames its F-curves' data paths too
            for bone in arm.data.bones:
                base = bone.name.rsplit(":", 1)[-1]
                bone.name = (namespace + ":" + base) if namespace else base
    action = arms[0].animation_data.action if arms[0].animation_data else None
    if action is None:
        sys.stderr.write("blender_motion: %s has no animation\n" % src)
        sys.exit(1)
    start, end = action.frame_range
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = int(start), int(end)
    bpy.ops.export_scene.fbx(filepath=dst, object_types={"ARMATURE"}, use_selection=False,
                             add_leaf_bones=False, bake_anim=True, bake_anim_use_all_bones=True,
                             bake_anim_use_nla_strips=False, bake_anim_use_all_actions=False,
                             bake_anim_force_startend_keying=True, bake_anim_step=1.0,
                             bake_anim_simplify_factor=0.0, apply_scale_options=scale_option)
    sys.stdout.write("blender_motion: %s -> %s (%d bones, frames %d..%d at %d fps)\n"
                     % (src, dst, len(arms[0].data.bones), start, end, scene.render.fps))


main()
