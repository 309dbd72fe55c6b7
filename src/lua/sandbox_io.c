/* sandbox_io.c — the io library of a sandboxed script (see sandbox.h):
 * open, lines, type and write, with reads confined to the folders a script
 * may read and writes to its output folder.
 *
 * Paths are checked on their real form (links resolved), and every file is
 * opened non-blocking, without following a final link, and refused unless
 * fstat on the opened descriptor says it is a regular file: a FIFO, a
 * device or a link out of the folder never reaches the script.
 *
 * Relative paths: a read looks for the path as given (from the current
 * folder), then beside the script, then in the output folder; a write goes
 * under the output folder.
 * Files are the standard library's handles (their methods are Lua's), with
 * two limits: at most MAX_OPEN_FILES open at once, and the state's one
 * write quota (mr_lua_sandbox_charge_write, shared with marrow.save and
 * screenshots): a write counts its bytes, a seek past the end the gap it
 * opens (a sparse file counts its extent), and a file when it closes what
 * it really takes on disk (mr_file_allocated) beyond what was counted.
 */
#include "lua/sandbox_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "core/file.h"
#include "core/path.h"
#include "core/str.h"

#define MAX_OPEN_FILES 64
#define WRITE_QUOTA ((lua_Integer)MR_SANDBOX_WRITE_QUOTA)   /* bytes a state may write: 1 GiB */
#define OPEN_COUNT "marrow.sandbox.io.open"   /* registry: files open now */
#define WRITTEN "marrow.sandbox.io.written"   /* registry: bytes written so far */
#define CHARGED "marrow.sandbox.io.charged"   /* registry: weak file handle -> bytes counted for it */
#define RESERVED "marrow.sandbox.io.reserved" /* registry: weak file handle -> the extent a seek counted */

