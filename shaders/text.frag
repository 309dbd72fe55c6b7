#version 330 core
// text.frag — coverage from the one-channel font atlas as alpha.
in vec2 v_uv;
in vec4 v_color;
uniform sampler2D u_font;
out vec4 frag_color;

void main()
{
    frag_color = vec4(v_color.rgb, v_color.a * texture(u_font, v_uv).r);
}
