/* anim_fixture.h — a small hand-built skeleton and clip shared by the anim
 * unit tests: a 3-joint chain root -> a -> b along +X, 1 unit apart. */
#ifndef MR_TEST_ANIM_FIXTURE_H
#define MR_TEST_ANIM_FIXTURE_H

#include <stdlib.h>

#include "anim/clip.h"
#include "core/str.h"

static inline void fixture_chain(mr_skeleton *sk)
{
    mr_skeleton_init(sk, 3);
    const char *names[3] = {"root", "a", "b"};
    for (int i = 0; i < 3; i++) {
        sk->names[i] = mr_str_dup(names[i]);
        sk->parents[i] = i - 1;
        if (i > 0) sk->rest_t[i][0] = 1.0f;
    }
    mr_skeleton_compute_inverse_bind(sk);
}

/* A clip rotating joint "a" about Z from 0 to 90 degrees over 1 s with
 * keys at 0, 0.5, 1 and translating the root along Y by 2 units. */
static inline mr_clip *fixture_clip(void)
{
    mr_clip *c = NULL;
    mr_clip_create("bend", 3, &c);
    c->duration = 1.0f;
    c->rate = 2.0f;
    mr_track *r = &c->tracks[1].r;
    mr_track_init(r, 3, MR_INTERP_LINEAR);
    for (int i = 0; i < 3; i++) {
        r->times[i] = 0.5f * i;
        versor q;
        glm_quatv(q, glm_rad(45.0f * i), (vec3){0, 0, 1});
        glm_vec4_copy(q, r->values + 4 * i);
    }
    mr_track_finish(r);
    mr_track *t = &c->tracks[0].t;
    mr_track_init(t, 2, MR_INTERP_LINEAR);
    t->times[0] = 0.0f;
    t->times[1] = 1.0f;
    t->values[4] = 2.0f;  /* key 1: (0, 2, 0) */
    mr_track_finish(t);
    return c;
}

#endif
