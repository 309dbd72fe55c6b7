/* wrap_math.c — marrow.vec3, marrow.quat, marrow.mat4: small math values as
 * full userdata (floats), with __index/__newindex fields, __mul, __add,
 * __eq and __tostring.
 *
 *   vec3(x, y, z)          fields x y z; + - * / unary -, :length() :normalize()
 *                          :dot(b) :cross(b) :lerp(b, t) :unpack()
 *   quat(x, y, z, w)       fields x y z w; quat() is the identity.
 *   quat.euler(x, y, z)    degrees; rotates about X, then Y, then Z (fixed axes)
 *   quat.axis_angle(axis, degrees)
 *   quat.look_rotation(forward [, up = +Y])  maps +Z to forward, +Y towards up
 *   quat.from_to(a, b)     the shortest rotation turning direction a onto b
 *                          (any lengths, not zero); opposite directions turn
 *                          half a turn about an axis perpendicular to a
 *   quat.slerp(a, b, t)    shortest path
 *   q * q (q applied after the right one), q * v (rotates v), :inverse()
 *   :normalize() :slerp(b, t) :to_euler() :unpack()
 *   mat4()                 identity; mat4{16 numbers} column-major
 *   mat4.trs(t, r, s)  mat4.translate(v)  mat4.rotate(q)  mat4.scale(s or v)
 *   m[1]..m[16] column-major (m[13], m[14], m[15] is the translation),
 *   m * m, m * v (a point), :translation() :rotation() :inverse() :transpose()
 *
 * Angles are degrees everywhere. Userdata memory is only 8-byte aligned, so
 * values are copied to stack variables before any cglm SIMD function.
 * Pushing and checking the values (a table {x, y, z} is accepted for a
 * vec3, {x, y, z, w} for a quat) is in udata.c.
 */
#include <math.h>
#include <string.h>

#include "core/quat.h"
#include "lua/wrap.h"

static float optnum(lua_State *L, int arg, float def)
{
    return (float)mr_lua_opt_number(L, arg, def);
}

/* Formats a float like %g but always readable ("0", "1.5", "-0.25"). */
static void fmt_num(char *buf, size_t n, float v)
{
    snprintf(buf, n, "%.6g", fabsf(v) < 5e-7f ? 0.0f : v);
}

/* ---- quaternion helpers (x, y, z, w) -------------------------------------- */

