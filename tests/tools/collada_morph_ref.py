#!/usr/bin/env python3
"""collada_morph_ref.py — COLLADA <morph> fixtures for tests/cli_collada_morph.sh
and the positions the COLLADA 1.4.1 formulas give for them, computed here
independently of marrow:

    NORMALIZED  v = (1 - sum w) * base + sum w_k * target_k
    RELATIVE    v = base + sum w_k * target_k

  collada_morph_ref.py fixtures DIR       writes the .dae files
  collada_morph_ref.py expect NAME W...   prints the expected OBJ vertices
                                          (model space: node transform and
                                          unit applied) for fixture NAME
  collada_morph_ref.py sorted OBJ         prints OBJ's vertices in a fixed
                                          order (sorted on their rounded
                                          coordinates, printed unrounded): a
                                          writer may renumber vertices
"""
import math
import os
import sys

BASE = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
# Full target shapes (NORMALIZED reads them as shapes, RELATIVE as offsets).
SMILE = [(0, 0, 0), (1.2, 0, 0), (1, 1, 0.5), (0, 1, 0)]
FROWN = [(0, 0, -0.3), (1, 0, 0), (1, 1, 0), (0, 1.4, 0)]
WEIGHTS = (0.25, 0.5)
# The node holding the quad: scale 2 then translate (2, 0, 0).
NODE_SCALE, NODE_MOVE = 2.0, (2.0, 0.0, 0.0)


def floats(pts):
    return ' '.join('%g' % c for p in pts for c in p)


def geometry(gid, name, pts, tris=True):
    prim = ('<triangles count="2"><input semantic="VERTEX" source="#%s-v" offset="0"/><p>0 1 2 0 2 3</p></triangles>'
            % gid) if tris else ''
    return ('<geometry id="%s" name="%s"><mesh><source id="%s-p"><float_array id="%s-pa" count="%d">%s</float_array>'
            '<technique_common><accessor source="#%s-pa" count="%d" stride="3"><param name="X" type="float"/>'
            '<param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>'
            '<vertices id="%s-v"><input semantic="POSITION" source="#%s-p"/></vertices>%s</mesh></geometry>\n'
            % (gid, name, gid, gid, len(pts) * 3, floats(pts), gid, len(pts), gid, gid, prim))


def morph_controller(method, targets='base-smile base-frown', weights=WEIGHTS, ntargets=2, source='#base',
                     cid='morph'):
    w = ' '.join('%s' % x for x in weights)
    return ('<controller id="%s"><morph source="%s" method="%s"><source id="%s-targets">'
            '<IDREF_array id="%s-targets-array" count="%d">%s</IDREF_array><technique_common>'
            '<accessor source="#%s-targets-array" count="%d" stride="1"><param name="IDREF" type="IDREF"/></accessor>'
            '</technique_common></source><source id="%s-weights"><float_array id="%s-weights-array" count="%d">%s'
            '</float_array><technique_common><accessor source="#%s-weights-array" count="%d" stride="1">'
            '<param name="MORPH_WEIGHT" type="float"/></accessor></technique_common></source><targets>'
            '<input semantic="MORPH_TARGET" source="#%s-targets"/><input semantic="MORPH_WEIGHT" source="#%s-weights"/>'
            '</targets></morph></controller>\n'
            % (cid, source, method, cid, cid, ntargets, targets, cid, ntargets, cid, cid, len(weights), w, cid,
               len(weights), cid, cid))


SKIN = ('<controller id="skin"><skin source="#morph"><bind_shape_matrix>1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1'
        '</bind_shape_matrix><source id="skin-j"><Name_array id="skin-ja" count="1">bone</Name_array>'
        '<technique_common><accessor source="#skin-ja" count="1" stride="1"><param name="JOINT" type="name"/>'
        '</accessor></technique_common></source><source id="skin-ibm"><float_array id="skin-ibma" count="16">'
        '1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1</float_array><technique_common><accessor source="#skin-ibma" count="1" '
        'stride="16"><param name="TRANSFORM" type="float4x4"/></accessor></technique_common></source>'
        '<source id="skin-w"><float_array id="skin-wa" count="1">1</float_array><technique_common>'
        '<accessor source="#skin-wa" count="1" stride="1"><param name="WEIGHT" type="float"/></accessor>'
        '</technique_common></source><joints><input semantic="JOINT" source="#skin-j"/>'
        '<input semantic="INV_BIND_MATRIX" source="#skin-ibm"/></joints><vertex_weights count="4">'
        '<input semantic="JOINT" source="#skin-j" offset="0"/><input semantic="WEIGHT" source="#skin-w" offset="1"/>'
        '<vcount>1 1 1 1</vcount><v>0 0 0 0 0 0 0 0</v></vertex_weights></skin></controller>\n')

