/* keys.c — key names and cursor position for scripts (see keys.h). */
#include "platform/keys.h"

#include <stdio.h>
#include <string.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#define QUEUE 64

static GLFWwindow *win;
static GLFWkeyfun previous;
static char queue[QUEUE][32];
static int head, count;

static const char *special_name(int key)
{
    static char fkey[8];
    if (key >= GLFW_KEY_F1 && key <= GLFW_KEY_F25) {
        snprintf(fkey, sizeof fkey, "f%d", key - GLFW_KEY_F1 + 1);
        return fkey;
    }
    switch (key) {
    case GLFW_KEY_SPACE: return "space";
    case GLFW_KEY_ENTER: return "return";
    case GLFW_KEY_KP_ENTER: return "kpenter";
    case GLFW_KEY_ESCAPE: return "escape";
    case GLFW_KEY_TAB: return "tab";
    case GLFW_KEY_BACKSPACE: return "backspace";
    case GLFW_KEY_DELETE: return "delete";
    case GLFW_KEY_INSERT: return "insert";
    case GLFW_KEY_HOME: return "home";
    case GLFW_KEY_END: return "end";
    case GLFW_KEY_PAGE_UP: return "pageup";
    case GLFW_KEY_PAGE_DOWN: return "pagedown";
    case GLFW_KEY_LEFT: return "left";
    case GLFW_KEY_RIGHT: return "right";
    case GLFW_KEY_UP: return "up";
    case GLFW_KEY_DOWN: return "down";
    case GLFW_KEY_LEFT_SHIFT: return "lshift";
    case GLFW_KEY_RIGHT_SHIFT: return "rshift";
    case GLFW_KEY_LEFT_CONTROL: return "lctrl";
    case GLFW_KEY_RIGHT_CONTROL: return "rctrl";
    case GLFW_KEY_LEFT_ALT: return "lalt";
    case GLFW_KEY_RIGHT_ALT: return "ralt";
    default: return NULL;
    }
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    if (previous) previous(w, key, scancode, action, mods);
    if (action != GLFW_PRESS) return;
    const char *name = special_name(key);
    if (!name) name = glfwGetKeyName(key, scancode);
    if (!name || count == QUEUE) return;
    char *slot = queue[(head + count) % QUEUE];
    snprintf(slot, 32, "%s", name);
    count++;
}

mr_status mr_keys_attach(void)
{
    win = glfwGetCurrentContext();
    if (!win) return MR_ERR_INVALID_ARGUMENT;
    previous = glfwSetKeyCallback(win, on_key);
    head = count = 0;
    return MR_OK;
}

int mr_keys_next(char name[32])
{
    if (!count) return 0;
    memcpy(name, queue[head], 32);
    head = (head + 1) % QUEUE;
    count--;
    return 1;
}

int mr_keys_cursor(double *x, double *y)
{
    if (!win) return 0;
    glfwGetCursorPos(win, x, y);
    return 1;
}
