#version 330 core
// model.vert — skinned (or static) mesh vertices into the world: positions,
// normals and tangents all go through the same blended skin matrix, then the
// draw's world matrix (normals through its inverse transpose).
#include "skin.glsl"

layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_uv;
layout(location = 3) in vec4 a_tangent;   // xyz, w = bitangent sign
layout(location = 4) in uvec4 a_joints;
layout(location = 5) in vec4 a_weights;
layout(location = 6) in uvec4 a_joints1;  // influences 5-8 (read when MR_SKIN == 2)
layout(location = 7) in vec4 a_weights1;

uniform mat4 u_world;
uniform mat4 u_normal_matrix;
uniform mat4 u_view_proj;

out vec3 v_world;
out vec3 v_normal;
out vec4 v_tangent;
out vec2 v_uv;

// as in depth.vert, whose pre-pass depths this pass tests with LEQUAL
invariant gl_Position;

void main()
{
    vec3 pos = a_position, nrm = a_normal;
    morph(pos, nrm);
    mat4 skin = skin_matrix(a_joints, a_weights, a_joints1, a_weights1);
    vec4 p = u_world * (skin * vec4(pos, 1.0));
    v_world = p.xyz;
    v_normal = mat3(u_normal_matrix) * (mat3(skin) * nrm);
    v_tangent = vec4(mat3(u_world) * (mat3(skin) * a_tangent.xyz), a_tangent.w);
    v_uv = a_uv;
    gl_Position = u_view_proj * p;
}
