/* pattern.c — Lua 5.4's pattern matching functions with a step budget; the
 * manual is pattern.h. Behaviour follows the Lua 5.4 reference manual
 * (§6.4.1 Patterns, §6.4 string.find/match/gmatch/gsub) and, where the
 * manual is silent (error order, the recursion limit, empty matches), what
 * lua5.4 itself does; tests/test_pattern.c compares the two call by call.
 *
 * Like the stock matcher this one relies on every Lua string ending in a
 * '\0' past its length: a few checks read the byte at the subject's or the
 * pattern's end (a frontier at the end of the subject sees '\0').
 */
#include "lua/pattern.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include <lauxlib.h>

#define MAX_CAPTURES 32        /* Lua's LUA_MAXCAPTURES */
#define MAX_DEPTH 200          /* Lua's MAXCCALLS: nested matcher calls before "pattern too complex" */
#define CAP_OPEN (-1)          /* capture length: started, not closed yet */
#define CAP_POSITION (-2)      /* capture length: a position capture "()" */
#define ESC '%'
#define SPECIALS "^$*+?.([%-"  /* a pattern without these is a plain string for find */

typedef void (*tick_fn)(lua_State *L);

/* What one match needs; lives on the C stack (in a userdata for gmatch). */
typedef struct matcher {
    const char *src, *src_end;   /* the subject */
    const char *pat_end;         /* end of the pattern */
    lua_State *L;
    tick_fn tick;                /* may be NULL */
    int steps;                   /* steps left before the next tick */
    int depth;                   /* nested match() calls left */
    int level;                   /* captures started */
    struct {
        const char *at;          /* first character */
        ptrdiff_t len;           /* length, CAP_OPEN or CAP_POSITION */
    } cap[MAX_CAPTURES];
} matcher;

/* ---- budget ------------------------------------------------------------------------ */

static void ring(matcher *m)
{
    m->steps = MR_LUA_PATTERN_TICK;
    if (m->tick) m->tick(m->L);      /* may not return */
}

/* Counts n characters scanned in one go (a repetition, %b, a back reference). */
static void spend(matcher *m, size_t n)
{
    if (n < (size_t)m->steps) m->steps -= (int)n;
    else ring(m);
}

static void matcher_init(matcher *m, lua_State *L, tick_fn tick, const char *s, size_t ls, const char *p,
                         size_t lp)
{
    m->src = s;
    m->src_end = s + ls;
    m->pat_end = p + lp;
    m->L = L;
    m->tick = tick;
    m->steps = MR_LUA_PATTERN_TICK;
    m->depth = MAX_DEPTH;
    m->level = 0;
}

/* ---- single characters ----------------------------------------------------------- */

/* Whether c is in the class %cl (cl a letter) or, for any other cl, is cl. */
static int in_class(int c, int cl)
{
    int yes;
    switch (tolower(cl)) {
    case 'a': yes = isalpha(c); break;
    case 'c': yes = iscntrl(c); break;
    case 'd': yes = isdigit(c); break;
    case 'g': yes = isgraph(c); break;
    case 'l': yes = islower(c); break;
    case 'p': yes = ispunct(c); break;
    case 's': yes = isspace(c); break;
    case 'u': yes = isupper(c); break;
    case 'w': yes = isalnum(c); break;
    case 'x': yes = isxdigit(c); break;
    case 'z': yes = c == '\0'; break;  /* deprecated in the manual, still matched by lua5.4 */
    default: return cl == c;
    }
    return isupper(cl) ? !yes : yes != 0;
}

/* Whether c is in the set [...] from open ('[') to close (its ']'). */
static int in_set(int c, const char *open, const char *close)
{
    const char *p = open;
    int found = 1;                   /* what finding c means: 0 for [^...] */
    if (p[1] == '^') {
        found = 0;
        p++;
    }
    while (++p < close) {
        if (*p == ESC) {
            p++;
            if (in_class(c, (unsigned char)*p)) return found;
        } else if (p[1] == '-' && p + 2 < close) {
            if ((unsigned char)p[0] <= c && c <= (unsigned char)p[2]) return found;
            p += 2;
        } else if ((unsigned char)*p == c) {
            return found;
        }
    }
    return !found;
}