static void quat_mul(const float a[4], const float b[4], float out[4])
{
    float r[4];
    r[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    r[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    r[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    r[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    memcpy(out, r, sizeof r);
}

static void quat_normalize(float q[4])
{
    float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (len < 1e-20f) {
        q[0] = q[1] = q[2] = 0.0f;
        q[3] = 1.0f;
        return;
    }
    for (int i = 0; i < 4; i++) q[i] /= len;
}

static void quat_axis_angle(const float axis[3], float degrees, float out[4])
{
    float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    float h = glm_rad(degrees) * 0.5f, s = len > 1e-20f ? sinf(h) / len : 0.0f;
    out[0] = axis[0] * s;
    out[1] = axis[1] * s;
    out[2] = axis[2] * s;
    out[3] = cosf(h);
}

static void quat_rotate(const float q[4], const float v[3], float out[3])
{
    /* v' = v + 2w (u x v) + 2 u x (u x v), u = q.xyz */
    float u[3] = {q[0], q[1], q[2]}, w = q[3], c[3], cc[3];
    c[0] = u[1] * v[2] - u[2] * v[1];
    c[1] = u[2] * v[0] - u[0] * v[2];
    c[2] = u[0] * v[1] - u[1] * v[0];
    cc[0] = u[1] * c[2] - u[2] * c[1];
    cc[1] = u[2] * c[0] - u[0] * c[2];
    cc[2] = u[0] * c[1] - u[1] * c[0];
    for (int i = 0; i < 3; i++) out[i] = v[i] + 2.0f * (w * c[i] + cc[i]);
}

static void quat_slerp(const float a[4], const float b_in[4], float t, float out[4])
{
    float b[4];
    memcpy(b, b_in, sizeof b);
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (d < 0) {
        for (int i = 0; i < 4; i++) b[i] = -b[i];
        d = -d;
    }
    float wa, wb;
    if (d > 0.9995f) {
        wa = 1.0f - t;
        wb = t;
    } else {
        float th = acosf(d), s = sinf(th);
        wa = sinf((1.0f - t) * th) / s;
        wb = sinf(t * th) / s;
    }
    for (int i = 0; i < 4; i++) out[i] = wa * a[i] + wb * b[i];
    quat_normalize(out);
}

static void quat_from_matrix(const mat4 m_in, float out[4])
{
    mr_quat_from_matrix((vec4 *)m_in, out);
    quat_normalize(out);
}

/* ---- vec3 ------------------------------------------------------------------ */

static float *checkv(lua_State *L, int i) { return mr_lua_check_udata(L, i, MR_LUA_VEC3); }

static int vec3_new(lua_State *L)
{
    /* marrow.vec3(x, y, z) or marrow.vec3{...}; called through __call, so
     * argument 1 is the vec3 table itself. */
    float v[3] = {0, 0, 0};
    if (lua_istable(L, 2) || lua_isuserdata(L, 2)) mr_lua_check_vec3(L, 2, v);
    else for (int i = 0; i < 3; i++) v[i] = optnum(L, i + 2, 0.0f);
    mr_lua_check_max_args(L, 4);
    mr_lua_push_vec3(L, v);
    return 1;
}

/* __index tail shared by vec3, quat and mat4: integer keys 1..n read
 * elements (nil outside), anything else is looked up in the type's methods. */
static int index_elements_or_method(lua_State *L, const float *v, int n)
{
    if (lua_isinteger(L, 2)) {
        lua_Integer i = lua_tointeger(L, 2);
        if (i >= 1 && i <= n) lua_pushnumber(L, v[i - 1]);
        else lua_pushnil(L);
        return 1;
    }
    lua_getmetatable(L, 1);
    lua_getfield(L, -1, "methods");
    lua_pushvalue(L, 2);
    lua_rawget(L, -2);
    return 1;
}

static int vec3_index(lua_State *L)
{
    float *v = checkv(L, 1);
    size_t len;
    const char *k = lua_tolstring(L, 2, &len);
    if (k && len == 1 && k[0] >= 'x' && k[0] <= 'z') {
        lua_pushnumber(L, v[k[0] - 'x']);
        return 1;
    }
    return index_elements_or_method(L, v, 3);
}

static int vec3_newindex(lua_State *L)
{
    float *v = checkv(L, 1);
    size_t len;
    const char *k = lua_tolstring(L, 2, &len);
    int i = -1;
    if (k && len == 1 && k[0] >= 'x' && k[0] <= 'z') i = k[0] - 'x';
    else if (lua_isinteger(L, 2) && lua_tointeger(L, 2) >= 1 && lua_tointeger(L, 2) <= 3)
        i = (int)lua_tointeger(L, 2) - 1;
    if (i < 0) return luaL_error(L, "vec3 has no field %s (fields are x, y, z)", mr_lua_describe(L, 2));
    v[i] = (float)mr_lua_check_number(L, 3);
    return 0;
}

static int vec3_add(lua_State *L)
{
    float a[3], b[3], r[3];
    mr_lua_check_vec3(L, 1, a);
    mr_lua_check_vec3(L, 2, b);
    for (int i = 0; i < 3; i++) r[i] = a[i] + b[i];
    mr_lua_push_vec3(L, r);
    return 1;
}

static int vec3_sub(lua_State *L)
{
    float a[3], b[3], r[3];
    mr_lua_check_vec3(L, 1, a);
    mr_lua_check_vec3(L, 2, b);
    for (int i = 0; i < 3; i++) r[i] = a[i] - b[i];
    mr_lua_push_vec3(L, r);
    return 1;
}

static int vec3_mul(lua_State *L)
{
    float a[3], b[3], r[3];
    if (lua_isnumber(L, 1)) {          /* s * v */
        float s = (float)lua_tonumber(L, 1);
        mr_lua_check_vec3(L, 2, b);
        for (int i = 0; i < 3; i++) r[i] = s * b[i];
    } else if (lua_isnumber(L, 2)) {   /* v * s */
        float s = (float)lua_tonumber(L, 2);
        mr_lua_check_vec3(L, 1, a);
        for (int i = 0; i < 3; i++) r[i] = a[i] * s;
    } else {                           /* component-wise */
        mr_lua_check_vec3(L, 1, a);
        mr_lua_check_vec3(L, 2, b);
        for (int i = 0; i < 3; i++) r[i] = a[i] * b[i];
    }
    mr_lua_push_vec3(L, r);
    return 1;
}

static int vec3_div(lua_State *L)
{
    float a[3], r[3];
    mr_lua_check_vec3(L, 1, a);
    float s = (float)mr_lua_check_number(L, 2);
    for (int i = 0; i < 3; i++) r[i] = a[i] / s;
    mr_lua_push_vec3(L, r);
    return 1;
}

static int vec3_unm(lua_State *L)
{
    float *a = checkv(L, 1), r[3] = {-a[0], -a[1], -a[2]};
    mr_lua_push_vec3(L, r);
    return 1;
}

static int vec3_eq(lua_State *L)
{
    float *a = luaL_testudata(L, 1, MR_LUA_VEC3), *b = luaL_testudata(L, 2, MR_LUA_VEC3);
    lua_pushboolean(L, a && b && a[0] == b[0] && a[1] == b[1] && a[2] == b[2]);
    return 1;
}

static int vec3_tostring(lua_State *L)
{
    float *v = checkv(L, 1);
    char x[32], y[32], z[32];
    fmt_num(x, sizeof x, v[0]);
    fmt_num(y, sizeof y, v[1]);
    fmt_num(z, sizeof z, v[2]);
    lua_pushfstring(L, "vec3(%s, %s, %s)", x, y, z);
    return 1;
}

static int vec3_length(lua_State *L)
{
    float *v = checkv(L, 1);
    mr_lua_check_max_args(L, 1);
    lua_pushnumber(L, sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]));
    return 1;
}

static int vec3_normalize(lua_State *L)
{
    float *v = checkv(L, 1), r[3] = {0, 0, 0};
    float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (len > 1e-20f) for (int i = 0; i < 3; i++) r[i] = v[i] / len;
    mr_lua_check_max_args(L, 1);
    mr_lua_push_vec3(L, r);
    return 1;
}

static int vec3_dot(lua_State *L)
{
    float a[3], b[3];
    mr_lua_check_vec3(L, 1, a);
    mr_lua_check_vec3(L, 2, b);
    mr_lua_check_max_args(L, 2);
    lua_pushnumber(L, (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2]);
    return 1;
}

static int vec3_cross(lua_State *L)
{
    float a[3], b[3];
    mr_lua_check_vec3(L, 1, a);
    mr_lua_check_vec3(L, 2, b);
    float r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    mr_lua_check_max_args(L, 2);
    mr_lua_push_vec3(L, r);
    return 1;
}

static int vec3_lerp(lua_State *L)
{
    float a[3], b[3], r[3];
    mr_lua_check_vec3(L, 1, a);
    mr_lua_check_vec3(L, 2, b);
    float t = (float)mr_lua_check_number(L, 3);
    for (int i = 0; i < 3; i++) r[i] = a[i] + (b[i] - a[i]) * t;
    mr_lua_check_max_args(L, 3);
    mr_lua_push_vec3(L, r);
    return 1;
}

static int vec3_unpack(lua_State *L)
{
    float *v = checkv(L, 1);
    mr_lua_check_max_args(L, 1);
    for (int i = 0; i < 3; i++) lua_pushnumber(L, v[i]);
    return 3;
}

static const luaL_Reg vec3_methods[] = {
    {"length", vec3_length}, {"normalize", vec3_normalize}, {"dot", vec3_dot},
    {"cross", vec3_cross},   {"lerp", vec3_lerp},           {"unpack", vec3_unpack},
    {NULL, NULL},
};

static const luaL_Reg vec3_meta[] = {
    {"__index", vec3_index}, {"__newindex", vec3_newindex}, {"__add", vec3_add},
    {"__sub", vec3_sub},     {"__mul", vec3_mul},           {"__div", vec3_div},
    {"__unm", vec3_unm},     {"__eq", vec3_eq},             {"__tostring", vec3_tostring},
    {NULL, NULL},
};

/* ---- quat ------------------------------------------------------------------ */

static float *checkq(lua_State *L, int i) { return mr_lua_check_udata(L, i, MR_LUA_QUAT); }

static int quat_new(lua_State *L)
{
    float q[4] = {0, 0, 0, 1};
    if (lua_istable(L, 2) || lua_isuserdata(L, 2)) mr_lua_check_quat(L, 2, q);
    else if (!lua_isnoneornil(L, 2))
        for (int i = 0; i < 4; i++) q[i] = (float)mr_lua_check_number(L, i + 2);
    mr_lua_check_max_args(L, 5);
    mr_lua_push_quat(L, q);
    return 1;
}

static int quat_identity(lua_State *L)
{
    mr_lua_check_max_args(L, 0);
    mr_lua_push_quat(L, (float[4]){0, 0, 0, 1});
    return 1;
}

static int quat_euler(lua_State *L)
{
    double xyz[3] = {mr_lua_check_number(L, 1), mr_lua_check_number(L, 2), mr_lua_check_number(L, 3)};
    float q[4];
    mr_quat_from_euler_deg(q, xyz);
    mr_lua_check_max_args(L, 3);
    mr_lua_push_quat(L, q);
    return 1;
}

static int quat_axis_angle_l(lua_State *L)
{
    float axis[3], q[4];
    mr_lua_check_vec3(L, 1, axis);
    float deg = (float)mr_lua_check_number(L, 2);
    mr_lua_arg_check(L, axis[0] != 0 || axis[1] != 0 || axis[2] != 0, 1, "axis must not be zero");
    quat_axis_angle(axis, deg, q);
    mr_lua_check_max_args(L, 2);
    mr_lua_push_quat(L, q);
    return 1;
}

static int quat_look_rotation(lua_State *L)
{
    float f[3], up[3] = {0, 1, 0};
    mr_lua_check_vec3(L, 1, f);
    if (!lua_isnoneornil(L, 2)) mr_lua_check_vec3(L, 2, up);
    vec3 fw = {f[0], f[1], f[2]}, u = {up[0], up[1], up[2]}, r;
    mr_lua_arg_check(L, glm_vec3_norm(fw) > 1e-12f, 1, "forward must not be zero");
    glm_vec3_normalize(fw);
    glm_vec3_cross(u, fw, r);
    if (glm_vec3_norm(r) < 1e-6f) {         /* up parallel to forward: pick another */
        vec3 alt = {fabsf(fw[0]) < 0.9f ? 1.0f : 0.0f, 0, fabsf(fw[0]) < 0.9f ? 0.0f : 1.0f};
        glm_vec3_cross(alt, fw, r);
    }
    glm_vec3_normalize(r);
    glm_vec3_cross(fw, r, u);
    mat4 m = GLM_MAT4_IDENTITY_INIT;
    glm_vec3_copy(r, m[0]);
    glm_vec3_copy(u, m[1]);
    glm_vec3_copy(fw, m[2]);
    float q[4];
    quat_from_matrix(m, q);
    mr_lua_check_max_args(L, 2);
    mr_lua_push_quat(L, q);
    return 1;
}

static int quat_from_to_l(lua_State *L)
{
    float a[3], b[3], q[4];
    mr_lua_check_vec3(L, 1, a);
    mr_lua_check_vec3(L, 2, b);
    vec3 u = {a[0], a[1], a[2]}, v = {b[0], b[1], b[2]};
    mr_lua_arg_check(L, glm_vec3_norm(u) > 1e-12f && isfinite(glm_vec3_norm(u)), 1,
                     "direction must not be zero");
    mr_lua_arg_check(L, glm_vec3_norm(v) > 1e-12f && isfinite(glm_vec3_norm(v)), 2,
                     "direction must not be zero");
    versor r;
    mr_quat_from_to(u, v, r);
    memcpy(q, r, sizeof q);
    mr_lua_check_max_args(L, 2);
    mr_lua_push_quat(L, q);
    return 1;
}

static int quat_slerp_l(lua_State *L)
{
    float a[4], b[4], r[4];
    mr_lua_check_quat(L, 1, a);
    mr_lua_check_quat(L, 2, b);
    quat_slerp(a, b, (float)mr_lua_check_number(L, 3), r);
    mr_lua_check_max_args(L, 3);
    mr_lua_push_quat(L, r);
    return 1;
}

static int quat_index(lua_State *L)
{
    float *q = checkq(L, 1);
    size_t len;
    const char *k = lua_tolstring(L, 2, &len);
    if (k && len == 1 && ((k[0] >= 'x' && k[0] <= 'z') || k[0] == 'w')) {
        lua_pushnumber(L, q[k[0] == 'w' ? 3 : k[0] - 'x']);
        return 1;
    }
    return index_elements_or_method(L, q, 0);  /* no numbered elements */
}

static int quat_newindex(lua_State *L)
{
    float *q = checkq(L, 1);
    size_t len;
    const char *k = lua_tolstring(L, 2, &len);
    if (!(k && len == 1 && ((k[0] >= 'x' && k[0] <= 'z') || k[0] == 'w')))
        return luaL_error(L, "quat has no field %s (fields are x, y, z, w)", mr_lua_describe(L, 2));
    q[k[0] == 'w' ? 3 : k[0] - 'x'] = (float)mr_lua_check_number(L, 3);
    return 0;
}

static int quat_mul_l(lua_State *L)
{
    float a[4];
    mr_lua_check_quat(L, 1, a);
    if (luaL_testudata(L, 2, MR_LUA_VEC3) || (lua_istable(L, 2) && lua_rawlen(L, 2) == 3)) {
        float v[3], r[3];
        mr_lua_check_vec3(L, 2, v);
        quat_rotate(a, v, r);
        mr_lua_push_vec3(L, r);
        return 1;
    }
    float b[4], r[4];
    mr_lua_check_quat(L, 2, b);
    quat_mul(a, b, r);
    mr_lua_push_quat(L, r);
    return 1;
}

static int quat_eq(lua_State *L)
{
    float *a = luaL_testudata(L, 1, MR_LUA_QUAT), *b = luaL_testudata(L, 2, MR_LUA_QUAT);
    lua_pushboolean(L, a && b && !memcmp(a, b, sizeof(float) * 4));
    return 1;
}

static int quat_tostring(lua_State *L)
{
    float *q = checkq(L, 1);
    char s[4][32];
    for (int i = 0; i < 4; i++) fmt_num(s[i], sizeof s[i], q[i]);
    lua_pushfstring(L, "quat(%s, %s, %s, %s)", s[0], s[1], s[2], s[3]);
    return 1;
}

static int quat_inverse(lua_State *L)
{
    float *q = checkq(L, 1);
    float n = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    float r[4] = {0, 0, 0, 1};
    if (n > 1e-20f) for (int i = 0; i < 4; i++) r[i] = (i < 3 ? -q[i] : q[i]) / n;
    mr_lua_check_max_args(L, 1);
    mr_lua_push_quat(L, r);
    return 1;
}

static int quat_normalize_l(lua_State *L)
{
    float r[4];
    memcpy(r, checkq(L, 1), sizeof r);
    quat_normalize(r);
    mr_lua_check_max_args(L, 1);
    mr_lua_push_quat(L, r);
    return 1;
}

static int quat_to_euler(lua_State *L)
{
    /* Inverse of euler(): q = qz * qy * qx. */
    float q[4];
    memcpy(q, checkq(L, 1), sizeof q);
    quat_normalize(q);
    float x = q[0], y = q[1], z = q[2], w = q[3];
    double sy = 2.0 * (w * y - z * x);
    sy = sy > 1 ? 1 : sy < -1 ? -1 : sy;
    double ax = atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y));
    double ay = asin(sy);
    double az = atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z));
    mr_lua_check_max_args(L, 1);
    lua_pushnumber(L, ax * 180.0 / GLM_PI);
    lua_pushnumber(L, ay * 180.0 / GLM_PI);
    lua_pushnumber(L, az * 180.0 / GLM_PI);
    return 3;
}