int mr_lua_sandbox_path_inside(const char *real, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/') return real[0] == '/';
    return strncmp(real, dir, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

static lua_Integer counter(lua_State *L, const char *key)
{
    lua_getfield(L, LUA_REGISTRYINDEX, key);
    lua_Integer v = lua_tointeger(L, -1);
    lua_pop(L, 1);
    return v;
}

static void counter_set(lua_State *L, const char *key, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, LUA_REGISTRYINDEX, key);
}

int mr_lua_sandbox_charge_write(lua_State *L, long long bytes, int force)
{
    if (bytes == 0) return 0;
    lua_Integer done = counter(L, WRITTEN);
    if (bytes < 0) {                   /* given back: what was counted was not written after all */
        counter_set(L, WRITTEN, done + bytes > 0 ? done + bytes : 0);
        return 0;
    }
    if (!force && (bytes > WRITE_QUOTA || done + bytes > WRITE_QUOTA)) return -1;
    counter_set(L, WRITTEN, done + bytes);
    return 0;
}

/* Bytes counted so far for the file handle at idx (key CHARGED; RESERVED:
 * the end of the gaps its seeks counted), and setting them. */
static lua_Integer handle_get(lua_State *L, int idx, const char *key)
{
    idx = lua_absindex(L, idx);
    lua_getfield(L, LUA_REGISTRYINDEX, key);
    lua_pushvalue(L, idx);
    lua_rawget(L, -2);
    lua_Integer v = lua_tointeger(L, -1);
    lua_pop(L, 2);
    return v;
}

static void handle_set(lua_State *L, int idx, const char *key, lua_Integer v)
{
    idx = lua_absindex(L, idx);
    lua_getfield(L, LUA_REGISTRYINDEX, key);
    lua_pushvalue(L, idx);
    lua_pushinteger(L, v);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

static int quota_error(lua_State *L, const char *what)
{
    return luaL_error(L, "%s: a marrow script may write at most %d MiB in all (files, saves and screenshots; "
                      "a sparse file counts its whole extent)", what, (int)(WRITE_QUOTA >> 20));
}

/* ---- opening ------------------------------------------------------------------------ */

int mr_lua_sandbox_open_regular(const char *path, int flags, const char **why)
{
    int fd = open(path, flags | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        *why = errno == ELOOP ? "it is a symbolic link" : errno == ENXIO ? "it is not a regular file" : strerror(errno);
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        *why = "it is not a regular file";
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

static int file_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* The real path to read for path, or NULL with *why set. A relative path
 * is looked for as given, then beside the script, then in the output folder
 * (where the script's own writes went). */
static char *resolve_read(lua_State *L, mr_lua_sandbox *s, const char *path, const char **why)
{
    const char *cand = path;
    const char *bases[] = {s->desc.read_dirs[0], s->write_dir};
    for (int i = 0; i < 2 && path[0] != '/' && !file_exists(cand); i++) {
        if (!bases[i]) continue;
        lua_pushfstring(L, "%s/%s", bases[i], path);
        cand = lua_tostring(L, -1);
    }
    if (!file_exists(cand)) cand = path;
    char *real = realpath(cand, NULL);
    if (!real) {
        *why = strerror(errno);
        return NULL;
    }
    for (int i = 0; i < s->read_count; i++)
        if (mr_lua_sandbox_path_inside(real, s->read_dirs[i])) return real;
    char *out = s->write_dir ? realpath(s->write_dir, NULL) : NULL;   /* made since the state was */
    int inside = out && mr_lua_sandbox_path_inside(real, out);
    free(out);
    if (inside) return real;
    free(real);
    *why = "it is outside the folders a marrow script may read (the script's folder, the current folder, "
           "the output folder and the folders of the models it loaded; `marrow run --trust` lifts this "
           "for a script you trust)";
    return NULL;
}

/* The path to write for path (its folder's real path + its name), or NULL
 * with *why set. With make_dirs, its missing folders are made when the
 * whole path is inside the output folder (mr_file_mkdirs_inside checks it
 * all first: nothing is made for a path that is refused). */
static char *resolve_write(lua_State *L, mr_lua_sandbox *s, const char *path, int make_dirs, const char **why)
{
    if (!s->write_dir) {
        *why = "this script may not write files (no output folder)";
        return NULL;
    }
    char *root = realpath(s->write_dir, NULL);
    if (!root && mr_file_mkdirs(s->write_dir, NULL) == MR_OK) root = realpath(s->write_dir, NULL);   /* the run's own */
    if (!root) {
        *why = "the output folder does not exist and cannot be made";
        return NULL;
    }
    const char *full = path;
    if (path[0] != '/') {
        lua_pushfstring(L, "%s/%s", root, path);
        full = lua_tostring(L, -1);
    }
    char *dir = mr_path_dirname(full);
    const char *name = strrchr(full, '/') ? strrchr(full, '/') + 1 : full;
    mr_error derr = {0};
    int refused = dir && make_dirs && !file_exists(dir) && mr_file_mkdirs_inside(root, dir, &derr) != MR_OK;
    char *real_dir = dir && !refused ? realpath(dir, NULL) : NULL;
    char *out = NULL;
    if (refused && derr.status == MR_ERR_INVALID_ARGUMENT)
        *why = "it is outside the output folder, the one place a marrow script may write (--out; "
               "`marrow run --trust` lifts this for a script you trust); nothing was made";
    else if (!real_dir)
        *why = "its folder does not exist";
    else if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
        *why = "it names a folder, not a file";
    else if (!mr_lua_sandbox_path_inside(real_dir, root))
        *why = "it is outside the output folder, the one place a marrow script may write (--out; "
               "`marrow run --trust` lifts this for a script you trust)";
    else if ((out = malloc(strlen(real_dir) + strlen(name) + 2)))
        sprintf(out, "%s/%s", real_dir, name);
    else
        *why = "out of memory";
    free(root);
    free(dir);
    free(real_dir);
    return out;
}

int mr_lua_sandbox_push_write_path(lua_State *L, const char *path)
{
    mr_lua_sandbox *s = mr_lua_sandbox_of(L);
    const char *why = NULL;
    int top = lua_gettop(L);
    if (s->desc.trust) {               /* anywhere; relative to the output folder as untrusted */
        if (path[0] != '/' && s->write_dir) lua_pushfstring(L, "%s/%s", s->write_dir, path);
        else lua_pushstring(L, path);
        char *dir = mr_path_dirname(lua_tostring(L, -1));
        if (dir) mr_file_mkdirs(dir, NULL);
        free(dir);
        return 1;
    }
    char *out = resolve_write(L, s, path, 1, &why);
    lua_settop(L, top);
    if (!out) {
        lua_pushfstring(L, "%s: %s", path, why);
        return 0;
    }
    lua_pushstring(L, out);
    free(out);
    return 1;
}

/* The mode's open(2) flags, or -1 when it is not one io.open takes. */
static int mode_flags(const char *mode, int *writing)
{
    int plus = mode[0] && mode[1] == '+';
    if (strspn(mode + 1 + plus, "b") != strlen(mode + 1 + plus)) return -1;
    *writing = mode[0] != 'r' || plus;
    switch (mode[0]) {
    case 'r': return plus ? O_RDWR : O_RDONLY;
    case 'w': return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC;
    case 'a': return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND;
    default: return -1;
    }
}

static int close_file(lua_State *L)
{
    luaL_Stream *p = luaL_checkudata(L, 1, LUA_FILEHANDLE);
    /* What the file really takes beyond what its writes counted. */
    fflush(p->f);
    lua_Integer extra = (lua_Integer)mr_file_allocated(fileno(p->f)) - handle_get(L, 1, CHARGED);
    if (extra > 0) mr_lua_sandbox_charge_write(L, extra, 1);
    int ok = fclose(p->f) == 0;
    counter_set(L, OPEN_COUNT, counter(L, OPEN_COUNT) - 1);
    return luaL_fileresult(L, ok, NULL);
}

/* Pushes a file handle for path (nil, message, errno on failure). */
static int push_opened(lua_State *L, const char *path, const char *mode)
{
    mr_lua_sandbox *s = mr_lua_sandbox_of(L);
    int writing, flags = mode_flags(mode, &writing);
    luaL_argcheck(L, flags >= 0, 2, "invalid mode");
    int top = lua_gettop(L);
    const char *why = NULL;
    if (counter(L, OPEN_COUNT) >= MAX_OPEN_FILES)
        why = "too many files open at once (close some: a script may have 64)";
    char *real = why ? NULL : writing ? resolve_write(L, s, path, 0, &why) : resolve_read(L, s, path, &why);
    int fd = real ? mr_lua_sandbox_open_regular(real, flags, &why) : -1;
    free(real);
    lua_settop(L, top);
    FILE *f = fd >= 0 ? fdopen(fd, mode) : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0) close(fd);
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: %s", path, why ? why : strerror(e));
        lua_pushinteger(L, why ? EACCES : e);
        return 3;
    }
    luaL_Stream *p = lua_newuserdatauv(L, sizeof *p, 0);
    p->closef = NULL;                  /* "closed" until fully made */
    luaL_setmetatable(L, LUA_FILEHANDLE);
    p->f = f;
    p->closef = close_file;
    counter_set(L, OPEN_COUNT, counter(L, OPEN_COUNT) + 1);
    return 1;
}

static int io_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    const char *mode = luaL_optstring(L, 2, "r");
    return push_opened(L, path, mode);
}

/* io.lines(path, ...): the file's lines, closed when the loop ends (the
 * fourth value is the to-be-closed file of a generic for). */
static int io_lines(lua_State *L)
{
    if (lua_isnoneornil(L, 1))
        return luaL_error(L, "io.lines without a file name reads standard input, which a marrow script may not");
    const char *path = luaL_checkstring(L, 1);
    if (push_opened(L, path, "r") != 1) {
        lua_pop(L, 1);                 /* errno: the message is under it */
        return lua_error(L);
    }
    int file = lua_gettop(L);
    lua_getfield(L, file, "lines");
    lua_pushvalue(L, file);
    int n = file - 1;                  /* the formats after the path */
    for (int i = 2; i <= n; i++) lua_pushvalue(L, i);
    lua_call(L, n, 1);
    lua_pushnil(L);
    lua_pushnil(L);
    lua_pushvalue(L, file);
    return 4;
}

/* file:write under the state's write quota. Upvalue 1: Lua's write. */
static int file_write(lua_State *L)
{
    lua_Integer add = 0;
    for (int i = 2; i <= lua_gettop(L); i++) {
        size_t len = 0;
        if (lua_type(L, i) == LUA_TSTRING) lua_tolstring(L, i, &len);
        else len = 32;                 /* a number's text */
        add += (lua_Integer)len;
    }
    if (mr_lua_sandbox_charge_write(L, add, 0) != 0) return quota_error(L, "file:write");
    if (luaL_testudata(L, 1, LUA_FILEHANDLE)) handle_set(L, 1, CHARGED, handle_get(L, 1, CHARGED) + add);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* file:seek under the write quota: a seek past the end of a file opened
 * for writing counts the gap at once (the next write makes a sparse file of
 * that extent). Upvalue 1: Lua's seek. */
static int file_seek(lua_State *L)
{
    luaL_Stream *p = luaL_checkudata(L, 1, LUA_FILEHANDLE);
    int n = lua_gettop(L);
    lua_pushvalue(L, 1);               /* the handle, kept under the results */
    lua_insert(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 2);
    lua_call(L, n, LUA_MULTRET);       /* stack: handle, results... */
    int nres = lua_gettop(L) - 1;
    if (!lua_isinteger(L, 2) || !p->closef) return nres;
    lua_Integer pos = lua_tointeger(L, 2);
    int fd = fileno(p->f);
    int fl = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    struct stat st;
    lua_Integer counted = handle_get(L, 1, RESERVED);   /* a gap counted before is not counted again */
    if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY || fstat(fd, &st) != 0 || pos <= (lua_Integer)st.st_size ||
        pos <= counted)
        return nres;
    lua_Integer gap = pos - ((lua_Integer)st.st_size > counted ? (lua_Integer)st.st_size : counted);
    if (mr_lua_sandbox_charge_write(L, gap, 0) != 0) {
        fseek(p->f, 0, SEEK_END);      /* back to the end: nothing sparse is made */
        return quota_error(L, "file:seek");
    }
    handle_set(L, 1, CHARGED, handle_get(L, 1, CHARGED) + gap);
    handle_set(L, 1, RESERVED, pos);
    return nres;
}

void mr_lua_sandbox_push_io(lua_State *L)
{
    /* Lua's io library makes the file handles' metatable (its methods are
     * what the script's files use); its table itself is not handed out. */
    luaL_requiref(L, LUA_IOLIBNAME, luaopen_io, 0);
    int stock = lua_gettop(L);
    if (luaL_getmetatable(L, LUA_FILEHANDLE) == LUA_TTABLE && lua_getfield(L, -1, "__index") == LUA_TTABLE) {
        lua_getfield(L, -1, "write");
        lua_pushcclosure(L, file_write, 1);
        lua_setfield(L, -2, "write");
        lua_getfield(L, -1, "seek");
        lua_pushcclosure(L, file_seek, 1);
        lua_setfield(L, -2, "seek");
    }
    lua_settop(L, stock);
    counter_set(L, OPEN_COUNT, 0);
    counter_set(L, WRITTEN, 0);
    const char *tables[2] = {CHARGED, RESERVED};   /* file handle -> bytes, weak keys */
    for (int i = 0; i < 2; i++) {
        lua_newtable(L);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_setfield(L, LUA_REGISTRYINDEX, tables[i]);
    }
    lua_createtable(L, 0, 4);
    lua_pushcfunction(L, io_open);
    lua_setfield(L, -2, "open");
    lua_pushcfunction(L, io_lines);
    lua_setfield(L, -2, "lines");
    lua_getfield(L, stock, "type");
    lua_setfield(L, -2, "type");
    lua_getfield(L, stock, "write");
    lua_setfield(L, -2, "write");
    lua_remove(L, stock);
}
