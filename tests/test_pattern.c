/* test_pattern.c — the budgeted pattern matcher (src/lua/pattern.c).
 *
 * Differential: one Lua state keeps the stock string library, a second gets
 * mr_lua_pattern_install; the same calls run in both and every result and
 * every error message (serialised to one string per call) must be the same.
 * The calls are a hand-written corpus (every feature and every error of
 * Lua 5.4's find/match/gmatch/gsub) and a few thousand generated ones from a
 * small alphabet with a fixed seed. Then the budget: the tick is called on
 * exponential patterns, a raising tick stops them through lua_pcall, and
 * errors from replacement functions and deep recursion come back cleanly.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "lua/pattern.h"
#include "test.h"

/* ---- the two states --------------------------------------------------------------- */

/* Defined in both states; uses no pattern function itself. R serialises
 * pcall's results, G collects every gmatch result, RUN runs one generated
 * case, REPL names the non-string replacements of gsub. */
static const char harness[] =
    "local fmt, concat, pack, select, tostring, type = string.format, table.concat, table.pack, select, tostring, type\n"
    "local function ser1(v)\n"
    "  if type(v) == 'string' then return fmt('%q', v) end\n"
    "  if type(v) ~= 'number' and type(v) ~= 'boolean' and v ~= nil then return type(v) end\n"
    "  return type(v) .. ':' .. tostring(v)\n"
    "end\n"
    "function R(ok, ...)\n"
    "  local t = { ok and 'ok' or 'ERR' }\n"
    "  for i = 1, select('#', ...) do t[#t + 1] = ser1((select(i, ...))) end\n"
    "  return concat(t, ' ')\n"
    "end\n"
    "function G(s, p, init)\n"
    "  local out, it = {}, string.gmatch(s, p, init)\n"
    "  for _ = 1, 200 do\n"
    "    local r = pack(it())\n"
    "    if r[1] == nil then break end\n"
    "    local t = {}\n"
    "    for i = 1, r.n do t[i] = ser1(r[i]) end\n"
    "    out[#out + 1] = concat(t, ',')\n"
    "  end\n"
    "  return concat(out, ';')\n"
    "end\n"
    "REPL = {\n"
    "  tbl = { a = 'A', b = false, ab = 7, ['('] = {}, [''] = 'E', [1] = 'P1', [2] = true, c = 'C' },\n"
    "  fn = function(...)\n"
    "    local t = {}\n"
    "    for i = 1, select('#', ...) do t[i] = tostring((select(i, ...))) end\n"
    "    return '<' .. concat(t, ',') .. '>'\n"
    "  end,\n"
    "  fnsome = function(a) if a == 'a' then return nil elseif a == 'b' then return false end return '[' .. tostring(a) .. ']' end,\n"
    "  fnerr = function(a) error('boom ' .. tostring(a)) end,\n"
    "  fnnum = function() return 7.5 end,\n"
    "  fnbad = function() return {} end,\n"
    "  num = 42,\n"
    "  yes = true,\n"
    "}\n"
    "function RUN(kind, s, p, x, y)\n"
    "  if kind == 'find' then return R(pcall(string.find, s, p, x, y))\n"
    "  elseif kind == 'match' then return R(pcall(string.match, s, p, x))\n"
    "  elseif kind == 'gmatch' then return R(pcall(G, s, p, x))\n"
    "  end\n"
    "  if REPL[x] ~= nil then x = REPL[x] end\n"
    "  return R(pcall(string.gsub, s, p, x, y))\n"
    "end\n";

static lua_State *stock, *ours;
static int ticks;                    /* calls of the counting ticks */
static int tick_limit;               /* raising_tick raises on this call */

static void counting_tick(lua_State *L) { (void)L; ticks++; }

static void raising_tick(lua_State *L)
{
    if (++ticks >= tick_limit) luaL_error(L, "budget stop after %d ticks", ticks);
}

static lua_State *make_state(int install, void (*tick)(lua_State *L))
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    if (install) {
        lua_getglobal(L, "string");
        mr_lua_pattern_install(L, -1, tick);
        lua_pop(L, 1);
    }
    if (luaL_loadbuffer(L, harness, sizeof harness - 1, "=harness") || lua_pcall(L, 0, 0, 0)) {
        printf("harness: %s\n", lua_tostring(L, -1));
        exit(1);
    }
    return L;
}

static int differences;              /* in this test */

static void compare(const char *what, const char *a, const char *b)
{
    if (strcmp(a, b) == 0) return;
    if (differences++ < 15) TEST_FAIL_AT("%s\n         stock: %s\n         ours:  %s", what, a, b);
    else test_current_failed = 1;
}

