-- LuaRocks: the marrow C module (require "marrow") for Lua 5.4, built by the
-- project's Makefile (`make module`, then `make install-module` into the
-- rock's lib folder). The Makefile installs the Debian packages it builds
-- against (scripts/install-deps.sh). From a checkout:
--   luarocks --lua-version 5.4 make scripts/marrow-0.1-1.rockspec
-- The version here follows src/core/version.h (MR_VERSION).
rockspec_format = "3.0"
package = "marrow"
version = "0.1-1"
source = {
   url = "git+file://.",
}
description = {
   summary = "Skeletal animation from Lua: MD5, COLLADA, glTF and BVH models, clips, blending, IK, retargeting",
   detailed = [[
The windowless Lua API of marrow, a Lua-scriptable skeletal-animation sandbox
written in C: load models, sample and blend clips, run mixers, IK and
retargeting, with the same functions and errors as scripts inside `marrow run`.
]],
   license = "proprietary",
}
dependencies = {
   "lua >= 5.4, < 5.5",
}
build = {
   type = "make",
   build_target = "module",
   install_target = "install-module",
   install_variables = {
      LUADIR = "$(LIBDIR)",
   },
}
