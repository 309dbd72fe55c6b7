/* path.c — path strings (see path.h). */
#include "core/path.h"

#include <ctype.h>
#include <string.h>

#include "core/str.h"

const char *mr_path_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *mr_path_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return mr_str_dup(".");
    if (slash == path) return mr_str_dup("/");
    return mr_str_ndup(path, (size_t)(slash - path));
}

char *mr_path_stem(const char *path)
{
    const char *base = mr_path_basename(path);
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? mr_str_ndup(base, (size_t)(dot - base)) : mr_str_dup(base);
}

const char *mr_path_ext(const char *path, char *buf, size_t bufsize)
{
    const char *base = mr_path_basename(path);
    const char *dot = strrchr(base, '.');
    size_t i = 0;
    if (dot && bufsize)
        for (dot++; *dot && i + 1 < bufsize; dot++) buf[i++] = (char)tolower((unsigned char)*dot);
    if (bufsize) buf[i] = '\0';
    return buf;
}

char *mr_path_join(const char *dir, const char *name)
{
    if (!dir || !*dir || name[0] == '/') return mr_str_dup(name);
    size_t n = strlen(dir);
    return mr_str_fmt("%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", name);
}