/* Evaluates the Lua expression expr in L (not as a tail call, so method
 * names stay in error messages) and returns R(pcall(...)) as a new string. */
static char *eval(lua_State *L, const char *expr)
{
    char chunk[4096];
    snprintf(chunk, sizeof chunk,
             "return R(pcall(function() local t = table.pack(%s) return table.unpack(t, 1, t.n) end))", expr);
    if (luaL_loadbuffer(L, chunk, strlen(chunk), "=case") || lua_pcall(L, 0, 1, 0)) {
        char *r = strdup(lua_tostring(L, -1));
        lua_pop(L, 1);
        return r;
    }
    char *r = strdup(lua_tostring(L, -1));
    lua_pop(L, 1);
    return r;
}

static void check_expr(const char *expr)
{
    char *a = eval(stock, expr), *b = eval(ours, expr);
    compare(expr, a, b);
    free(a);
    free(b);
}

/* One generated case: RUN(kind, s, p, x, y); x and y are an integer (has_*
 * set), a string, or nil. */
typedef struct gen_case {
    const char *kind;
    const char *s;
    size_t ls;
    const char *p;
    size_t lp;
    const char *xs;                  /* x as a string (a replacement or REPL name), or NULL */
    long long xi;
    int has_xi;
    long long yi;
    int has_yi;
    int y_true;                      /* y = true (find's plain) */
} gen_case;

static char *run_case(lua_State *L, const gen_case *c)
{
    lua_getglobal(L, "RUN");
    lua_pushstring(L, c->kind);
    lua_pushlstring(L, c->s, c->ls);
    lua_pushlstring(L, c->p, c->lp);
    if (c->xs) lua_pushstring(L, c->xs);
    else if (c->has_xi) lua_pushinteger(L, c->xi);
    else lua_pushnil(L);
    if (c->y_true) lua_pushboolean(L, 1);
    else if (c->has_yi) lua_pushinteger(L, c->yi);
    else lua_pushnil(L);
    if (lua_pcall(L, 5, 1, 0) != LUA_OK) {
        char *r = strdup(lua_tostring(L, -1));
        lua_pop(L, 1);
        return r;
    }
    char *r = strdup(lua_tostring(L, -1));
    lua_pop(L, 1);
    return r;
}

static void describe(char *out, size_t n, const gen_case *c)
{
    char s[128], p[128];
    size_t j = 0;
    for (size_t i = 0; i < c->ls && j + 5 < sizeof s; i++)
        j += c->s[i] ? (size_t)snprintf(s + j, sizeof s - j, "%c", c->s[i]) : (size_t)snprintf(s + j, sizeof s - j, "\\0");
    s[j] = '\0';
    j = 0;
    for (size_t i = 0; i < c->lp && j + 5 < sizeof p; i++)
        j += c->p[i] ? (size_t)snprintf(p + j, sizeof p - j, "%c", c->p[i]) : (size_t)snprintf(p + j, sizeof p - j, "\\0");
    p[j] = '\0';
    char x[64], y[32];
    if (c->xs) snprintf(x, sizeof x, "'%s'", c->xs);
    else if (c->has_xi) snprintf(x, sizeof x, "%lld", c->xi);
    else snprintf(x, sizeof x, "nil");
    if (c->y_true) snprintf(y, sizeof y, "true");
    else if (c->has_yi) snprintf(y, sizeof y, "%lld", c->yi);
    else snprintf(y, sizeof y, "nil");
    snprintf(out, n, "%s(\"%s\", \"%s\", %s, %s)", c->kind, s, p, x, y);
}

static void check_case(const gen_case *c)
{
    char *a = run_case(stock, c), *b = run_case(ours, c);
    if (strcmp(a, b) != 0) {
        char what[512];
        describe(what, sizeof what, c);
        compare(what, a, b);
    }
    free(a);
    free(b);
}

/* ---- the hand corpus --------------------------------------------------------------- */

/* Subject/pattern pairs, each run through find (three inits), match,
 * gmatch and gsub (four replacements). */
