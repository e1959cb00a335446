#version 330 core
// SPDX-License-Identifier: GPL-3.0-or-later
// (#version must be the first line of a GLSL shader.)
// One triangle that covers the whole viewport (drawn with glDrawArrays(GL_TRIANGLES, 0, 3) and
// no vertex buffer); image.frag places the image from the fragment's widget position.
const vec2 kCorners[3] = vec2[3](vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0));

void main()
{
    gl_Position = vec4(kCorners[gl_VertexID], 0.0, 1.0);
}
