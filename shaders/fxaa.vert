#version 330 core
// fxaa.vert — one triangle covering the screen (gl_VertexID 0..2) for the
// post-process pass of fxaa.frag.
void main()
{
    vec2 p = vec2(float((gl_VertexID & 1) * 4 - 1), float((gl_VertexID >> 1) * 4 - 1));
    gl_Position = vec4(p, 0.0, 1.0);
}