static int quat_unpack(lua_State *L)
{
    float *q = checkq(L, 1);
    mr_lua_check_max_args(L, 1);
    for (int i = 0; i < 4; i++) lua_pushnumber(L, q[i]);
    return 4;
}

static const luaL_Reg quat_methods[] = {
    {"inverse", quat_inverse}, {"normalize", quat_normalize_l}, {"slerp", quat_slerp_l},
    {"to_euler", quat_to_euler}, {"unpack", quat_unpack},
    {NULL, NULL},
};

static const luaL_Reg quat_meta[] = {
    {"__index", quat_index}, {"__newindex", quat_newindex}, {"__mul", quat_mul_l},
    {"__eq", quat_eq},       {"__tostring", quat_tostring},
    {NULL, NULL},
};

static const luaL_Reg quat_funcs[] = {
    {"identity", quat_identity}, {"euler", quat_euler}, {"axis_angle", quat_axis_angle_l},
    {"look_rotation", quat_look_rotation}, {"from_to", quat_from_to_l}, {"slerp", quat_slerp_l},
    {NULL, NULL},
};

/* ---- mat4 ------------------------------------------------------------------ */

static float *checkm(lua_State *L, int i) { return mr_lua_check_udata(L, i, MR_LUA_MAT4); }

static int mat4_new(lua_State *L)
{
    mat4 m = GLM_MAT4_IDENTITY_INIT;
    if (!lua_isnoneornil(L, 2)) {
        if (luaL_testudata(L, 2, MR_LUA_MAT4)) {
            mr_lua_check_mat4(L, 2, m);
        } else {
            mr_lua_check_type(L, 2, LUA_TTABLE);
            mr_lua_arg_check(L, lua_rawlen(L, 2) == 16, 1, "mat4 expects 16 numbers (column-major)");
            float *f = &m[0][0];
            for (int i = 0; i < 16; i++) {
                lua_geti(L, 2, i + 1);
                int isnum;
                f[i] = (float)lua_tonumberx(L, -1, &isnum);
                if (!isnum) mr_lua_arg_error(L, 1, "mat4 expects 16 numbers (column-major)");
                lua_pop(L, 1);
            }
        }
    }
    mr_lua_check_max_args(L, 2);
    mr_lua_push_mat4(L, m);
    return 1;
}

