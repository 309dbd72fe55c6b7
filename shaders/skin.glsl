// skin.glsl — linear blend skinning from the bone palette (included by
// model.vert and depth.vert). The palette is a texture buffer of RGBA32F
// texels, four per matrix (the columns); a draw's matrices start at
// u_palette_offset.
// The renderer compiles one program per skinning variant (MR_SKIN, defined
// before this file): 0 = static meshes and draws without skin matrices (the
// bind pose: no palette reads at all), 1 = four influences, 2 = eight
// (influences 5-8 come in a second attribute set that only meshes using
// them have), 3 and 4 = dual-quaternion skinning of four and eight (mesh.h,
// "Skinning modes"): each joint's rigid part as a unit dual quaternion in
// u_dq (a texture buffer, eight texels per joint from u_dq_offset: real,
// dual, the three columns of the rest S = R^T A, flags x = mirrored,
// z = the joint's dual-quaternion share: 1, or a mask's weight),
// blended with antipodal flips towards the first influence, S blended
// linearly and applied first; a vertex with a mirroring influence falls back
// to the linear blend. A mesh skinned by its own mode with per-vertex
// blend factors (FBX SkinningType "Blend", mr_mesh.dq_blend) sets
// u_dq_vertex_blend and its factors in u_dq_blend (one R32F texel per
// vertex, by gl_VertexID): a vertex's factor then replaces the joints'
// shares (0 linear .. 1 dual quaternions). The result is returned as one matrix (R S | t), so
// the callers skin positions, normals and tangents as before. Variants
// instead of branches: llvmpipe runs both sides of a branch for every vertex.
#ifndef MR_SKIN
#define MR_SKIN 1
#endif
uniform samplerBuffer u_palette;
uniform int u_palette_offset;
#if MR_SKIN >= 3
uniform samplerBuffer u_dq;
uniform int u_dq_offset;
uniform samplerBuffer u_dq_blend;
uniform int u_dq_vertex_blend;

struct dq_sum { vec4 pivot, b0, be; mat3 s; float mirrored, share; };

void dq_add(inout dq_sum a, uint joint, float w)
{
    if (w == 0.0) return;
    int base = (u_dq_offset + int(joint)) * 8;
    vec4 r = texelFetch(u_dq, base), d = texelFetch(u_dq, base + 1);
    vec4 flags = texelFetch(u_dq, base + 5);
    a.mirrored = max(a.mirrored, flags.x);
    a.share += w * flags.z;
    if (a.pivot == vec4(0.0)) a.pivot = r;
    float sw = dot(a.pivot, r) < 0.0 ? -w : w;
    a.b0 += sw * r;
    a.be += sw * d;
    a.s += w * mat3(texelFetch(u_dq, base + 2).xyz, texelFetch(u_dq, base + 3).xyz, texelFetch(u_dq, base + 4).xyz);
}
#endif

mat4 palette_matrix(uint joint)
{
    int base = (u_palette_offset + int(joint)) * 4;
    return mat4(texelFetch(u_palette, base), texelFetch(u_palette, base + 1),
                texelFetch(u_palette, base + 2), texelFetch(u_palette, base + 3));
}

mat4 linear_matrix(uvec4 joints, vec4 weights, uvec4 joints1, vec4 weights1)
{
#if MR_SKIN == 0
    return mat4(1.0);
#else
    mat4 m = palette_matrix(joints.x) * weights.x + palette_matrix(joints.y) * weights.y +
             palette_matrix(joints.z) * weights.z + palette_matrix(joints.w) * weights.w;
#if MR_SKIN == 2 || MR_SKIN == 4
    m += palette_matrix(joints1.x) * weights1.x + palette_matrix(joints1.y) * weights1.y +
         palette_matrix(joints1.z) * weights1.z + palette_matrix(joints1.w) * weights1.w;
#endif
    return m;
#endif
}

mat4 skin_matrix(uvec4 joints, vec4 weights, uvec4 joints1, vec4 weights1)
{
#if MR_SKIN < 3
    return linear_matrix(joints, weights, joints1, weights1);
#else
    dq_sum a = dq_sum(vec4(0.0), vec4(0.0), vec4(0.0), mat3(0.0), 0.0, 0.0);
    dq_add(a, joints.x, weights.x);
    dq_add(a, joints.y, weights.y);
    dq_add(a, joints.z, weights.z);
    dq_add(a, joints.w, weights.w);
#if MR_SKIN == 4
    dq_add(a, joints1.x, weights1.x);
    dq_add(a, joints1.y, weights1.y);
    dq_add(a, joints1.z, weights1.z);
    dq_add(a, joints1.w, weights1.w);
#endif
    if (a.mirrored > 0.0) return linear_matrix(joints, weights, joints1, weights1);
    if (u_dq_vertex_blend != 0) a.share = texelFetch(u_dq_blend, gl_VertexID).x;
    float len = length(a.b0);
    if (len <= 1e-12) return mat4(1.0);
    vec4 q = a.b0 / len, e = a.be / len;
    vec3 t = 2.0 * (q.w * e.xyz - e.w * q.xyz + cross(q.xyz, e.xyz));
    float x = q.x, y = q.y, z = q.z, w = q.w;
    mat3 rot = mat3(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + z * w), 2.0 * (x * z - y * w),
                    2.0 * (x * y - z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + x * w),
                    2.0 * (x * z + y * w), 2.0 * (y * z - x * w), 1.0 - 2.0 * (x * x + y * y));
    mat3 m = rot * a.s;
    mat4 dq = mat4(vec4(m[0], 0.0), vec4(m[1], 0.0), vec4(m[2], 0.0), vec4(t, 1.0));
    // A mask's per-joint share (flags.z, 1 without one): the vertex mixes
    // the linear and the dual-quaternion results by its joints' shares.
    if (a.share >= 0.99999) return dq;
    return linear_matrix(joints, weights, joints1, weights1) * (1.0 - a.share) + dq * a.share;
#endif
}

// Morph targets. Before skinning (anim/morph.h), here too so that every
// vertex program gets them with the one include. u_morph is a texture buffer of RGBA32F texels
// per mesh: for target k, u_morph_vertices position deltas from texel
// 2k * u_morph_vertices, then as many normal deltas (zero where the target
// has none). A draw passes only its targets with a non-zero weight
// (u_morph_count of them, at most MR_MORPH_ACTIVE), so a mesh without
// morphs, or with every weight 0, costs the loop test alone. Vertices are
// indexed by gl_VertexID: the renderer draws each mesh's own buffers
// without a base vertex.
#define MR_MORPH_ACTIVE 16
uniform samplerBuffer u_morph;
uniform int u_morph_count;
uniform int u_morph_vertices;
uniform int u_morph_target[MR_MORPH_ACTIVE];
uniform float u_morph_weight[MR_MORPH_ACTIVE];

void morph(inout vec3 p, inout vec3 n)
{
    if (u_morph_count == 0) return;
    for (int i = 0; i < u_morph_count; i++) {
        int base = 2 * u_morph_target[i] * u_morph_vertices + gl_VertexID;
        p += u_morph_weight[i] * texelFetch(u_morph, base).xyz;
        n += u_morph_weight[i] * texelFetch(u_morph, base + u_morph_vertices).xyz;
    }
    float len = length(n);
    if (len > 1e-20) n /= len;
}
