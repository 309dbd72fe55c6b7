/* md5_lex.h — the tokenizer shared by the .md5mesh and .md5anim readers
 * (internal to src/formats; the tests include it to check the number parser).
 *
 * It reads an in-memory buffer bounded by an end pointer: a NUL byte inside
 * the text is just a bad character, never the end. Whitespace is space, tab,
 * \v, \f, CR and LF (LF, CRLF and a lone CR each end a line); comments are
 * `//` to the end of the line and block comments. Tokens are words
 * (keywords), "strings" (on one line, no control characters), numbers and
 * the punctuation ( ) { }.
 *
 * Every read function skips whitespace and comments first and remembers where
 * its token began. On a mismatch it writes the one error line
 *   md5: FILE:LINE: expected X, found Y
 * (status MR_ERR_BAD_FILE) and returns -1; after the first error every
 * function returns -1 at once, so callers just propagate -1.
 */
#ifndef MR_FORMATS_MD5_LEX_H
#define MR_FORMATS_MD5_LEX_H

#include <stddef.h>

#include "core/error.h"

typedef struct md5_lex {
    const char *name;    /* file name for messages, as given */
    const char *begin;   /* first byte of the text */
    const char *p;       /* next unread byte */
    const char *end;     /* one past the last byte */
    int line;            /* line of p, from 1 */
    const char *tok;     /* start of the last token read (for "found") */
    int tok_line;        /* its line */
    int failed;          /* an error has been written */
    int no_memory;       /* ... and it was an allocation failure */
    mr_error *err;       /* may be NULL */
} md5_lex;

void md5_lex_init(md5_lex *lx, const char *name, const char *text, size_t len, mr_error *err);

/* Records "out of memory" at the current line (unless an error is already
 * written); returns -1 so readers can `return md5_out_of_memory(lx);`. */
int md5_out_of_memory(md5_lex *lx);

/* Skips whitespace and comments. -1 on an unterminated block comment. */
int md5_skip(md5_lex *lx);

/* Bytes left after the current position (for "count fits the file" checks). */
size_t md5_left(const md5_lex *lx);

/* 1 when only whitespace and comments are left. */
int md5_at_end(md5_lex *lx);

/* 1 when the next token is the word (nothing consumed). */
int md5_peek_word(md5_lex *lx, const char *word);

/* Consumes the word and returns 1 when it is next; 0 (nothing consumed)
 * otherwise. */
int md5_accept(md5_lex *lx, const char *word);

/* The next byte after whitespace and comments, or -1 at the end. */
int md5_peek_char(md5_lex *lx);

/* Reads the header both MD5 files start with: "MD5Version 10" and an
 * optional `commandline "..."` (skipped). 0, or -1 with the error set. */
int md5_header(md5_lex *lx);

/* Reads the word (a keyword such as "numJoints"); anything else is an error
 * "expected 'word'" (plus context, when not NULL, e.g. "after the joints"). */
int md5_word(md5_lex *lx, const char *word, const char *context);

/* Reads one of the punctuation characters ( ) { }. */
int md5_punct(md5_lex *lx, char c, const char *context);

/* Reads a decimal integer that fits an int. what names the value in the
 * message ("vert index"). */
int md5_int(md5_lex *lx, int *out, const char *what);

/* Reads a decimal number (optional sign, digits with an optional point,
 * optional exponent) as the nearest float, exactly as strtof would; refuses
 * words such as nan and inf, and values that overflow a float. */
int md5_float(md5_lex *lx, float *out, const char *what);

/* Reads a "string" on one line; *s points into the text (without quotes). */
int md5_string(md5_lex *lx, const char **s, size_t *n, const char *what);

/* Writes the error for the last token read: "expected <fmt...>, found '<it>'". */
int md5_fail(md5_lex *lx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same for the next token (skipping whitespace first). */
int md5_fail_next(md5_lex *lx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with an explicit line and "found" text (for checks made after the
 * tokens were read, such as a vertex whose weights sum to zero). */
int md5_fail_at(md5_lex *lx, int line, const char *found, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The number parser on its own: parses [s, end) from s and stops at the first
 * byte that cannot continue the number. Returns 0 and sets *out and *stop,
 * or -1 when s does not start a number. The value may be infinite when the
 * text overflows a float (md5_float refuses it). */
int md5_parse_float(const char *s, const char *end, float *out, const char **stop);

/* MD5 stores unit quaternions as x, y, z with w = -sqrt(1 - x²-y²-z²) (id
 * Tech's convention: w <= 0). Computes w (in double) and writes x, y, z, w.
 * When x²+y²+z² exceeds 1 (rounding in the file) the vector is normalised and
 * w is 0. Returns x²+y²+z² so callers can refuse values far above 1. */
double md5_quat_from_xyz(const float xyz[3], float out[4]);

/* Largest x²+y²+z² accepted for a stored quaternion: slack for exporters
 * that round carelessly; above it the numbers are not a rotation. */
#define MD5_QUAT_SLACK 1.01

#endif
