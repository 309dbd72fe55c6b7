#version 330 core
// model.frag — material colour x diffuse texture x tint, optional tangent-
// space normal map, lit by lighting.glsl.
// The renderer compiles it per material variant: MR_NORMAL_MAP 1 reads the
// normal map, MR_CUTOUT 1 discards the diffuse texture's transparent
// texels — defines rather than uniforms, because llvmpipe runs both sides
// of a branch (and a possible discard keeps it from testing depth before
// shading).
#ifndef MR_NORMAL_MAP
#define MR_NORMAL_MAP 0
#endif
#ifndef MR_CUTOUT
#define MR_CUTOUT 0
#endif
#include "lighting.glsl"

in vec3 v_world;
in vec3 v_normal;
in vec4 v_tangent;
in vec2 v_uv;

uniform sampler2D u_diffuse_map;
uniform sampler2D u_normal_map;
uniform int u_has_diffuse_map;
uniform vec4 u_diffuse;
uniform vec4 u_specular;
uniform vec4 u_emission;
uniform float u_shininess;
uniform vec4 u_tint;
uniform int u_wireframe;

out vec4 frag_color;

void main()
{
    vec4 base = u_diffuse * u_tint;
    if (u_has_diffuse_map != 0) {
        vec4 t = texture(u_diffuse_map, v_uv);
#if MR_CUTOUT
        if (t.a < 0.5) discard;
#endif
        base *= t;
    }
    vec3 n = normalize(v_normal);
#if MR_NORMAL_MAP
    vec3 t = v_tangent.xyz - n * dot(n, v_tangent.xyz);
    float tl = length(t);
    if (tl > 1e-6) {
        t /= tl;
        vec3 b = cross(n, t) * v_tangent.w;
        vec3 m = texture(u_normal_map, v_uv).xyz * 2.0 - 1.0;
        n = normalize(mat3(t, b, n) * m);
    }
#endif
    vec3 c = shade(base.rgb, u_specular.rgb, u_shininess, n, v_world) + u_emission.rgb;
    if (u_wireframe != 0) c = mix(c, vec3(0.05), 0.6);
    frag_color = vec4(c, 1.0);
}