/* The end of the single-character item at p (past a %x or a [set]). */
static const char *item_end(matcher *m, const char *p)
{
    if (*p == ESC) {
        if (p + 1 == m->pat_end) luaL_error(m->L, "malformed pattern (ends with '%%')");
        return p + 2;
    }
    if (*p == '[') {
        p++;
        if (*p == '^') p++;
        do {                         /* a ']' right after '[' or '[^' is a member */
            if (p == m->pat_end) luaL_error(m->L, "malformed pattern (missing ']')");
            if (*p++ == ESC && p < m->pat_end) p++;
        } while (*p != ']');
        return p + 1;
    }
    return p + 1;
}

/* Whether the subject character at s matches the item p..ep. */
static int item_matches(const matcher *m, const char *s, const char *p, const char *ep)
{
    if (s >= m->src_end) return 0;
    int c = (unsigned char)*s;
    switch (*p) {
    case '.': return 1;
    case ESC: return in_class(c, (unsigned char)p[1]);
    case '[': return in_set(c, p, ep - 1);
    default: return (unsigned char)*p == c;
    }
}

/* ---- the matcher ------------------------------------------------------------------- */

static const char *match(matcher *m, const char *s, const char *p);

/* Index of the capture a back reference %<digit> names. */
static int capture_index(matcher *m, int digit)
{
    int i = digit - '1';
    if (i < 0 || i >= m->level || m->cap[i].len == CAP_OPEN)
        return luaL_error(m->L, "invalid capture index %%%d", i + 1);
    return i;
}

static const char *begin_capture(matcher *m, const char *s, const char *p, ptrdiff_t kind)
{
    int i = m->level;
    if (i >= MAX_CAPTURES) luaL_error(m->L, "too many captures");
    m->cap[i].at = s;
    m->cap[i].len = kind;
    m->level = i + 1;
    const char *end = match(m, s, p);
    if (!end) m->level--;            /* the capture did not happen */
    return end;
}

static const char *end_capture(matcher *m, const char *s, const char *p)
{
    int i = m->level - 1;            /* the innermost open capture */
    while (i >= 0 && m->cap[i].len != CAP_OPEN) i--;
    if (i < 0) luaL_error(m->L, "invalid pattern capture");
    m->cap[i].len = s - m->cap[i].at;
    const char *end = match(m, s, p);
    if (!end) m->cap[i].len = CAP_OPEN;
    return end;
}

/* %1..%9: the text of an earlier capture again. */
static const char *back_reference(matcher *m, const char *s, int digit)
{
    int i = capture_index(m, digit);
    size_t len = (size_t)m->cap[i].len;   /* a position capture's is huge: never matches */
    if ((size_t)(m->src_end - s) < len) return NULL;
    spend(m, len);
    return memcmp(m->cap[i].at, s, len) == 0 ? s + len : NULL;
}

/* %bxy at p (pointing at x): s must start with x and a balanced run up to y. */
static const char *balanced(matcher *m, const char *s, const char *p)
{
    if (p >= m->pat_end - 1) luaL_error(m->L, "malformed pattern (missing arguments to '%%b')");
    if (*s != *p) return NULL;
    const char *start = s;
    char open = p[0], close = p[1];
    int nest = 1;
    while (++s < m->src_end) {
        if (*s == close) {
            if (--nest == 0) {
                spend(m, (size_t)(s - start));
                return s + 1;
            }
        } else if (*s == open) {
            nest++;
        }
    }
    spend(m, (size_t)(s - start));
    return NULL;
}

/* item* and item+ (s already past the first for '+'): longest run first. */
static const char *longest(matcher *m, const char *s, const char *p, const char *ep)
{
    ptrdiff_t n = 0;
    while (item_matches(m, s + n, p, ep)) n++;
    spend(m, (size_t)n);
    for (; n >= 0; n--) {
        const char *end = match(m, s + n, ep + 1);
        if (end) return end;
    }
    return NULL;
}

/* item-: shortest run first. */
static const char *shortest(matcher *m, const char *s, const char *p, const char *ep)
{
    for (;;) {
        const char *end = match(m, s, ep + 1);
        if (end) return end;
        if (!item_matches(m, s, p, ep)) return NULL;
        s++;
    }
}

/* Matches the pattern from p against the subject from s; the end of the
 * match, or NULL. Tail positions loop instead of recursing; the recursion
 * that remains is counted against MAX_DEPTH exactly as Lua counts it. */
