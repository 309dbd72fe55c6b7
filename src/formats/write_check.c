/* write_check.c — a model every reader takes back (see write_check.h). */
#include "formats/write_check.h"

#include <math.h>
#include <string.h>

static int finite_all(const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

static mr_status bad(mr_error *err, const char *path, const char *what, const char *name, int index)
{
    return mr_error_set(err, MR_ERR_BAD_FILE, "%s: not written: %s %d%s%.64s%s is not a finite number", path, what,
                        index, name ? " '" : "", name ? name : "", name ? "'" : "");
}

static mr_status check_name(const char *name, const char *what, int index, const char *path, mr_error *err)
{
    size_t n = name ? strlen(name) : 0;
    if (n <= MR_WRITE_MAX_NAME) return MR_OK;
    return mr_error_set(err, MR_ERR_BAD_FILE, "%s: not written: the name of %s %d is %zu bytes, longer than the %d "
                        "a file marrow writes may hold", path, what, index, n, MR_WRITE_MAX_NAME);
}

static mr_status check_track(const mr_track *t, const mr_clip *c, const char *joint, const char *channel,
                             const char *path, mr_error *err)
{
    if (t->key_count <= 0) return MR_OK;
    size_t per_key = (size_t)t->components * (t->interp == MR_INTERP_CUBIC ? 3 : 1);
    if (finite_all(t->times, (size_t)t->key_count) && finite_all(t->values, (size_t)t->key_count * per_key))
        return MR_OK;
    return mr_error_set(err, MR_ERR_BAD_FILE, "%s: not written: clip '%.64s', joint '%.64s': a %s key is not a "
                        "finite number", path, c->name ? c->name : "", joint, channel);
}

mr_status mr_write_check_clip(const mr_model *m, const mr_clip *c, const char *path, mr_error *err)
{
    mr_status st = mr_clip_source(c, err);   /* the file's keys, when they are not resident */
    if (st != MR_OK) return st;
    st = check_name(c->name, "a clip", 0, path, err);
    if (st != MR_OK) return st;
    if (!isfinite(c->duration) || !isfinite(c->rate))
        return mr_error_set(err, MR_ERR_BAD_FILE, "%s: not written: clip '%.64s' has a duration or rate that is "
                            "not a finite number", path, c->name ? c->name : "");
    for (int j = 0; j < c->joint_count; j++) {
        const char *joint = j < m->skeleton.joint_count ? m->skeleton.names[j] : "?";
        const mr_joint_tracks *jt = &c->tracks[j];
        if ((st = check_track(&jt->t, c, joint, "translation", path, err)) != MR_OK ||
            (st = check_track(&jt->r, c, joint, "rotation", path, err)) != MR_OK ||
            (st = check_track(&jt->s, c, joint, "scale", path, err)) != MR_OK)
            return st;
    }
    for (int k = 0; k < c->marker_count; k++)
        if ((st = check_name(c->markers[k].name, "a marker", k, path, err)) != MR_OK) return st;
    return MR_OK;
}

mr_status mr_write_check_model(const mr_model *m, const char *path, mr_error *err)
{
    const mr_skeleton *sk = &m->skeleton;
    mr_status st;
    for (int j = 0; j < sk->joint_count; j++) {
        if ((st = check_name(sk->names[j], "joint", j, path, err)) != MR_OK) return st;
        if (!finite_all(sk->rest_t[j], 3) || !finite_all(sk->rest_r[j], 4) || !finite_all(sk->rest_s[j], 3) ||
            !finite_all(&sk->inverse_bind[j][0][0], 16))
            return bad(err, path, "the rest pose of joint", sk->names[j], j);
    }
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *me = &m->meshes[i];
        if ((st = check_name(me->name, "mesh", i, path, err)) != MR_OK ||
            (st = check_name(me->material.name, "the material of mesh", i, path, err)) != MR_OK)
            return st;
        size_t n = me->vertex_count > 0 ? (size_t)me->vertex_count : 0;
        if ((me->positions && !finite_all(me->positions[0], n * 3)) ||
            (me->normals && !finite_all(me->normals[0], n * 3)) || (me->uvs && !finite_all(me->uvs[0], n * 2)) ||
            (me->weights && !finite_all(me->weights[0], n * MR_MAX_INFLUENCES)))
            return bad(err, path, "a vertex of mesh", me->name, i);
    }
    for (int c = 0; c < m->clip_count; c++)
        if ((st = mr_write_check_clip(m, m->clips[c], path, err)) != MR_OK) return st;
    return MR_OK;
}
