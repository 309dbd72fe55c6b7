#version 330 core
// sky.frag — vertical background gradient.
in float v_height;
uniform vec4 u_sky_top;
uniform vec4 u_sky_bottom;
out vec4 frag_color;

void main()
{
    frag_color = vec4(mix(u_sky_bottom.rgb, u_sky_top.rgb, smoothstep(0.0, 1.0, v_height)), 1.0);
}