static const char *const pairs[][2] = {
    /* plain characters, '.', anchors */
    {"hello world", "o w"}, {"hello world", "o"}, {"hello world", "l+"}, {"hello", ""}, {"", ""},
    {"", "a"}, {"", ".*"}, {"abc", "."}, {"abc", "^a"}, {"abc", "^b"}, {"abc", "c$"}, {"abc", "b$"},
    {"abc", "^abc$"}, {"a$b", "$b"}, {"a$b", "a$b"}, {"a^b", "a^b"}, {"^^", "^^"}, {"abc", "$"},
    {"abc", "^$"}, {"", "^$"}, {"a.b", "%."}, {"a.b", "a.b"},
    /* classes */
    {"Hello, World 123!", "%a+"}, {"Hello, World 123!", "%A+"}, {"Hello, World 123!", "%d+"},
    {"Hello, World 123!", "%D+"}, {"Hello, World 123!", "%l+"}, {"Hello, World 123!", "%u"},
    {"Hello, World 123!", "%p"}, {"Hello, World 123!", "%P+"}, {"Hello, World 123!", "%s"},
    {"Hello, World 123!", "%S+"}, {"Hello, World 123!", "%w+"}, {"Hello, World 123!", "%W"},
    {"0x1F zz", "%x+"}, {"0x1F zz", "%X+"}, {"a\tb\nc\1d", "%c"}, {"a\tb\nc\1d", "%C+"},
    {"  x  ", "%g"}, {"  x  ", "%G+"}, {"100%", "%%"}, {"a+b", "%+"}, {"q", "%q"}, {"a]b", "%]"},
    /* sets */
    {"hello", "[aeiou]"}, {"hello", "[^aeiou]+"}, {"x-y", "[a-z]+"}, {"x-y", "[-]"}, {"x-y", "[x-]+"},
    {"a]b", "[]]"}, {"a]b", "[^]]+"}, {"a]b", "[]a]+"}, {"a^b", "[b^]+"}, {"a%b", "[%%]"},
    {"a.b", "[%.]"}, {"a1b2", "[%d]+"}, {"a1b2", "[^%d]"}, {"A1b2", "[%a%d]+"}, {"z", "[a-]"},
    {"-", "[a-]"}, {"b", "[%a-z]"}, {"m", "[z-a]"}, {"\xe9t\xe9", "[\xe0-\xff]+"}, {"abc", "[a-c-e]+"},
    /* quantifiers */
    {"aaa", "a*"}, {"aaa", "a-"}, {"aaa", "a+"}, {"aaa", "a?"}, {"baaa", "a*"}, {"baaa", "ba-$"},
    {"<a><b>", "<.->"}, {"<a><b>", "<.*>"}, {"abc", "a?b?c?d?"}, {"xaxx", "x-a"}, {"int x;", "%a+%s*%a+;"},
    {"  trim  ", "^%s*(.-)%s*$"}, {"aaab", "a-b"}, {"ab", "a**"}, {"a*", "a%*"}, {"-", "-"},
    {"a-", "a-+"}, {"??", "?"},
    /* captures */
    {"key = value", "(%w+)%s*=%s*(%w+)"}, {"hello", "()ll()"}, {"hello", "()"}, {"hello", "(h)(e)(l)(l)(o)"},
    {"hello", "((h)(e))"}, {"hello", "(l)%1"}, {"abab", "(ab)%1"}, {"xyzzy", "(.)%1"},
    {"hello", "(()l)"}, {"aaa", "(a*(.)%w(%s*))"}, {"say \"hi\" 'x'", "([\"'])(.-)%1"}, {"abc", "()a()"},
    {"abc", "(a"}, {"abc", "a)"}, {"abc", "(a)%2"}, {"abc", "%1"}, {"abc", "(a%1)"}, {"abc", "%0"},
    {"abc", "()%1"}, {"abc", "(b)()%2"}, {"abc", ")"}, {"abc", "(()"},
    /* %b and %f */
    {"f(a(b)c) d", "%b()"}, {"((x)", "%b()"}, {"no parens", "%b()"}, {"[a[b]]", "%b[]"}, {"aab", "%bab"},
    {"x", "%b"}, {"x", "%bx"}, {"THE (quick) fox", "%f[%a]%a+"}, {"THE (quick) fox", "%f[%a]"},
    {"THE (quick) fox", "%f[%A]"}, {"hello", "%f[%z]"}, {"hello", "%f[%l]"}, {"ab", "%f[^a]"},
    {"hello", "%f"}, {"hello", "%fa"}, {"hello", "%f[a"}, {"a\0b", "%f[%z]"}, {"(x)", "%b()$"},
    /* malformed */
    {"abc", "%"}, {"abc", "a%"}, {"abc", "["}, {"abc", "[a"}, {"abc", "[^"}, {"abc", "[]"}, {"abc", "[^]"},
    {"abc", "[%"}, {"abc", "[a%]"}, {"abc", "]"}, {"abc", "*"}, {"abc", "+a"}, {"abc", "%g%"},
    /* embedded zeros */
    {"a\0b", "\0"}, {"a\0b", "%z"}, {"a\0b", "[\0]"}, {"a\0b", ".\0."}, {"a\0b", "a%\0"},
};

