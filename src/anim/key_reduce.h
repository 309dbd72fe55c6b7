/* key_reduce.h — the greedy key reduction that key thinning
 * (clip_optimize.c) and the packed clip (clip_pack.c) share (internal to
 * src/anim): from each kept key, the farthest key that one interpolated
 * segment reaches within its budget, found by galloping and then
 * bisecting. The caller says what "within" means. */
#ifndef MR_ANIM_KEY_REDUCE_H
#define MR_ANIM_KEY_REDUCE_H

/* Does interpolating from candidate key a to candidate key b stay within
 * budget at every checkpoint between them? */
typedef int (*mr_segment_fits)(const void *ctx, int a, int b);

/* Writes the indices of the kept keys of n candidates into kept (the first
 * and last included; a segment of adjacent keys is always kept) and
 * returns their count. */
static inline int mr_reduce_keys(int n, mr_segment_fits fits, const void *ctx, int *kept)
{
    int m = 0, a = 0;
    kept[m++] = 0;
    while (a < n - 1) {
        int lo = a + 1, hi = n, step = 2;   /* lo passes (or is adjacent), hi fails */
        while (lo < n - 1) {
            int probe = step > n - 1 - a ? n - 1 : a + step;
            if (fits(ctx, a, probe)) {
                lo = probe;
                if (probe == n - 1) break;
                step *= 2;
            } else {
                hi = probe;
                break;
            }
        }
        while (hi - lo > 1) {
            int mid = lo + (hi - lo) / 2;
            if (fits(ctx, a, mid)) lo = mid;
            else hi = mid;
        }
        kept[m++] = lo;
        a = lo;
    }
    return m;
}

#endif