# The bone turns 0 -> 90 degrees about Z over one second.
BONE_ANIM = ('<library_animations><animation id="turn"><source id="turn-in"><float_array id="turn-ina" count="2">0 1'
             '</float_array><technique_common><accessor source="#turn-ina" count="2" stride="1">'
             '<param name="TIME" type="float"/></accessor></technique_common></source><source id="turn-out">'
             '<float_array id="turn-outa" count="2">0 90</float_array><technique_common>'
             '<accessor source="#turn-outa" count="2" stride="1"><param name="ANGLE" type="float"/></accessor>'
             '</technique_common></source><source id="turn-interp"><Name_array id="turn-interpa" count="2">'
             'LINEAR LINEAR</Name_array><technique_common><accessor source="#turn-interpa" count="2" stride="1">'
             '<param name="INTERPOLATION" type="name"/></accessor></technique_common></source>'
             '<sampler id="turn-s"><input semantic="INPUT" source="#turn-in"/><input semantic="OUTPUT" '
             'source="#turn-out"/><input semantic="INTERPOLATION" source="#turn-interp"/></sampler>'
             '<channel source="#turn-s" target="bone/rz.ANGLE"/></animation></library_animations>\n')


def document(controllers, scene_node, geoms=None, meter=1.0, anims=''):
    if geoms is None:
        geoms = geometry('base', 'quad', BASE) + geometry('base-smile', 'smile', SMILE, False) + \
            geometry('base-frown', 'frown', FROWN, False)
    return ('<?xml version="1.0" encoding="utf-8"?>\n<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" '
            'version="1.4.1"><asset><unit meter="%g" name="u"/><up_axis>Y_UP</up_axis></asset>\n'
            '<library_geometries>%s</library_geometries>\n<library_controllers>%s</library_controllers>\n%s'
            '<library_visual_scenes><visual_scene id="scene">%s</visual_scene></library_visual_scenes>'
            '<scene><instance_visual_scene url="#scene"/></scene></COLLADA>\n'
            % (meter, geoms, controllers, anims, scene_node))


def rigid_node(url):
    return ('<node id="holder" name="holder"><translate>%g %g %g</translate><scale>%g %g %g</scale>'
            '<instance_controller url="#%s"/></node>' % (NODE_MOVE + (NODE_SCALE,) * 3 + (url,)))


SKIN_NODES = ('<node id="bone" sid="bone" name="bone" type="JOINT"><rotate sid="rz">0 0 1 0</rotate></node>'
              '<node id="holder" name="holder"><instance_controller url="#skin"><skeleton>#bone</skeleton>'
              '</instance_controller></node>')

def sampler_anim(aid, target, times, values, stride=1, interp='LINEAR'):
    n = len(times)
    return ('<animation id="%s"><source id="%s-in"><float_array id="%s-ina" count="%d">%s</float_array>'
            '<technique_common><accessor source="#%s-ina" count="%d" stride="1"><param name="TIME" type="float"/>'
            '</accessor></technique_common></source><source id="%s-out"><float_array id="%s-outa" count="%d">%s'
            '</float_array><technique_common><accessor source="#%s-outa" count="%d" stride="%d">%s</accessor>'
            '</technique_common></source><source id="%s-interp"><Name_array id="%s-interpa" count="%d">%s'
            '</Name_array><technique_common><accessor source="#%s-interpa" count="%d" stride="1">'
            '<param name="INTERPOLATION" type="name"/></accessor></technique_common></source><sampler id="%s-s">'
            '<input semantic="INPUT" source="#%s-in"/><input semantic="OUTPUT" source="#%s-out"/>'
            '<input semantic="INTERPOLATION" source="#%s-interp"/></sampler><channel source="#%s-s" target="%s"/>'
            '</animation>'
            % (aid, aid, aid, n, ' '.join('%g' % t for t in times), aid, n, aid, aid, len(values),
               ' '.join('%g' % v for v in values), aid, n, stride, '<param type="float"/>' * stride, aid, aid, n,
               ' '.join([interp] * n), aid, n, aid, aid, aid, aid, aid, target))


# Weight channels: MORPH_WEIGHT_ARRAY(k) and SID(k) styles, LINEAR; a whole
# array (two values per key); STEP keys.
ANIMATED = ('<library_animations>' + sampler_anim('w0', 'morph/MORPH_WEIGHT_ARRAY(0)', [0, 2], [0, 1]) +
            sampler_anim('w1', 'morph/morph-weights(1)', [0, 1, 2], [0.5, 1, 0]) + '</library_animations>\n')
ANIMATED_ARRAY = ('<library_animations>' + sampler_anim('wa', 'morph/morph-weights', [0, 1], [0, 0, 1, 0.5], 2) +
                  '</library_animations>\n')
ANIMATED_STEP = ('<library_animations>' + sampler_anim('ws', 'morph/MORPH_WEIGHT_ARRAY(1)', [0, 1], [0, 1],
                                                       interp='STEP') + '</library_animations>\n')
BAD_INDEX = ('<library_animations>' + sampler_anim('wb', 'morph/MORPH_WEIGHT_ARRAY(5)', [0, 1], [0, 1]) +
             '</library_animations>\n')


