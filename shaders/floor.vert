#version 330 core
// floor.vert — a horizontal square at height u_floor_y, generated from
// gl_VertexID (triangle strip of 4, no vertex buffer).
uniform vec2 u_floor_center;
uniform float u_floor_extent;
uniform float u_floor_y;
uniform mat4 u_view_proj;

out vec3 v_world;

void main()
{
    vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1)) * 2.0 - 1.0;
    vec3 p = vec3(u_floor_center.x + corner.x * u_floor_extent, u_floor_y,
                  u_floor_center.y + corner.y * u_floor_extent);
    v_world = p;
    gl_Position = u_view_proj * vec4(p, 1.0);
}