static void trs_matrix(const float t[3], const float r[4], const float s[3], mat4 out)
{
    mr_pose p;
    vec3 tt = {t[0], t[1], t[2]}, ss = {s[0], s[1], s[2]};
    versor rr = {r[0], r[1], r[2], r[3]};
    quat_normalize(rr);
    p.joint_count = 1;
    p.t = &tt;
    p.r = &rr;
    p.s = &ss;
    mr_pose_local_matrix(&p, 0, out);
}

static int mat4_trs(lua_State *L)
{
    float t[3] = {0, 0, 0}, r[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
    if (!lua_isnoneornil(L, 1)) mr_lua_check_vec3(L, 1, t);
    if (!lua_isnoneornil(L, 2)) mr_lua_check_quat(L, 2, r);
    if (lua_isnumber(L, 3)) s[0] = s[1] = s[2] = (float)lua_tonumber(L, 3);
    else if (!lua_isnoneornil(L, 3)) mr_lua_check_vec3(L, 3, s);
    mat4 m;
    trs_matrix(t, r, s, m);
    mr_lua_check_max_args(L, 3);
    mr_lua_push_mat4(L, m);
    return 1;
}

static int mat4_translate(lua_State *L)
{
    float t[3];
    mr_lua_check_vec3(L, 1, t);    /* a wrong value is argument #1, before the count */
    mr_lua_check_max_args(L, 1);
    lua_settop(L, 1);
    lua_pushnil(L);
    lua_pushnil(L);
    return mat4_trs(L);
}

/* rotate and scale read their one argument themselves, so a wrong one is
 * reported as argument #1 (not as the slot it would take in trs). */
static int mat4_rotate(lua_State *L)
{
    float t[3] = {0, 0, 0}, r[4], s[3] = {1, 1, 1};
    mr_lua_check_quat(L, 1, r);
    mat4 m;
    trs_matrix(t, r, s, m);
    mr_lua_check_max_args(L, 1);
    mr_lua_push_mat4(L, m);
    return 1;
}

static int mat4_scale(lua_State *L)
{
    float t[3] = {0, 0, 0}, r[4] = {0, 0, 0, 1}, s[3];
    if (lua_type(L, 1) == LUA_TNUMBER) s[0] = s[1] = s[2] = (float)lua_tonumber(L, 1);
    else if (!mr_lua_to_vec3(L, 1, s)) mr_lua_type_error(L, 1, "number or vec3");
    mat4 m;
    trs_matrix(t, r, s, m);
    mr_lua_check_max_args(L, 1);
    mr_lua_push_mat4(L, m);
    return 1;
}

static int mat4_index(lua_State *L)
{
    return index_elements_or_method(L, checkm(L, 1), 16);
}

static int mat4_newindex(lua_State *L)
{
    float *m = checkm(L, 1);
    lua_Integer i = lua_isinteger(L, 2) ? lua_tointeger(L, 2) : 0;
    if (i < 1 || i > 16)
        return luaL_error(L, "mat4 index must be an integer 1..16, got %s", mr_lua_describe(L, 2));
    m[i - 1] = (float)mr_lua_check_number(L, 3);
    return 0;
}

static int mat4_mul(lua_State *L)
{
    mat4 a;
    mr_lua_check_mat4(L, 1, a);
    if (luaL_testudata(L, 2, MR_LUA_MAT4)) {
        mat4 b, r;
        mr_lua_check_mat4(L, 2, b);
        glm_mat4_mul(a, b, r);
        mr_lua_push_mat4(L, r);
        return 1;
    }
    float v[3];
    if (!luaL_testudata(L, 2, MR_LUA_VEC3) && !lua_istable(L, 2))
        return mr_lua_type_error(L, 2, "mat4 or vec3");
    mr_lua_check_vec3(L, 2, v);
    vec3 p = {v[0], v[1], v[2]}, r;
    glm_mat4_mulv3(a, p, 1.0f, r);
    mr_lua_push_vec3(L, r);
    return 1;
}

static int mat4_eq(lua_State *L)
{
    float *a = luaL_testudata(L, 1, MR_LUA_MAT4), *b = luaL_testudata(L, 2, MR_LUA_MAT4);
    lua_pushboolean(L, a && b && !memcmp(a, b, sizeof(float) * 16));
    return 1;
}

static int mat4_tostring(lua_State *L)
{
    float *m = checkm(L, 1);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "mat4(");
    for (int row = 0; row < 4; row++) {
        for (int col = 0; col < 4; col++) {
            char s[32];
            fmt_num(s, sizeof s, m[col * 4 + row]);
            luaL_addstring(&b, s);
            if (col < 3) luaL_addstring(&b, " ");
        }
        if (row < 3) luaL_addstring(&b, " | ");
    }
    luaL_addstring(&b, ")");
    luaL_pushresult(&b);
    return 1;
}

