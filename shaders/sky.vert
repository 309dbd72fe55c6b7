#version 330 core
// sky.vert — one triangle covering the screen (gl_VertexID 0..2) at the far
// plane, drawn last with depth test LEQUAL so it shades only empty pixels.
void main()
{
    vec2 p = vec2(float((gl_VertexID & 1) * 4 - 1), float((gl_VertexID >> 1) * 4 - 1));
    gl_Position = vec4(p, 1.0, 1.0);
}