static void run_pair(const char *s, size_t ls, const char *p, size_t lp)
{
    static const char *const repls[] = {"<%0>", "%1-%1", "fn", "tbl", "fnsome", "%%", "x%2", "num"};
    gen_case c = {.s = s, .ls = ls, .p = p, .lp = lp};
    c.kind = "find";
    check_case(&c);
    c.has_xi = 1;
    c.xi = 3;
    check_case(&c);
    c.xi = -2;
    check_case(&c);
    c.xi = 0;
    c.kind = "match";
    check_case(&c);
    c.kind = "gmatch";
    check_case(&c);
    c.xi = 2;
    check_case(&c);
    c.has_xi = 0;
    c.kind = "gsub";
    for (size_t i = 0; i < sizeof repls / sizeof repls[0]; i++) {
        c.xs = repls[i];
        check_case(&c);
    }
    c.xs = "<%0>";
    c.has_yi = 1;
    c.yi = 1;
    check_case(&c);
}

TEST(differential_hand_pairs)
{
    differences = 0;
    int n = (int)(sizeof pairs / sizeof pairs[0]);
    for (int i = 0; i < n; i++) {
        const char *s = pairs[i][0], *p = pairs[i][1];
        size_t ls = strlen(s), lp = strlen(p);
        /* the last five pairs have a '\0' inside: "a\0b" is 3 long, and so on */
        if (i >= n - 5) {
            static const size_t zs[5][2] = {{3, 1}, {3, 2}, {3, 3}, {3, 3}, {3, 3}};
            ls = zs[i - (n - 5)][0];
            lp = zs[i - (n - 5)][1];
        }
        run_pair(s, ls, p, lp);
    }
    CHECK_MSG(differences == 0, "%d differences", differences);
}

/* Calls whose arguments a pair cannot express: positions, plain find,
 * argument errors, replacement strings and values, limits. */