static int mat4_translation(lua_State *L)
{
    mr_lua_check_max_args(L, 1);
    mr_lua_push_vec3(L, checkm(L, 1) + 12);
    return 1;
}

static int mat4_rotation(lua_State *L)
{
    mat4 m;
    mr_lua_check_mat4(L, 1, m);
    float q[4];
    quat_from_matrix(m, q);
    mr_lua_check_max_args(L, 1);
    mr_lua_push_quat(L, q);
    return 1;
}

static int mat4_inverse(lua_State *L)
{
    mat4 m, r;
    mr_lua_check_mat4(L, 1, m);
    glm_mat4_inv(m, r);
    mr_lua_check_max_args(L, 1);
    mr_lua_push_mat4(L, r);
    return 1;
}

static int mat4_transpose(lua_State *L)
{
    mat4 m, r;
    mr_lua_check_mat4(L, 1, m);
    glm_mat4_transpose_to(m, r);
    mr_lua_check_max_args(L, 1);
    mr_lua_push_mat4(L, r);
    return 1;
}

static const luaL_Reg mat4_methods[] = {
    {"translation", mat4_translation}, {"rotation", mat4_rotation},
    {"inverse", mat4_inverse},         {"transpose", mat4_transpose},
    {NULL, NULL},
};

static const luaL_Reg mat4_meta[] = {
    {"__index", mat4_index}, {"__newindex", mat4_newindex}, {"__mul", mat4_mul},
    {"__eq", mat4_eq},       {"__tostring", mat4_tostring},
    {NULL, NULL},
};