static const char *match(matcher *m, const char *s, const char *p)
{
    if (m->depth-- == 0) luaL_error(m->L, "pattern too complex");
    if (--m->steps <= 0) ring(m);
again:
    if (p == m->pat_end) goto out;
    switch (*p) {
    case '(':
        if (p[1] == ')') s = begin_capture(m, s, p + 2, CAP_POSITION);
        else s = begin_capture(m, s, p + 1, CAP_OPEN);
        goto out;
    case ')':
        s = end_capture(m, s, p + 1);
        goto out;
    case '$':
        if (p + 1 != m->pat_end) break;  /* a '$' inside the pattern is a plain character */
        if (s != m->src_end) s = NULL;
        goto out;
    case ESC:
        if (p[1] == 'b') {
            s = balanced(m, s, p + 2);
            if (!s) goto out;
            p += 4;
            goto again;
        }
        if (p[1] == 'f') {
            p += 2;
            if (*p != '[') luaL_error(m->L, "missing '[' after '%%f' in pattern");
            const char *ep = item_end(m, p);
            int before = s == m->src ? '\0' : (unsigned char)s[-1];
            if (!in_set(before, p, ep - 1) && in_set((unsigned char)*s, p, ep - 1)) {
                p = ep;
                goto again;
            }
            s = NULL;
            goto out;
        }
        if (p[1] >= '0' && p[1] <= '9') {
            s = back_reference(m, s, (unsigned char)p[1]);
            if (!s) goto out;
            p += 2;
            goto again;
        }
        break;                       /* a class such as %a */
    default:
        break;
    }
    /* A single-character item, maybe with a quantifier after it. */
    const char *ep = item_end(m, p);
    if (!item_matches(m, s, p, ep)) {
        if (*ep == '*' || *ep == '?' || *ep == '-') {  /* zero repetitions will do */
            p = ep + 1;
            goto again;
        }
        s = NULL;
        goto out;
    }
    switch (*ep) {
    case '?': {
        const char *end = match(m, s + 1, ep + 1);
        if (end) {
            s = end;
            goto out;
        }
        p = ep + 1;
        goto again;
    }
    case '+': s = longest(m, s + 1, p, ep); goto out;
    case '*': s = longest(m, s, p, ep); goto out;
    case '-': s = shortest(m, s, p, ep); goto out;
    default:
        s++;
        p = ep;
        goto again;
    }
out:
    m->depth++;
    return s;
}

/* ---- results --------------------------------------------------------------------- */

/* Capture i (or the whole match s..e as capture 0 when there are none). A
 * position capture is pushed as an integer and returns CAP_POSITION;
 * otherwise *text and the length say where it is. */
static ptrdiff_t get_capture(matcher *m, int i, const char *s, const char *e, const char **text)
{
    if (i >= m->level) {
        if (i != 0) luaL_error(m->L, "invalid capture index %%%d", i + 1);
        *text = s;
        return e - s;
    }
    ptrdiff_t len = m->cap[i].len;
    *text = m->cap[i].at;
    if (len == CAP_OPEN) luaL_error(m->L, "unfinished capture");
    if (len == CAP_POSITION) lua_pushinteger(m->L, (m->cap[i].at - m->src) + 1);
    return len;
}

static void push_capture(matcher *m, int i, const char *s, const char *e)
{
    const char *text;
    ptrdiff_t len = get_capture(m, i, s, e, &text);
    if (len != CAP_POSITION) lua_pushlstring(m->L, text, (size_t)len);
}

/* Pushes every capture (the whole match s..e when there are none and s is
 * not NULL); returns how many. */
static int push_captures(matcher *m, const char *s, const char *e)
{
    int n = (m->level == 0 && s) ? 1 : m->level;
    luaL_checkstack(m->L, n, "too many captures");
    for (int i = 0; i < n; i++) push_capture(m, i, s, e);
    return n;
}

/* ---- find and match ------------------------------------------------------------- */

/* Lua's relative start position, 1-based, clipped to 1 below. */
static size_t start_position(lua_Integer pos, size_t len)
{
    if (pos > 0) return (size_t)pos;
    if (pos == 0 || pos < -(lua_Integer)len) return 1;
    return len + (size_t)pos + 1;
}

