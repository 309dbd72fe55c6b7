#version 330 core
// sky.vert — one triangle covering the screen (gl_VertexID 0..2).
out float v_height;   // 0 at the bottom of the screen, 1 at the top

void main()
{
    vec2 p = vec2(float((gl_VertexID & 1) * 4 - 1), float((gl_VertexID >> 1) * 4 - 1));
    v_height = p.y * 0.5 + 0.5;
    gl_Position = vec4(p, 0.0, 1.0);
}
