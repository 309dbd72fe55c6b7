#version 330 core
// depth.vert — the same skinning and the same position arithmetic as
// model.vert, through any view-projection: light 0's for the shadow map,
// the camera's for the depth pre-pass. gl_Position is invariant here and in
// model.vert, so the pre-pass writes the very depths the model pass
// computes (the model pass tests them with LEQUAL).
#include "skin.glsl"

layout(location = 0) in vec3 a_position;
layout(location = 4) in uvec4 a_joints;
layout(location = 5) in vec4 a_weights;
layout(location = 6) in uvec4 a_joints1;  // influences 5-8 (read when MR_SKIN == 2)
layout(location = 7) in vec4 a_weights1;

uniform mat4 u_world;
uniform mat4 u_view_proj;

invariant gl_Position;

void main()
{
    vec3 pos = a_position, nrm = vec3(0.0);
    morph(pos, nrm);
    mat4 skin = skin_matrix(a_joints, a_weights, a_joints1, a_weights1);
    vec4 p = u_world * (skin * vec4(pos, 1.0));
    gl_Position = u_view_proj * p;
}
