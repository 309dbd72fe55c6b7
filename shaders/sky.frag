#version 330 core
// sky.frag — vertical background gradient.
// Height from gl_FragCoord, exactly as floor.frag computes the colour it
// fades into, so the two meet without a seam.
uniform vec4 u_sky_top;
uniform vec4 u_sky_bottom;
uniform vec2 u_screen;
out vec4 frag_color;

void main()
{
    float h = smoothstep(0.0, 1.0, gl_FragCoord.y / u_screen.y);
    frag_color = vec4(mix(u_sky_bottom.rgb, u_sky_top.rgb, h), 1.0);
}