static const char *const exprs[] = {
    /* init positions */
    "('hello'):find('l', 1)", "('hello'):find('l', 4)", "('hello'):find('l', 5)", "('hello'):find('l', 6)",
    "('hello'):find('l', 7)", "('hello'):find('', 6)", "('hello'):find('', 7)", "('hello'):find('', 100)",
    "('hello'):find('l', -1)", "('hello'):find('l', -2)", "('hello'):find('l', -5)", "('hello'):find('l', -6)",
    "('hello'):find('l', -100)", "('hello'):find('l', 0)", "('hello'):find('l+', -3)", "('hello'):find('^l', 3)",
    "('hello'):find('^l', 4)", "('hello'):find('o$', -1)", "('hello'):find('()', 6)", "('hello'):find('()', 7)",
    "('hello'):match('.', 6)", "('hello'):match('.?', 6)", "('hello'):match('()', 6)", "('hello'):match('l', 7)",
    "('hello'):match('.', -1)", "('hello'):match('.', math.mininteger)", "('hello'):find('.', math.maxinteger)",
    "('hello'):find('l', 2.0)", "('hello'):find('l', '3')", "('hello'):find('l', 2.5)", "('hello'):find('l', 'x')",
    "('hello'):find('l', {})", "('hello'):match('l', 2.5)",
    /* plain find */
    "('a.b'):find('.', 1, true)", "('a.b'):find('.', 3, true)", "('a+b'):find('+', 1, 1)",
    "('a+b'):find('+', 1, false)", "('a+b'):find('a+', 1, nil)", "('a(b'):find('(', 1, true)",
    "('a(b'):find('(')", "('a%b'):find('%', 1, true)", "('abc'):find('', 1, true)", "('abc'):find('', 4, true)",
    "('abc'):find('', 5, true)", "('abc'):find('abcd', 1, true)", "('abcabc'):find('ca', -4, true)",
    "('a\\0b'):find('\\0', 1, true)", "('a\\0b'):find('\\0b')", "('a\\0b.'):find('b.')", "('x\\0.'):find('\\0.')",
    "('aaab'):find('aab')", "('ab]'):find(']')", "('ab)'):find(')')",
    /* bad arguments */
    "string.find()", "string.find('x')", "string.find(nil, 'x')", "string.find({}, 'x')", "string.find('x', {})",
    "('x'):find({})", "('x'):match()", "string.match(1, 2)", "string.match(12345, 3)", "string.find(12.5, '%.')",
    "string.gmatch()", "string.gmatch('x')", "('x'):gmatch({})", "string.gmatch('x', 'x', 'y')",
    "string.gsub()", "string.gsub('x')", "string.gsub('x', 'x')", "string.gsub('x', 'x', nil)",
    "('x'):gsub('x')", "('x'):gsub('x', true)", "('x'):gsub('x', true, 'n')", "('x'):gsub('x', 'y', 'n')",
    "('x'):gsub('x', 'y', 1.5)", "('x'):gsub('x', 'y', '1')", "('x'):gsub({}, 'y')", "('x'):gsub('x', print, {})",
    "string.gsub('x', 'x', coroutine.create(print))", "string.find('x', 'x', nil, nil, nil)",
    /* gsub replacement strings */
    "('hello world'):gsub('o', '0')", "('hello world'):gsub('(o)', '[%1]')", "('hello world'):gsub('o', '%0%0')",
    "('hello world'):gsub('(l)(l)', '%2%1')", "('hello'):gsub('l', '%1')", "('hello'):gsub('l', '%2')",
    "('hello'):gsub('(l)', '%2')", "('hello'):gsub('l', '%%')", "('hello'):gsub('l', '%')",
    "('hello'):gsub('l', 'x%')", "('hello'):gsub('l', '%x')", "('hello'):gsub('l', '%a')",
    "('hello'):gsub('()l', '%1')", "('hello'):gsub('()l()', '%2-%1')", "('hello'):gsub('l', '%9')",
    "('hello'):gsub('(h)(e)(l)(l)(o)', '%5%4%3%2%1')", "('hello'):gsub('l', '\\0')", "('hello'):gsub('l', '%\\0')",
    "('hello'):gsub('', '-')", "('hello'):gsub('x*', '-')", "('hello'):gsub('l*', '-')", "('abc'):gsub('%w', '%0%0')",
    "('abc'):gsub('^', '>')", "('abc'):gsub('$', '<')", "('abc'):gsub('^a', 'A')", "('aaa'):gsub('^a', 'A')",
    "('abc'):gsub('^x', 'A')", "('abc'):gsub('^', '')", "('hello'):gsub('l', 'L', 0)", "('hello'):gsub('l', 'L', 1)",
    "('hello'):gsub('l', 'L', -1)", "('hello'):gsub('', '-', 2)", "('hello'):gsub('l', 'L', 2.0)",
    "('hello'):gsub('l', 'L', math.maxinteger)", "('hello'):gsub('l', 7)", "('hello'):gsub('l', 1.5)",
    "('abc'):gsub('.', {a = 1, b = true})", "('abc'):gsub('.', {a = 1, b = {}})", "('abc'):gsub('.', {a = 1.5})",
    "('abc'):gsub('.', {})", "('abc'):gsub('(.)(.)', {a = 'X'})", "('abc'):gsub('()', {'P', 'Q'})",
    "('abc'):gsub('.', setmetatable({}, {__index = function(_, k) return k:upper() end}))",
    "('abc'):gsub('%w', function(c) return c:byte() end)", "('abc'):gsub('%w', function() end)",
    "('abc'):gsub('%w', function() return false end)", "('abc'):gsub('%w', function() return true end)",
    "('abc'):gsub('%w', function() return print end)", "('abc'):gsub('(%w)()', function(a, b) return a .. b end)",
    "('abc'):gsub('%w', function(c) error('no ' .. c) end)", "('abc'):gsub('%w', function(c) error({}) end)",
    "('abc'):gsub('%w', function(c) error('no ' .. c, 0) end)", "('abc'):gsub('%w', error)",
    "('abc'):gsub('x', function() error('never') end)", "('a,b,,c'):gsub(',', ';')", "('abc'):gsub('', '')",
    "('abc'):gsub('.', {a = 'x'}, 2)", "('hello world from lua'):gsub('(%w+)', '<%1>')",
    "('hello world'):gsub('%w+', '%0 %0', 1)", "('$name is $age'):gsub('%$(%w+)', {name = 'Bob', age = 7})",
    "('abc'):gsub('(b', 'x')", "('abc'):gsub('b)', 'x')", "('abc'):gsub('%', 'x')", "('abc'):gsub('[', 'x')",
    "('abc'):gsub('(', function() return 'x' end)", "('abc'):gsub('.', '%1', 5)",
    /* gmatch */
    "G('hello world from lua', '%a+')", "G('k1=v1, k2=v2', '(%w+)=(%w+)')", "G('abc', '')", "G('abc', '()')",
    "G('abc', 'x*')", "G('aaa', 'a*')", "G('abc', '.', 2)", "G('abc', '.', -1)", "G('abc', '.', 4)",
    "G('abc', '.', 5)", "G('abc', '', 4)", "G('abc', '', 5)", "G('abc', '', -10)", "G('^a^a', '^a')",
    "G('abc', '%')", "G('abc', '(')", "G('abc', '%1')", "G('abc', '(.)%1')", "G('aabb', '(.)%1')",
    "G('one two', '%f[%w]%w+')", "G('(a)(b)', '%b()')", "G('ab', '.-')", "G('ab', '.?')", "G('a,b,,c', '([^,]*)')",
    "string.gmatch('abc', 'x', 'y')", "string.gmatch('abc', '.', 2.5)",
    /* limits: captures, recursion */
    "('a'):find(string.rep('()', 32))", "('a'):find(string.rep('()', 33))", "('a'):find(string.rep('(', 32))",
    "('a'):find(string.rep('(', 33))", "('a'):find(string.rep('(', 40))", "('a'):match(string.rep('(a?)', 32))",
    "select('#', ('a'):match(string.rep('()', 32)))", "string.rep('a', 300):find(string.rep('a?', 300))",
    "string.rep('a', 300):find(string.rep('a?', 199))", "string.rep('a', 300):find(string.rep('a?', 200))",
    "string.rep('a', 300):find(string.rep('a?', 201))", "('aa'):find(string.rep('a*', 198) .. 'b')",
    "string.rep('a', 300):find(string.rep('(a)', 30))", "('a'):find(string.rep('a-', 197) .. '$')",
    "('a'):find(string.rep('a-', 198) .. '$')", "('a'):find(string.rep('a-', 199) .. '$')",
    "('a'):find(string.rep('a-', 200) .. '$')", "string.rep('x', 5):find(string.rep('%f[x]', 500))",
    "string.rep('ab', 250):find(string.rep('%bab', 3))", "string.rep('a', 1000):find('.-b')",
    "string.rep('a', 1000):match('(.*)%1')", "string.rep('a', 1001):match('^(.*)%1$')",
    "string.rep('a', 300):gsub(string.rep('a?', 250), 'x')", "G(string.rep('a', 300), string.rep('a?', 250))",
    /* numbers as subjects/patterns/replacements */
    "string.find(123456, 34)", "string.match(3.25, '%d+')", "string.gsub(1e15, '0', 1)", "string.gsub(100, 0, 9)",
    /* every class letter against every byte */
    "(function() local t = {} for c = 0, 255 do local s = string.char(c) for k in ('acdglpsuwxACDGLPSUWXbefz'):gmatch('.') do t[#t + 1] = tostring(string.find(s, '%' .. k)) end end return table.concat(t, ',') end)()",
    "(function() local t = {} for c = 0, 255 do local s = string.char(c) for _, set in ipairs{'[%a_]', '[^%s]', '[a-f%d]', '[%]-]', '[]-a]', '[\\0-\\31]'} do t[#t + 1] = tostring(string.find(s, set)) end end return table.concat(t, ',') end)()",
};

