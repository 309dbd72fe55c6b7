#version 330 core
// floor.frag — a lit, shadow-receiving floor with an anti-aliased grid
// (thin lines every u_grid_step, stronger every fifth), fading out towards
// its edge into the background colour.
#include "lighting.glsl"

in vec3 v_world;

uniform vec2 u_floor_center;
uniform float u_floor_extent;
uniform float u_grid_step;
uniform vec4 u_sky_top;
uniform vec4 u_sky_bottom;
uniform vec2 u_screen;

out vec4 frag_color;

float grid(vec2 p, float step)
{
    vec2 c = p / step;
    vec2 w = fwidth(c);
    vec2 g = abs(fract(c - 0.5) - 0.5) / max(w, vec2(1e-6));
    return 1.0 - min(min(g.x, g.y), 1.0);
}

void main()
{
    vec3 albedo = vec3(0.62, 0.62, 0.60);
    vec2 p = v_world.xz;
    float minor = grid(p, u_grid_step);
    float major = grid(p, u_grid_step * 5.0);
    albedo = mix(albedo, vec3(0.42, 0.43, 0.45), max(minor * 0.55, major * 0.9));
    vec3 c = shade(albedo, vec3(0.04), 16.0, vec3(0.0, 1.0, 0.0), v_world);
    // Fade into the background towards the edge. The sky is drawn after the
    // floor (only where nothing else is), so mix its colour in here.
    float r = length(p - u_floor_center) / u_floor_extent;
    float alpha = 1.0 - smoothstep(0.55, 1.0, r);
    float h = smoothstep(0.0, 1.0, gl_FragCoord.y / u_screen.y);
    vec3 sky = mix(u_sky_bottom.rgb, u_sky_top.rgb, h);
    frag_color = vec4(mix(sky, c, alpha), 1.0);
}
