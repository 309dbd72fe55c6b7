#version 330 core
// shadow.frag — depth only.
void main()
{
}