TEST(differential_expressions)
{
    differences = 0;
    for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) check_expr(exprs[i]);
    CHECK_MSG(differences == 0, "%d differences", differences);
}

/* ---- generated cases ---------------------------------------------------------------- */

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static const char *const tokens[] = {
    "a", "b", "c", "a", "b", ".", "%a", "%d", "%s", "%w", "%p", "%A", "%l", "%u", "%x", "%c", "%g", "%%", "%.",
    "%(", "%]", "%-", "[ab]", "[^a]", "[a-c]", "[]a]", "[^]]", "[%a.]", "[a-]", "[-a]", "[%]", "[", "]", "[^",
    "*", "+", "-", "?", "*", "+", "-", "?", "^", "$", "(", ")", "(", ")", "()", "%1", "%2", "%0", "%b()", "%bab",
    "%b", "%b(", "%f[a]", "%f[^a]", "%f[%w]", "%f", "%fa", "%", "%z", "z", "\0", "%b\0)",
};
#define NTOKENS (sizeof tokens / sizeof tokens[0])

static const char alphabet[] = "aaabbbc()[]-.%^$ 1A\0";
static const char *const repls[] = {"x", "<%0>", "%1", "%2%1", "%%", "%", "%x", "fn", "tbl", "fnerr", "fnnum",
                                    "fnsome", "fnbad", "num", "yes", "%0%1%2"};
#define NREPLS (sizeof repls / sizeof repls[0])

