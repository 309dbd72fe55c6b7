#version 330 core
// shadow.vert — the same skinning as model.vert, seen from light 0.
#include "skin.glsl"

layout(location = 0) in vec3 a_position;
layout(location = 4) in uvec4 a_joints;
layout(location = 5) in vec4 a_weights;
layout(location = 6) in uvec4 a_joints1;  // influences 5-8 (read when MR_SKIN == 2)
layout(location = 7) in vec4 a_weights1;

uniform mat4 u_world;
uniform mat4 u_light_view_proj;

void main()
{
    mat4 skin = skin_matrix(a_joints, a_weights, a_joints1, a_weights1);
    gl_Position = u_light_view_proj * (u_world * (skin * vec4(a_position, 1.0)));
}
