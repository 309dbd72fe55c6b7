// lighting.glsl — Blinn-Phong with a hemispheric ambient and two directional
// lights; light 0 casts the shadow (a depth-compare shadow map, 4 bilinear
// PCF taps).
// Included by model.frag and floor.frag. The renderer compiles each of those
// twice: MR_SHADOWS 1 (defined before this file) with the shadow lookups,
// 0 without (everything lit) — a variant rather than a branch, because
// llvmpipe runs both sides of a branch for every fragment.
#ifndef MR_SHADOWS
#define MR_SHADOWS 1
#endif
uniform vec3 u_eye;
uniform vec3 u_ambient;
uniform vec3 u_light_dir[2];     // unit, towards the light
uniform vec3 u_light_color[2];
uniform sampler2DShadow u_shadow_map;
uniform mat4 u_light_view_proj;
uniform float u_shadow_offset;   // normal offset in world units (about one texel)

float shadow_factor(vec3 world, vec3 n)
{
#if MR_SHADOWS == 0
    return 1.0;
#else
    // Push the lookup off the surface along the normal, more at grazing
    // light, so surfaces do not shadow themselves (acne).
    float slope = 1.0 - max(dot(n, u_light_dir[0]), 0.0);
    vec4 lc = u_light_view_proj * vec4(world + n * u_shadow_offset * (0.5 + 1.5 * slope), 1.0);
    vec3 s = lc.xyz / lc.w * 0.5 + 0.5;
    if (s.x <= 0.0 || s.y <= 0.0 || s.x >= 1.0 || s.y >= 1.0) return 1.0;
    // Beyond the far plane (long shadows on the floor): compare at the far
    // plane, so anything the map holds still shadows it.
    s.z = min(s.z, 1.0);
    // Four bilinear depth-compare taps (each already a 2x2 PCF) one texel
    // off the centre diagonally: a soft edge over 4x4 texels for the cost of
    // four lookups (llvmpipe pays per fragment and sample).
    vec2 texel = 1.0 / vec2(textureSize(u_shadow_map, 0));
    float z = s.z - 0.0005;
    float sum = texture(u_shadow_map, vec3(s.xy + vec2(-1.0, -1.0) * texel, z)) +
                texture(u_shadow_map, vec3(s.xy + vec2(1.0, -1.0) * texel, z)) +
                texture(u_shadow_map, vec3(s.xy + vec2(-1.0, 1.0) * texel, z)) +
                texture(u_shadow_map, vec3(s.xy + vec2(1.0, 1.0) * texel, z));
    return sum * 0.25;
#endif
}

vec3 shade(vec3 albedo, vec3 spec_color, float shininess, vec3 n, vec3 world)
{
    vec3 v = normalize(u_eye - world);
    // Hemispheric ambient: a little darker facing the ground.
    vec3 c = u_ambient * albedo * mix(0.55, 1.0, n.y * 0.5 + 0.5);
    float lit = shadow_factor(world, n);
    for (int i = 0; i < 2; i++) {
        vec3 l = u_light_dir[i];
        float ndl = max(dot(n, l), 0.0);
        vec3 h = normalize(l + v);
        float spec = ndl > 0.0 ? pow(max(dot(n, h), 0.0), max(shininess, 1.0)) : 0.0;
        float s = i == 0 ? lit : 1.0;
        c += u_light_color[i] * (albedo * ndl + spec_color * spec) * s;
    }
    return c;
}