TEST(differential_random)
{
    differences = 0;
    int errors = 0;                  /* cases where stock raised: the corpus reaches the error paths */
    for (int n = 0; n < 4000; n++) {
        char p[96], s[32];
        size_t lp = 0, ls = 0;
        int ntok = (int)rnd(7);
        if (rnd(4) == 0) p[lp++] = '^';
        for (int t = 0; t < ntok; t++) {
            unsigned k = rnd(NTOKENS);
            size_t len = k == NTOKENS - 1 ? 4 : (tokens[k][0] ? strlen(tokens[k]) : 1);
            memcpy(p + lp, tokens[k], len);
            lp += len;
        }
        p[lp] = '\0';
        int slen = (int)rnd(13);
        for (int i = 0; i < slen; i++) s[ls++] = alphabet[rnd(sizeof alphabet)];  /* includes the '\0' */
        s[ls] = '\0';
        static const char *const kinds[] = {"find", "match", "gmatch", "gsub"};
        gen_case c = {.kind = kinds[n % 4], .s = s, .ls = ls, .p = p, .lp = lp};
        if (c.kind[1] == 's') {      /* gsub: a replacement, sometimes a count */
            c.xs = repls[rnd(NREPLS)];
            if (rnd(3) == 0) {
                c.has_yi = 1;
                c.yi = (long long)rnd(4) - 1;
            }
        } else if (rnd(3) != 0) {
            c.has_xi = 1;
            c.xi = (long long)rnd(31) - 15;
        }
        if (c.kind[0] == 'f' && rnd(10) == 0) c.y_true = 1;
        char *a = run_case(stock, &c);
        if (strncmp(a, "ERR", 3) == 0) errors++;
        free(a);
        check_case(&c);
    }
    CHECK_MSG(differences == 0, "%d differences", differences);
    CHECK_MSG(errors > 200, "only %d of the generated cases raise an error", errors);
}

/* ---- the budget --------------------------------------------------------------------- */

/* Runs chunk in L under lua_pcall; returns the status, the message (or
 * first result as a string) in msg. */
static int run_chunk(lua_State *L, const char *chunk, char *msg, size_t n)
{
    int st = luaL_loadstring(L, chunk);
    if (st == LUA_OK) st = lua_pcall(L, 0, 1, 0);
    const char *m = lua_tostring(L, -1);
    snprintf(msg, n, "%s", m ? m : "(not a string)");
    lua_pop(L, 1);
    return st;
}

TEST(tick_called_on_exponential_pattern)
{
    lua_State *L = make_state(1, counting_tick);
    char msg[256];
    ticks = 0;
    CHECK(run_chunk(L, "return tostring(('abc'):find('b+'))", msg, sizeof msg) == LUA_OK);
    CHECK(strcmp(msg, "2") == 0);
    CHECK_MSG(ticks == 0, "a short match ticked %d times", ticks);
    /* .-.-.-b on 150 a's tries about 150^4/24 = 21M positions */
    ticks = 0;
    CHECK(run_chunk(L, "return tostring(string.rep('a', 150):find('.-.-.-b'))", msg, sizeof msg) == LUA_OK);
    CHECK(strcmp(msg, "nil") == 0);
    CHECK_MSG(ticks > 1000, "only %d ticks", ticks);
    /* greedy repetitions and back references count the characters they scan */
    ticks = 0;
    CHECK(run_chunk(L, "return tostring(string.rep('a', 3000):find('(a*)%1b'))", msg, sizeof msg) == LUA_OK);
    CHECK(strcmp(msg, "nil") == 0);
    CHECK_MSG(ticks > 500, "only %d ticks", ticks);
    /* and %b its scan */
    ticks = 0;
    CHECK(run_chunk(L, "return tostring(string.rep('(', 3000):find('%b()'))", msg, sizeof msg) == LUA_OK);
    CHECK(strcmp(msg, "nil") == 0);
    CHECK_MSG(ticks > 500, "only %d ticks", ticks);
    lua_close(L);
}

TEST(tick_that_raises_stops_each_function)
{
    static const char *const chunks[] = {
        "return string.rep('a', 5000):find('.-.-.-.-.-.-b')",
        "return string.rep('a', 5000):match('.-.-.-.-.-.-b')",
        "for x in string.rep('a', 5000):gmatch('.-.-.-.-.-.-b') do end",
        "return string.rep('a', 5000):gsub('.-.-.-.-.-.-b', 'x')",
        "return string.rep('a', 5000):gsub('.-.-.-.-.-.-b', function() end)",
        "return select(2, pcall(string.find, string.rep('a', 5000), '(.-)(.-)(.-)(.-)(.-)(.-)b'))",
    };
    lua_State *L = make_state(1, raising_tick);
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        char msg[256];
        ticks = 0;
        tick_limit = 3;
        int st = run_chunk(L, chunks[i], msg, sizeof msg);
        if (i == 5) {                /* a pcall in the script sees the error as any other */
            CHECK(st == LUA_OK);
        } else {
            CHECK_MSG(st == LUA_ERRRUN, "%s: status %d", chunks[i], st);
        }
        CHECK_STR_CONTAINS(msg, "budget stop after 3 ticks");
        CHECK_MSG(ticks == 3, "%s: %d ticks", chunks[i], ticks);
    }
    /* the state carries on: an ordinary match after the stop */
    char msg[256];
    tick_limit = 1000000;
    CHECK(run_chunk(L, "return select(2, ('x = 12'):find('(%d+)'))", msg, sizeof msg) == LUA_OK);
    CHECK(strcmp(msg, "6") == 0);
    lua_close(L);
}