def lerp_keys(times, values, t):
    if t <= times[0]:
        return values[0]
    for k in range(len(times) - 1):
        if t <= times[k + 1]:
            u = (t - times[k]) / (times[k + 1] - times[k])
            return values[k] + u * (values[k + 1] - values[k])
    return values[-1]


def weights_at(name, t):
    if name == 'animated':
        return [lerp_keys([0, 2], [0, 1], t), lerp_keys([0, 1, 2], [0.5, 1, 0], t)]
    if name == 'animated_array':
        return [lerp_keys([0, 1], [0, 1], t), lerp_keys([0, 1], [0, 0.5], t)]
    if name == 'animated_step':
        return [WEIGHTS[0], 0.0 if t < 1 else 1.0]
    return None


FIXTURES = {
    'animated': lambda: document(morph_controller('NORMALIZED'), rigid_node('morph'), anims=ANIMATED),
    'animated_array': lambda: document(morph_controller('NORMALIZED'), rigid_node('morph'), anims=ANIMATED_ARRAY),
    'animated_step': lambda: document(morph_controller('NORMALIZED'), rigid_node('morph'), anims=ANIMATED_STEP),
    'bad_weight_index': lambda: document(morph_controller('NORMALIZED'), rigid_node('morph'), anims=BAD_INDEX),
    'normalized': lambda: document(morph_controller('NORMALIZED'), rigid_node('morph')),
    'relative': lambda: document(morph_controller('RELATIVE'), rigid_node('morph'), meter=0.5),
    'skin_over_morph': lambda: document(morph_controller('NORMALIZED') + SKIN, SKIN_NODES, anims=BONE_ANIM),
    # A morph of a skin: read as the skin over the morph (the same at the bind pose).
    'morph_over_skin': lambda: document(morph_controller('NORMALIZED', source='#skin') +
                                        SKIN.replace('source="#morph"', 'source="#base"'),
                                        SKIN_NODES.replace('url="#skin"', 'url="#morph"'), anims=BONE_ANIM),
    # Malformed ones.
    'bad_target_count': lambda: document(morph_controller('NORMALIZED'), rigid_node('morph'),
                                         geoms=geometry('base', 'quad', BASE) +
                                         geometry('base-smile', 'smile', SMILE[:3], False) +
                                         geometry('base-frown', 'frown', FROWN, False)),
    'bad_target_id': lambda: document(morph_controller('NORMALIZED', targets='base-smile nowhere'),
                                      rigid_node('morph')),
    'bad_nan_weight': lambda: document(morph_controller('NORMALIZED', weights=('0.25', 'NaN')), rigid_node('morph')),
    'bad_weight_count': lambda: document(morph_controller('NORMALIZED', weights=(0.25, 0.5, 1)), rigid_node('morph')),
    'bad_method': lambda: document(morph_controller('AVERAGE'), rigid_node('morph')),
}


def morphed(method, w):
    out = []
    for b, s, f in zip(BASE, SMILE, FROWN):
        if method == 'NORMALIZED':
            out.append(tuple((1 - w[0] - w[1]) * b[c] + w[0] * s[c] + w[1] * f[c] for c in range(3)))
        else:
            out.append(tuple(b[c] + w[0] * s[c] + w[1] * f[c] for c in range(3)))
    return out


def expect(name, w, time=0.0):
    if weights_at(name, time) is not None:
        w = weights_at(name, time)
        name = 'normalized'
    if name == 'normalized':
        pts = [tuple(NODE_SCALE * p[c] + NODE_MOVE[c] for c in range(3)) for p in morphed('NORMALIZED', w)]
    elif name == 'relative':
        pts = [tuple(0.5 * (NODE_SCALE * p[c] + NODE_MOVE[c]) for c in range(3)) for p in morphed('RELATIVE', w)]
    elif name in ('skin_over_morph', 'morph_over_skin'):  # morph in bind space, then the bone's turn
        a = math.radians(90.0 * min(max(time, 0.0), 1.0))
        pts = [(math.cos(a) * x - math.sin(a) * y, math.sin(a) * x + math.cos(a) * y, z)
               for x, y, z in morphed('NORMALIZED', w)]
    else:
        raise SystemExit('no expectation for ' + name)
    for p in pts:
        print('v %.7f %.7f %.7f' % p)


def main():
    if sys.argv[1] == 'fixtures':
        os.makedirs(sys.argv[2], exist_ok=True)
        for name, make in FIXTURES.items():
            with open(os.path.join(sys.argv[2], name + '.dae'), 'w') as f:
                f.write(make())
        return 0
    if sys.argv[1] == 'sorted':
        with open(sys.argv[2]) as f:
            vs = [ln for ln in f if ln.startswith('v ')]
        vs.sort(key=lambda ln: tuple(round(float(x), 4) for x in ln.split()[1:4]))
        sys.stdout.write(''.join(vs))
        return 0
    if sys.argv[1] == 'expect':
        w = [float(x) for x in sys.argv[3:5]]
        expect(sys.argv[2], w, float(sys.argv[5]) if len(sys.argv) > 5 else 0.0)
        return 0
    return 2


if __name__ == '__main__':
    sys.exit(main())
