/* fbx_ascii.c — ASCII FBX into the document tree of fbx_parse.h. */
#include "formats/fbx_parse_internal.h"

mr_status fbxp_parse_ascii(fbxp_ctx *c)
{
    return fbxp_fail(c, MR_ERR_BAD_FILE, 1, "expected a binary FBX file (ASCII is not read yet)");
}
