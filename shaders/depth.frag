#version 330 core
// depth.frag — depth only (the shadow map, the depth pre-pass).
void main()
{
}