static const luaL_Reg mat4_funcs[] = {
    {"trs", mat4_trs}, {"translate", mat4_translate}, {"rotate", mat4_rotate},
    {"scale", mat4_scale},
    {NULL, NULL},
};

/* ---- opener ---------------------------------------------------------------- */

/* Makes the metatable (with a "methods" table for __index) and the module
 * table marrow.<name> (constructor via __call, plus funcs) inside the table at -1. */
static void make_type(lua_State *L, const char *name, const luaL_Reg *meta, const luaL_Reg *methods,
                      const luaL_Reg *funcs, lua_CFunction ctor)
{
    char prefix[64];
    luaL_newmetatable(L, name);
    snprintf(prefix, sizeof prefix, "%s.", name);
    mr_lua_setfuncs(L, prefix, meta);
    lua_newtable(L);
    snprintf(prefix, sizeof prefix, "%s:", name);
    mr_lua_setfuncs(L, prefix, methods);
    lua_setfield(L, -2, "methods");
    lua_pop(L, 1);
    lua_newtable(L);                   /* marrow.<name> */
    snprintf(prefix, sizeof prefix, "marrow.%s.", name);
    if (funcs) mr_lua_setfuncs(L, prefix, funcs);
    lua_newtable(L);                   /* its metatable: __call = constructor */
    snprintf(prefix, sizeof prefix, "marrow.%s", name);
    mr_lua_pushfunc(L, ctor, prefix, 1);   /* argument 1 is marrow.<name> itself */
    lua_setfield(L, -2, "__call");
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, name);
}

void mr_lua_open_math(lua_State *L)
{
    make_type(L, MR_LUA_VEC3, vec3_meta, vec3_methods, NULL, vec3_new);
    make_type(L, MR_LUA_QUAT, quat_meta, quat_methods, quat_funcs, quat_new);
    make_type(L, MR_LUA_MAT4, mat4_meta, mat4_methods, mat4_funcs, mat4_new);
}