TEST(null_tick_matches_like_stock)
{
    lua_State *L = make_state(1, NULL);
    char msg[256];
    CHECK(run_chunk(L, "return tostring(string.rep('a', 60):find('.-.-.-b'))", msg, sizeof msg) == LUA_OK);
    CHECK(strcmp(msg, "nil") == 0);
    CHECK(run_chunk(L, "return (('a1b22'):gsub('%d+', '<%0>'))", msg, sizeof msg) == LUA_OK);
    CHECK(strcmp(msg, "a<1>b<22>") == 0);
    lua_close(L);
}

TEST(gsub_function_replacement_error_comes_back)
{
    lua_State *L = make_state(1, counting_tick);
    char msg[256];
    int st = run_chunk(L, "return ('abc'):gsub('%w', function(c) error('no ' .. c, 0) end)", msg, sizeof msg);
    CHECK(st == LUA_ERRRUN);
    CHECK(strcmp(msg, "no a") == 0);
    st = run_chunk(L, "return ('abc'):gsub('%w', function(c) return {} end)", msg, sizeof msg);
    CHECK(st == LUA_ERRRUN);
    CHECK_STR_CONTAINS(msg, "invalid replacement value (a table)");
    lua_close(L);
}

TEST(deep_recursion_errors_cleanly)
{
    lua_State *L = make_state(1, counting_tick);
    char msg[256];
    int st = run_chunk(L, "return string.rep('a', 5000):find(string.rep('a?', 5000))", msg, sizeof msg);
    CHECK(st == LUA_ERRRUN);
    CHECK_STR_CONTAINS(msg, "pattern too complex");
    st = run_chunk(L, "return ('a'):find(string.rep('(', 1000))", msg, sizeof msg);
    CHECK(st == LUA_ERRRUN);
    CHECK_STR_CONTAINS(msg, "too many captures");
    /* a gmatch iterator that failed on depth starts fresh: a shallow match after it still works */
    st = run_chunk(L,
                   "local it = string.gmatch(string.rep('a', 300), string.rep('a?', 250))\n"
                   "local ok, e = pcall(it)\n"
                   "return tostring(ok) .. ' ' .. tostring(e:find('too complex', 1, true) ~= nil)",
                   msg, sizeof msg);
    CHECK(st == LUA_OK);
    CHECK(strcmp(msg, "false true") == 0);
    lua_close(L);
}

TEST(install_replaces_the_string_table_and_its_methods)
{
    lua_State *L = make_state(1, counting_tick);
    lua_getglobal(L, "string");
    lua_getglobal(stock, "string");
    static const char *const names[] = {"find", "match", "gmatch", "gsub", "rep"};
    for (int i = 0; i < 5; i++) {
        lua_getfield(L, -1, names[i]);
        lua_getfield(stock, -1, names[i]);
        int same = lua_tocfunction(L, -1) == lua_tocfunction(stock, -1);
        CHECK_MSG(same == (i == 4), "string.%s: %s", names[i], same ? "still stock" : "replaced");
        lua_pop(L, 1);
        lua_pop(stock, 1);
    }
    lua_pop(L, 1);
    lua_pop(stock, 1);
    CHECK(lua_gettop(L) == 0);
    /* a method call on a string reaches the budgeted version */
    char msg[256];
    ticks = 0;
    CHECK(run_chunk(L, "return tostring(getmetatable('').__index == string and string.rep('a', 60):find('.-.-.-b'))",
                    msg, sizeof msg) == LUA_OK);
    CHECK(strcmp(msg, "nil") == 0);
    CHECK(ticks > 0);
    lua_close(L);
}

int main(void)
{
    stock = make_state(0, NULL);
    ours = make_state(1, counting_tick);
    RUN(differential_hand_pairs);
    RUN(differential_expressions);
    RUN(differential_random);
    RUN(tick_called_on_exponential_pattern);
    RUN(tick_that_raises_stops_each_function);
    RUN(null_tick_matches_like_stock);
    RUN(gsub_function_replacement_error_comes_back);
    RUN(deep_recursion_errors_cleanly);
    RUN(install_replaces_the_string_table_and_its_methods);
    lua_close(stock);
    lua_close(ours);
    return test_summary("pattern");
}
