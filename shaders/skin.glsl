// skin.glsl — linear blend skinning from the bone palette (included by
// model.vert and depth.vert). The palette is a texture buffer of RGBA32F
// texels, four per matrix (the columns); a draw's matrices start at
// u_palette_offset.
// The renderer compiles one program per skinning variant (MR_SKIN, defined
// before this file): 0 = static meshes and draws without skin matrices (the
// bind pose: no palette reads at all), 1 = four influences, 2 = eight
// (influences 5-8 come in a second attribute set that only meshes using
// them have). Variants instead of branches: llvmpipe runs both sides of a
// branch for every vertex.
#ifndef MR_SKIN
#define MR_SKIN 1
#endif
uniform samplerBuffer u_palette;
uniform int u_palette_offset;

mat4 palette_matrix(uint joint)
{
    int base = (u_palette_offset + int(joint)) * 4;
    return mat4(texelFetch(u_palette, base), texelFetch(u_palette, base + 1),
                texelFetch(u_palette, base + 2), texelFetch(u_palette, base + 3));
}

mat4 skin_matrix(uvec4 joints, vec4 weights, uvec4 joints1, vec4 weights1)
{
#if MR_SKIN == 0
    return mat4(1.0);
#else
    mat4 m = palette_matrix(joints.x) * weights.x + palette_matrix(joints.y) * weights.y +
             palette_matrix(joints.z) * weights.z + palette_matrix(joints.w) * weights.w;
#if MR_SKIN == 2
    m += palette_matrix(joints1.x) * weights1.x + palette_matrix(joints1.y) * weights1.y +
         palette_matrix(joints1.z) * weights1.z + palette_matrix(joints1.w) * weights1.w;
#endif
    return m;
#endif
}
