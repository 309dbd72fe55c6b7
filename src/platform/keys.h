/* keys.h — the input scripts see, on top of window.h: every key press by
 * name ("a", "space", "left", "f5", ...) and the cursor position.
 *
 * window.h reports only the keys the built-in viewer needs; this module
 * chains its own GLFW key callback in front of the window's (the window's
 * still runs), so both see every event. Only for a GLFW window: call
 * mr_keys_attach after mr_window_create made a windowed context current.
 * Names follow LÖVE's: letters and digits as typed (layout-aware), "space",
 * "return", "escape", "tab", "backspace", "delete", "insert", "home", "end",
 * "pageup", "pagedown", "left", "right", "up", "down", "f1".."f12",
 * "lshift", "rshift", "lctrl", "rctrl", "lalt", "ralt".
 */
#ifndef MR_PLATFORM_KEYS_H
#define MR_PLATFORM_KEYS_H

#include "core/error.h"

/* Installs the callbacks on the current GLFW window; MR_ERR_INVALID_ARGUMENT
 * when there is none. */
mr_status mr_keys_attach(void);
/* Pops the oldest key pressed since the last calls into name (at most 31
 * characters); 0 when there is none. Auto-repeats are not reported. */
int mr_keys_next(char name[32]);
/* Cursor position in window pixels (top-left origin); 0 when unknown. */
int mr_keys_cursor(double *x, double *y);

#endif