/* Whether p (length lp, maybe with '\0's inside) has none of SPECIALS. */
static int is_plain(const char *p, size_t lp)
{
    size_t at = 0;
    do {
        if (strpbrk(p + at, SPECIALS)) return 0;
        at += strlen(p + at) + 1;    /* past the next '\0' */
    } while (at <= lp);
    return 1;
}

/* The first place of needle in hay, or NULL. Each candidate place costs the
 * needle's length in steps of m (a needle of megabytes over a subject of
 * them is billions of comparisons: the budget must see them). */
static const char *find_plain(matcher *m, const char *hay, size_t lh, const char *needle, size_t ln)
{
    if (ln == 0) return hay;
    if (ln > lh) return NULL;
    const char *last = hay + (lh - ln);  /* the last place needle could start */
    while (hay <= last) {
        const char *c = memchr(hay, needle[0], (size_t)(last - hay) + 1);
        if (!c) return NULL;
        spend(m, (size_t)(c - hay) / 64 + ln);   /* memchr scans fast; a compare costs its length */
        if (memcmp(c + 1, needle + 1, ln - 1) == 0) return c;
        hay = c + 1;
    }
    return NULL;
}

static tick_fn upvalue_tick(lua_State *L)
{
    return *(tick_fn *)lua_touserdata(L, lua_upvalueindex(1));
}

static int find_or_match(lua_State *L, int find)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = start_position(luaL_optinteger(L, 3, 1), ls) - 1;
    if (init > ls) {
        luaL_pushfail(L);
        return 1;
    }
    if (find && (lua_toboolean(L, 4) || is_plain(p, lp))) {
        matcher pm;
        matcher_init(&pm, L, upvalue_tick(L), s, ls, p, lp);
        const char *at = find_plain(&pm, s + init, ls - init, p, lp);
        if (at) {
            lua_pushinteger(L, (at - s) + 1);
            lua_pushinteger(L, (lua_Integer)((size_t)(at - s) + lp));
            return 2;
        }
        luaL_pushfail(L);
        return 1;
    }
    int anchored = *p == '^';
    if (anchored) {
        p++;
        lp--;
    }
    matcher m;
    matcher_init(&m, L, upvalue_tick(L), s, ls, p, lp);
    const char *from = s + init;
    do {
        m.level = 0;
        const char *end = match(&m, from, p);
        if (end) {
            if (!find) return push_captures(&m, from, end);
            lua_pushinteger(L, (from - s) + 1);
            lua_pushinteger(L, end - s);
            return push_captures(&m, NULL, NULL) + 2;
        }
    } while (from++ < m.src_end && !anchored);
    luaL_pushfail(L);
    return 1;
}

static int pattern_find(lua_State *L) { return find_or_match(L, 1); }
static int pattern_match(lua_State *L) { return find_or_match(L, 0); }

/* ---- gmatch ------------------------------------------------------------------------ */

typedef struct gmatch_state {
    matcher m;
    const char *from;                /* where the next search starts */
    const char *p;                   /* the pattern */
    const char *last;                /* end of the last match, so an empty match there is skipped */
} gmatch_state;

/* Upvalues: subject, pattern (kept alive), the gmatch_state. */
static int gmatch_next(lua_State *L)
{
    gmatch_state *g = lua_touserdata(L, lua_upvalueindex(3));
    g->m.L = L;                      /* the iterator may run in another coroutine */
    g->m.depth = MAX_DEPTH;          /* fresh even after an error unwound the last call */
    g->m.steps = MR_LUA_PATTERN_TICK;
    for (const char *from = g->from; from <= g->m.src_end; from++) {
        g->m.level = 0;
        const char *end = match(&g->m, from, g->p);
        if (end && end != g->last) {
            g->from = g->last = end;
            return push_captures(&g->m, from, end);
        }
    }
    return 0;
}

static int pattern_gmatch(lua_State *L)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = start_position(luaL_optinteger(L, 3, 1), ls) - 1;
    tick_fn tick = upvalue_tick(L);
    lua_settop(L, 2);                /* subject and pattern become upvalues */
    gmatch_state *g = lua_newuserdatauv(L, sizeof *g, 0);
    if (init > ls) init = ls + 1;    /* past the end: no match at all */
    matcher_init(&g->m, L, tick, s, ls, p, lp);
    g->from = s + init;
    g->p = p;
    g->last = NULL;
    lua_pushcclosure(L, gmatch_next, 3);
    return 1;
}

