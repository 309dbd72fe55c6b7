/* blend_groups.h — the blend job's SIMD kernel, written once for two
 * vector widths (internal to blend.c, which includes it once per width
 * with the BG_* macros below defined; not a public header, no guard).
 *
 * BG_NAME(job, total, from) blends and finishes the joints of an unmasked
 * job whose total weight is above the threshold, BG_W joints at a time from
 * joint `from` while a whole group fits, and returns the joints done. Every
 * layer of a group is accumulated in registers and the group finished there:
 * one pass over memory instead of one per layer and step. The float
 * operations are those of flat_weighted, add_rotations (signs against the
 * first weighted layer) and blend_finish, in their order, so the result is
 * theirs bit for bit, whatever the width. Rotations stay as loaded (one
 * joint's x, y, z, w per 128-bit lane); only the products for the dots and
 * lengths are transposed, within each lane. A group with a vanishing
 * rotation sum is normalised by the scalar path (its rest-pose fallback).
 *
 * Macros: BG_NAME, BG_ATTR (function attributes), BG_W (4 or 8 joints),
 * BG_V (vector type of BG_W floats), BG_SET1, BG_LOAD, BG_STORE, BG_ADD,
 * BG_MUL, BG_DIV, BG_SQRT, BG_AND, BG_XOR, BG_LT, BG_GT, BG_MASK
 * (movemask), BG_LO, BG_HI (unpack), BG_SHUF (shuffle of two vectors,
 * within 128-bit lanes); all are undefined at the end. */

#define BG_SPLAT(v, k) BG_SHUF(v, v, (k) * 0x55)   /* element k of each lane, to all of the lane */
/* 4x4 transpose within each 128-bit lane: a, b, c, d become the lanes'
 * first, second, third and fourth elements. */
#define BG_TRANSPOSE(a, b, c, d)                                                        \
    do {                                                                                \
        BG_V lo_ab = BG_LO(a, b), lo_cd = BG_LO(c, d), hi_ab = BG_HI(a, b), hi_cd = BG_HI(c, d); \
        a = BG_SHUF(lo_ab, lo_cd, 0x44);                                                \
        b = BG_SHUF(lo_ab, lo_cd, 0xEE);                                                \
        c = BG_SHUF(hi_ab, hi_cd, 0x44);                                                \
        d = BG_SHUF(hi_ab, hi_cd, 0xEE);                                                \
    } while (0)

