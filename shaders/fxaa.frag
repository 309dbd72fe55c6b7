#version 330 core
// fxaa.frag — post-process anti-aliasing of the single-sampled frame
// (renderer.h: samples <= 1), after the method Timothy Lottes published as
// FXAA: find the pixels on a luma edge, work out which way the edge runs and
// where along it the pixel lies (by walking the edge both ways to where it
// ends), and resample the frame up to half a pixel across the edge by how
// close the pixel is to the nearer end; one-pixel features get a separate
// sub-pixel blend. Written for marrow from that description.
//
// Sized for llvmpipe, which runs every instruction for every pixel it shades
// (its branches and discards are masks, not jumps, so an early exit saves
// nothing): five texel reads for the neighbourhood, a straight-line walk of
// STEPS bilinear reads each way, one final read; no corners, no loop. What
// does save is not shading a pixel: with MR_FXAA_MARK 1 this file is the
// renderer's first, cheap pass (the neighbourhood test only), which marks
// the edge pixels in the stencil; the full pass then runs on those alone.
uniform sampler2D u_frame;     // the frame, bilinear, clamped

out vec4 frag_color;

const float EDGE_MIN = 0.0312;     // luma range below which nothing is done...
const float EDGE_REL = 0.125;      // ...or below this share of the brightest neighbour
const float SUBPIX = 0.75;         // strength of the sub-pixel blend (0..1)
const int STEPS = 3;
const float STEP_AT[STEPS] = float[](1.0, 2.0, 4.0);   // walk distances in pixels

float luma(vec3 c)
{
    return dot(c, vec3(0.299, 0.587, 0.114));
}

void main()
{
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 last = textureSize(u_frame, 0) - 1;
    vec4 centre = texelFetch(u_frame, p, 0);
    float m = luma(centre.rgb);
    float n = luma(texelFetch(u_frame, min(p + ivec2(0, 1), last), 0).rgb);
    float s = luma(texelFetch(u_frame, max(p - ivec2(0, 1), ivec2(0)), 0).rgb);
    float e = luma(texelFetch(u_frame, min(p + ivec2(1, 0), last), 0).rgb);
    float w = luma(texelFetch(u_frame, max(p - ivec2(1, 0), ivec2(0)), 0).rgb);
    float lo = min(m, min(min(n, s), min(e, w)));
    float hi = max(m, max(max(n, s), max(e, w)));
    float range = hi - lo;
    // A soft gate, not a step: a small change of the frame near the
    // threshold makes a small change of the output (regression shots of
    // nearly equal frames stay nearly equal).
    float edge = smoothstep(1.0, 1.5, range / max(EDGE_MIN, hi * EDGE_REL));
#if MR_FXAA_MARK
    // The marking variant: the renderer runs it first with the stencil set
    // where it does not discard, then the whole pass only on those pixels.
    // Elsewhere edge is 0 and the pass would write the pixel unchanged.
    if (!(edge > 0.0)) discard;
    frag_color = centre;
    return;
#endif

    // Sub-pixel: how far the pixel stands out from its neighbours.
    float sub = clamp(abs(0.25 * (n + s + e + w) - m) / max(range, 1e-4), 0.0, 1.0);
    sub = smoothstep(0.0, 1.0, sub);
    sub = sub * sub * SUBPIX;

    // Which way the edge runs: the luma's curvature across the rows (a
    // horizontal edge) against across the columns.
    bool horizontal = abs(n + s - 2.0 * m) >= abs(e + w - 2.0 * m);
    // The side the edge is on: the neighbour across it that differs more.
    float l1 = horizontal ? s : w, l2 = horizontal ? n : e;
    float g1 = abs(l1 - m), g2 = abs(l2 - m);
    bool second = g2 >= g1;
    float mid = 0.5 * (m + (second ? l2 : l1));
    float limit = 0.25 * max(g1, g2);

    vec2 texel = 1.0 / vec2(textureSize(u_frame, 0));
    vec2 across = horizontal ? vec2(0.0, texel.y) : vec2(texel.x, 0.0);
    vec2 along = horizontal ? vec2(texel.x, 0.0) : vec2(0.0, texel.y);
    if (!second) across = -across;

    // Walk along the edge half a pixel towards the side: a bilinear read
    // there averages the two pixels across the edge, and the edge ends
    // where that average leaves the one at the pixel by a quarter of the
    // gradient. Not found: the end is taken one step beyond the last read.
    vec2 uv = (vec2(p) + 0.5) * texel + across * 0.5;
    float d_neg = STEP_AT[STEPS - 1] * 1.5, d_pos = d_neg, end_neg = mid, end_pos = mid;
    bool found_neg = false, found_pos = false;
    for (int i = 0; i < STEPS; i++) {
        float ln = luma(texture(u_frame, uv - along * STEP_AT[i]).rgb);
        float lp = luma(texture(u_frame, uv + along * STEP_AT[i]).rgb);
        bool hit_n = !found_neg && abs(ln - mid) >= limit;
        bool hit_p = !found_pos && abs(lp - mid) >= limit;
        d_neg = hit_n ? STEP_AT[i] : d_neg;
        end_neg = hit_n ? ln : end_neg;
        d_pos = hit_p ? STEP_AT[i] : d_pos;
        end_pos = hit_p ? lp : end_pos;
        found_neg = found_neg || hit_n;
        found_pos = found_pos || hit_p;
    }
    // The nearer end decides: the pixel is blended only when it lies on the
    // side of the edge the end turns away from (its luma and the end's are
    // on opposite sides of the edge's mid value).
    float end = d_neg < d_pos ? end_neg : end_pos;
    float offset = ((m < mid) != (end < mid)) ? 0.5 - min(d_neg, d_pos) / (d_neg + d_pos) : 0.0;
    offset = edge * max(offset, sub);
    vec2 at = (vec2(p) + 0.5) * texel + across * offset;
    frag_color = vec4(texture(u_frame, at).rgb, centre.a);
}