/* ---- gsub -------------------------------------------------------------------------- */

/* Appends the replacement string (argument 3) for the match s..e. */
static void add_template(matcher *m, luaL_Buffer *b, const char *s, const char *e)
{
    lua_State *L = m->L;
    size_t l;
    const char *t = lua_tolstring(L, 3, &l);
    const char *esc;
    spend(m, l / 16 + 1);            /* the template's text itself */
    while ((esc = memchr(t, ESC, l)) != NULL) {
        luaL_addlstring(b, t, (size_t)(esc - t));
        char c = esc[1];             /* '\0' past the end */
        if (c == ESC) {
            luaL_addchar(b, ESC);
        } else if (c == '0') {
            spend(m, (size_t)(e - s) / 16 + 1);   /* a copy of the match, as long as it is */
            luaL_addlstring(b, s, (size_t)(e - s));
        } else if (isdigit((unsigned char)c)) {
            const char *text;
            ptrdiff_t len = get_capture(m, c - '1', s, e, &text);
            spend(m, (len > 0 ? (size_t)len / 16 : 0) + 1);
            if (len == CAP_POSITION) luaL_addvalue(b);  /* the integer get_capture pushed */
            else luaL_addlstring(b, text, (size_t)len);
        } else {
            luaL_error(L, "invalid use of '%c' in replacement string", ESC);
        }
        l -= (size_t)(esc + 2 - t);
        t = esc + 2;
    }
    luaL_addlstring(b, t, l);
}

/* Appends the replacement of the match s..e; returns whether it differs
 * from the matched text (false/nil from a table or function keeps it). */
static int add_replacement(matcher *m, luaL_Buffer *b, const char *s, const char *e, int type)
{
    lua_State *L = m->L;
    if (type == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int n = push_captures(m, s, e);
        lua_call(L, n, 1);
    } else if (type == LUA_TTABLE) {
        push_capture(m, 0, s, e);
        lua_gettable(L, 3);
    } else {
        add_template(m, b, s, e);
        return 1;
    }
    if (!lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        luaL_addlstring(b, s, (size_t)(e - s));
        return 0;
    }
    if (!lua_isstring(L, -1)) return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    luaL_addvalue(b);
    return 1;
}

static int pattern_gsub(lua_State *L)
{
    size_t ls, lp;
    const char *src = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    int type = lua_type(L, 3);
    lua_Integer max = luaL_optinteger(L, 4, (lua_Integer)ls + 1);
    luaL_argexpected(L, type == LUA_TNUMBER || type == LUA_TSTRING || type == LUA_TFUNCTION || type == LUA_TTABLE,
                     3, "string/function/table");
    int anchored = *p == '^';
    if (anchored) {
        p++;
        lp--;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    matcher m;
    matcher_init(&m, L, upvalue_tick(L), src, ls, p, lp);
    const char *last = NULL;         /* end of the last match: no empty match right there */
    lua_Integer n = 0;
    int changed = 0;
    while (n < max) {
        m.level = 0;
        const char *end = match(&m, src, p);
        if (end && end != last) {
            n++;
            changed |= add_replacement(&m, &b, src, end, type);
            src = last = end;
        } else if (src < m.src_end) {
            luaL_addchar(&b, *src++);
        } else {
            break;
        }
        if (anchored) break;
    }
    if (changed) {
        luaL_addlstring(&b, src, (size_t)(m.src_end - src));
        luaL_pushresult(&b);
    } else {
        lua_pushvalue(L, 1);         /* nothing replaced: the subject itself */
    }
    lua_pushinteger(L, n);
    return 2;
}

/* ---- install ----------------------------------------------------------------------- */

void mr_lua_pattern_install(lua_State *L, int idx, void (*tick)(lua_State *L))
{
    static const luaL_Reg fns[] = {
        {"find", pattern_find},
        {"match", pattern_match},
        {"gmatch", pattern_gmatch},
        {"gsub", pattern_gsub},
        {NULL, NULL},
    };
    idx = lua_absindex(L, idx);
    lua_pushvalue(L, idx);
    tick_fn *box = lua_newuserdatauv(L, sizeof *box, 0);  /* upvalue 1 of each function */
    *box = tick;
    luaL_setfuncs(L, fns, 1);
    lua_pop(L, 1);
}