BG_ATTR static int BG_NAME(const mr_blend_job *job, float total, int from)
{
    const mr_skeleton *sk = job->skeleton;
    mr_pose *out = job->out;
    int first = 0;                       /* the first weighted layer (total > 0: there is one) */
    while (!(job->layers[first].weight > 0.0f)) first++;
    int j = from;
    for (; j + BG_W <= sk->joint_count; j += BG_W) {
        /* Translations and scales, then rotations: fewer values live at once. */
        const float *pt = job->layers[first].pose->t[j], *ps = job->layers[first].pose->s[j];
        BG_V wv = BG_SET1(job->layers[first].weight);
        BG_V t0 = BG_MUL(wv, BG_LOAD(pt)), t1 = BG_MUL(wv, BG_LOAD(pt + BG_W)), t2 = BG_MUL(wv, BG_LOAD(pt + 2 * BG_W));
        BG_V s0 = BG_MUL(wv, BG_LOAD(ps)), s1 = BG_MUL(wv, BG_LOAD(ps + BG_W)), s2 = BG_MUL(wv, BG_LOAD(ps + 2 * BG_W));
        for (int i = first + 1; i < job->layer_count; i++) {
            float w = job->layers[i].weight;
            if (!(w > 0.0f)) continue;
            pt = job->layers[i].pose->t[j];
            ps = job->layers[i].pose->s[j];
            wv = BG_SET1(w);
            t0 = BG_ADD(t0, BG_MUL(wv, BG_LOAD(pt)));
            t1 = BG_ADD(t1, BG_MUL(wv, BG_LOAD(pt + BG_W)));
            t2 = BG_ADD(t2, BG_MUL(wv, BG_LOAD(pt + 2 * BG_W)));
            s0 = BG_ADD(s0, BG_MUL(wv, BG_LOAD(ps)));
            s1 = BG_ADD(s1, BG_MUL(wv, BG_LOAD(ps + BG_W)));
            s2 = BG_ADD(s2, BG_MUL(wv, BG_LOAD(ps + 2 * BG_W)));
        }
        const BG_V inv = BG_SET1(1.0f / total);
        float *ot = out->t[j], *os = out->s[j], *orr = out->r[j];
        BG_STORE(ot, BG_MUL(t0, inv));
        BG_STORE(ot + BG_W, BG_MUL(t1, inv));
        BG_STORE(ot + 2 * BG_W, BG_MUL(t2, inv));
        BG_STORE(os, BG_MUL(s0, inv));
        BG_STORE(os + BG_W, BG_MUL(s1, inv));
        BG_STORE(os + 2 * BG_W, BG_MUL(s2, inv));

        const float *ref = job->layers[first].pose->r[j];
        wv = BG_SET1(job->layers[first].weight);
        BG_V r0 = BG_MUL(wv, BG_LOAD(ref)), r1 = BG_MUL(wv, BG_LOAD(ref + BG_W));
        BG_V r2 = BG_MUL(wv, BG_LOAD(ref + 2 * BG_W)), r3 = BG_MUL(wv, BG_LOAD(ref + 3 * BG_W));
        BG_V m0, m1, m2, m3;
        for (int i = first + 1; i < job->layer_count; i++) {
            float w = job->layers[i].weight;
            if (!(w > 0.0f)) continue;
            const float *pr = job->layers[i].pose->r[j];
            BG_V q0 = BG_LOAD(pr), q1 = BG_LOAD(pr + BG_W), q2 = BG_LOAD(pr + 2 * BG_W), q3 = BG_LOAD(pr + 3 * BG_W);
            m0 = BG_MUL(BG_LOAD(ref), q0);
            m1 = BG_MUL(BG_LOAD(ref + BG_W), q1);
            m2 = BG_MUL(BG_LOAD(ref + 2 * BG_W), q2);
            m3 = BG_MUL(BG_LOAD(ref + 3 * BG_W), q3);
            BG_TRANSPOSE(m0, m1, m2, m3);
            BG_V dot = BG_ADD(BG_ADD(BG_ADD(m0, m1), m2), m3);
            BG_V wr = BG_XOR(BG_SET1(w), BG_AND(BG_LT(dot, BG_SET1(0.0f)), BG_SET1(-0.0f)));
            r0 = BG_ADD(r0, BG_MUL(BG_SPLAT(wr, 0), q0));
            r1 = BG_ADD(r1, BG_MUL(BG_SPLAT(wr, 1), q1));
            r2 = BG_ADD(r2, BG_MUL(BG_SPLAT(wr, 2), q2));
            r3 = BG_ADD(r3, BG_MUL(BG_SPLAT(wr, 3), q3));
        }
        m0 = BG_MUL(r0, r0);
        m1 = BG_MUL(r1, r1);
        m2 = BG_MUL(r2, r2);
        m3 = BG_MUL(r3, r3);
        BG_TRANSPOSE(m0, m1, m2, m3);
        BG_V len2 = BG_ADD(BG_ADD(BG_ADD(m0, m1), m2), m3);
        if (BG_MASK(BG_GT(len2, BG_SET1(1e-24f))) != (1 << BG_W) - 1) {
            BG_STORE(orr, r0);
            BG_STORE(orr + BG_W, r1);
            BG_STORE(orr + 2 * BG_W, r2);
            BG_STORE(orr + 3 * BG_W, r3);
            normalize_rotations_scalar(out->r[0], (const versor *)sk->rest_r, j, j + BG_W);
            continue;
        }
        BG_V il = BG_DIV(BG_SET1(1.0f), BG_SQRT(len2));
        BG_STORE(orr, BG_MUL(r0, BG_SPLAT(il, 0)));
        BG_STORE(orr + BG_W, BG_MUL(r1, BG_SPLAT(il, 1)));
        BG_STORE(orr + 2 * BG_W, BG_MUL(r2, BG_SPLAT(il, 2)));
        BG_STORE(orr + 3 * BG_W, BG_MUL(r3, BG_SPLAT(il, 3)));
    }
    return j;
}

#undef BG_SPLAT
#undef BG_TRANSPOSE
/* The parameters too, so the file can be included again with others. */
#undef BG_V
#undef BG_W
#undef BG_NAME
#undef BG_ATTR
#undef BG_SET1
#undef BG_LOAD
#undef BG_STORE
#undef BG_ADD
#undef BG_MUL
#undef BG_DIV
#undef BG_SQRT
#undef BG_AND
#undef BG_XOR
#undef BG_LT
#undef BG_GT
#undef BG_MASK
#undef BG_LO
#undef BG_HI
#undef BG_SHUF
