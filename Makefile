# marrow — build, test, benchmark.
#
#   make          build ./marrow
#   make run      the demo scene (installs missing Debian packages first)
#   make test     every test; ends with "N passed, N failed"
#   make asan     the same tests under AddressSanitizer + UBSan
#   make fuzz     libFuzzer targets (clang) in build/fuzz/fuzz/
#   make fuzz-smoke  each fuzz target for a bounded time (FUZZ_SECONDS each)
#   make soak     long runs: frames, reloads, scenes (not part of make test)
#   make bench    performance figures (marrow bench)
#   make models   regenerate models/ (the mannequin: MD5, .dae, .glb)
#   make module   the Lua C module build/pic/marrow.so (require "marrow" from lua5.4)
#   make install  PREFIX=/usr/local DESTDIR=...; make uninstall removes it
#   make deb      a Debian package marrow_VERSION_ARCH.deb (dpkg-deb)
#   make clean

PKGS    := lua5.4 glfw3 epoxy cglm stb libxml-2.0 egl jansson libpng zlib libdeflate
CC      ?= cc
BUILD   ?= build/release
SANFLAGS ?=
OPT     ?= -O2

# Missing packages are installed by the project's own script (quiet when all
# are present), so a fresh machine needs no other step.
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
  $(shell ./scripts/install-deps.sh >&2)
endif
ifneq ($(filter fuzz fuzz-smoke,$(MAKECMDGOALS)),)
  $(shell ./scripts/install-deps.sh --fuzz >&2)
endif

# Line tables and function names (backtraces, perf, ASan reports name file
# and line); DEBUG=-g adds locals and types for gdb. -g1 instead of -g
# took a fresh clone's build from 69 to 51 s (2 cores).
DEBUG   ?= -g1
CFLAGS  := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT) $(DEBUG) -fno-math-errno \
           -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter \
           -Isrc $(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(SANFLAGS)
LDLIBS  := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lmeshoptimizer -lm -lpthread $(SANFLAGS)

# Without the sanitizers every object is position-independent, so that one
# compile of the library serves ./marrow and the Lua module marrow.so alike
# (below; a fresh `make test` compiled it twice). -fno-semantic-interposition
# keeps calls within a file as direct and inlinable as in a program's code,
# and the linker turns the GOT and TLS accesses of ./marrow's own symbols
# back into direct ones.
ifeq ($(SANFLAGS),)
  CFLAGS += -fPIC -fno-semantic-interposition
endif

# A plain `make` (the README's `make test` on a fresh clone) builds on every
# core; -jN on the command line, or a parent make's job server, decides
# instead.
ifeq ($(filter -j% j%,$(MAKEFLAGS)),)
  MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

# libmarrow.a is the library: core, anim, formats, gfx, platform, lua. The
# marrow program (src/cli) adds the regression runner (src/testkit) and the
# benchmarks (src/bench), each its own archive; tools/mannequin is a program of
# its own (`make models`). Tests link whichever archives they need.
LIB_DIRS := src/core src/anim src/formats src/gfx src/platform src/lua
srcs_in   = $(sort $(shell find $(1) -name '*.c'))
LIB_SRC  := $(call srcs_in,$(LIB_DIRS))
LIB      := $(BUILD)/libmarrow.a
TESTKIT  := $(BUILD)/libmarrow_testkit.a
BENCH    := $(BUILD)/libmarrow_bench.a
MANNEQUIN_LIB := $(BUILD)/libmannequin.a
TESTKIT_SRC   := $(call srcs_in,src/testkit)
BENCH_SRC     := $(call srcs_in,src/bench)
CLI_SRC       := $(call srcs_in,src/cli)
MANNEQUIN_SRC := $(filter-out tools/mannequin/main.c,$(call srcs_in,tools/mannequin))
ALL_SRC  := $(LIB_SRC) $(TESTKIT_SRC) $(BENCH_SRC) $(CLI_SRC) $(call srcs_in,tools/mannequin)
OBJ      := $(ALL_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_LIBS := $(TESTKIT) $(BENCH) $(MANNEQUIN_LIB) $(LIB)
EXE      := $(BUILD)/marrow
MAKE_MANNEQUIN := $(BUILD)/tools/make-mannequin
# Test-only tools (tests/tools/*.c): built for `make test`, never linked into
# libmarrow or ./marrow. assimp_pose is the independent skinning reference of
# tests/cli_reference.sh; obj_compare matches posed OBJs against the ufbx
# data's references (tests/cli_fbx.sh); compare_poses pairs marrow's posed
# vertices with assimp_pose's and measures them (cli_reference and others).
TOOL_BIN := $(BUILD)/tests/tools/assimp_pose $(BUILD)/tests/tools/obj_compare $(BUILD)/tests/tools/compare_poses

.PHONY: all run test asan bench models clean help fuzz fuzz-targets fuzz-smoke soak \
        module man install install-module uninstall deb
all: marrow

marrow: $(EXE)
	@ln -sf $(EXE) marrow

# Objects and test programs depend on the flags they were compiled with
# ($(BUILD)/.cflags, rewritten only when they change): an object compiled
# otherwise (another OPT, an older Makefile's flags) is compiled again.
FLAGS_STAMP := $(BUILD)/.cflags
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
  $(shell mkdir -p $(BUILD) && { printf '%s\n' '$(CFLAGS)' | cmp -s - $(FLAGS_STAMP) || printf '%s\n' '$(CFLAGS)' > $(FLAGS_STAMP); })
endif

$(BUILD)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	@$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tools/%.o: CFLAGS += -Itools
# The spring step (anim/springs.c: chains four to a vector of doubles) is the
# one kernel -O3 pays for: 15-25% less time a frame in `marrow bench --only
# springs`; -O3 keeps ISO C's floating point (no contraction or reordering),
# and test_springs_vrm's three-vrm agreement is unchanged (0.00049 mm). gcc
# 12's -O3 inlining warns of vector temporaries it cannot see filled lane
# by lane.
ifeq ($(OPT),-O2)
$(BUILD)/src/anim/springs.o: CFLAGS += -O3 -Wno-maybe-uninitialized
endif

# The binary model cache (formats/cache.h) keys its files on a checksum of
# the code that builds models, so a new marrow never trusts a model an
# older loader wrote.
LOADER_SRC  := $(sort $(wildcard src/core/*.[ch] src/anim/*.[ch] src/formats/*.[ch]))
LOADER_HASH := $(shell cat $(LOADER_SRC) | cksum | cut -d' ' -f1)
$(BUILD)/src/formats/cache_write.o: CFLAGS += -DMR_LOADER_HASH=$(LOADER_HASH)u
$(BUILD)/src/formats/cache_write.o: $(LOADER_SRC)

archive = @rm -f $@; ar rcs $@ $^
$(LIB): $(LIB_SRC:%.c=$(BUILD)/%.o)
	$(archive)
$(TESTKIT): $(TESTKIT_SRC:%.c=$(BUILD)/%.o)
	$(archive)
$(BENCH): $(BENCH_SRC:%.c=$(BUILD)/%.o)
	$(archive)
$(MANNEQUIN_LIB): $(MANNEQUIN_SRC:%.c=$(BUILD)/%.o)
	$(archive)

$(EXE): $(CLI_SRC:%.c=$(BUILD)/%.o) $(TESTKIT) $(BENCH) $(LIB)
	@echo "  LINK  $@"
	@$(CC) -o $@ $^ $(LDLIBS)

$(MAKE_MANNEQUIN): $(BUILD)/tools/mannequin/main.o $(MANNEQUIN_LIB) $(LIB)
	@mkdir -p $(dir $@)
	@echo "  LINK  $@"
	@$(CC) -o $@ $^ $(LDLIBS)

# A test program's own file compiles at -O1 (what it tests, the library,
# at OPT): a fresh clone's 62 test programs took 23.5 s of CPU at -O2
# (test_collada.c 2.2 s, 1.3 s at -O1).
TEST_OPT ?= -O1
$(BUILD)/tests/%: tests/%.c $(wildcard tests/*.h) $(TEST_LIBS) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  TEST  $@"
	@$(CC) $(filter-out $(OPT),$(CFLAGS)) $(TEST_OPT) -Itests -Itools -o $@ $< $(TEST_LIBS) $(LDLIBS)

$(BUILD)/tests/tools/obj_compare $(BUILD)/tests/tools/compare_poses: $(BUILD)/tests/tools/%: tests/tools/%.c
	@mkdir -p $(dir $@)
	@echo "  TOOL  $@"
	@$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L $(OPT) $(DEBUG) -Wall -Wextra -Werror -Wshadow $(SANFLAGS) -o $@ $< -lm $(SANFLAGS)

$(BUILD)/tests/tools/assimp_pose: tests/tools/assimp_pose.c
	@mkdir -p $(dir $@)
	@echo "  TOOL  $@"
	@$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L $(OPT) $(DEBUG) -Wall -Wextra -Werror -Wshadow \
	    $(shell pkg-config --cflags assimp 2>/dev/null) $(SANFLAGS) -o $@ $< \
	    $(shell pkg-config --libs assimp 2>/dev/null) -lm $(SANFLAGS)

run: marrow
	./scripts/demo.sh

test: $(EXE) $(MAKE_MANNEQUIN) $(TEST_BIN) $(TOOL_BIN) $(MODULE)
	@MARROW=$(EXE) MAKE_MANNEQUIN=$(MAKE_MANNEQUIN) TEST_BIN_DIR=$(BUILD)/tests ./tests/run.sh

# llvmpipe renders on the test's own thread under the sanitizers: LeakSanitizer's
# stop-the-world tracer has crashed at exit on llvmpipe's rasteriser threads.
# It also crashed ("Tracer caught signal 11") on the thread of Mesa's shader
# disk cache, alive at exit once a run compiles many programs: off here.
asan:
	@LP_NUM_THREADS=0 MESA_SHADER_CACHE_DISABLE=true MARROW_ASAN=1 $(MAKE) --no-print-directory test BUILD=build/asan OPT=-O1 \
	    SANFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"

# ---- fuzzing ---------------------------------------------------------------
# One libFuzzer target per reader, plus fuzz_lua for the Lua API: every
# tests/fuzz/fuzz_*.c is a target (glTF and BVH readers add fuzz_gltf.c and
# fuzz_bvh.c there, with a "fuzz-seeds:" line naming their file extensions;
# nothing here changes). The library is built with clang under ASan + UBSan
# and libFuzzer's coverage, into its own build directory.
FUZZ_CC    ?= clang-14
FUZZ_SRC   := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN   := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_SAN   := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
              -fsanitize-ignorelist=$(CURDIR)/tests/fuzz/ignorelist.txt
FUZZ_SECONDS ?= 25

fuzz:
	@$(MAKE) --no-print-directory fuzz-targets BUILD=build/fuzz CC=$(FUZZ_CC) OPT=-O1 \
	    SANFLAGS="$(FUZZ_SAN) -fsanitize=fuzzer-no-link"

fuzz-targets: $(FUZZ_BIN)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(wildcard tests/fuzz/*.h) $(LIB)
	@mkdir -p $(dir $@)
	@echo "  FUZZ  $@"
	@$(CC) $(CFLAGS) -fsanitize=fuzzer -DMR_FUZZ_ROOT='"$(CURDIR)"' -o $@ $< $(LIB) $(LDLIBS)

# Seeds are copied into build/fuzz/corpus at run time (never into tests/).
fuzz-smoke: fuzz
	@LP_NUM_THREADS=0 FUZZ_SECONDS=$(FUZZ_SECONDS) ./tests/fuzz/smoke.sh build/fuzz/fuzz

# Long runs (scripts/soak.sh): SOAK_FRAMES, SOAK_RELOADS, SOAK_SCENES and
# SOAK_PHASES pass through from the environment or the command line.
soak: marrow
	@SOAK_FRAMES=$(or $(SOAK_FRAMES),100000) SOAK_RELOADS=$(or $(SOAK_RELOADS),10000) \
	    SOAK_SCENES=$(or $(SOAK_SCENES),500) MARROW=$(EXE) ./scripts/soak.sh

bench: marrow
	./marrow bench


MANNEQUIN_CLIPS := models/idle.md5anim models/walk.md5anim models/wave.md5anim models/run.md5anim \
                   models/walk_inplace.md5anim models/run_inplace.md5anim
models: marrow $(MAKE_MANNEQUIN)
	$(MAKE_MANNEQUIN) models
	./marrow convert models/mannequin.md5mesh $(MANNEQUIN_CLIPS) models/mannequin.dae
	./marrow convert models/mannequin.md5mesh $(MANNEQUIN_CLIPS) models/mannequin.glb

# ---- the Lua C module, installing, the .deb ---------------------------------
# marrow.so: libmarrow's position-independent objects (never with the
# sanitizers: a plain lua5.4 loads it; a sanitizer build compiles the library
# again with -fPIC into build/pic), linked without liblua (the interpreter
# provides the Lua API) and exporting only luaopen_marrow
# (src/module/marrow_so.c, whose host is src/lua/module.c).
VERSION    := $(shell sed -n 's/^\#define MR_VERSION "\(.*\)"/\1/p' src/core/version.h)
PIC_BUILD  := build/pic
# at -O2 whatever OPT the sanitizer build has (gcc -O1 warns of a maybe-uninitialised in sandbox_io.c)
PIC_CFLAGS := $(filter-out $(SANFLAGS) $(OPT),$(CFLAGS)) -O2 -fPIC
PIC_OBJ    := $(LIB_SRC:%.c=$(PIC_BUILD)/%.o)
MODULE     := $(PIC_BUILD)/marrow.so
MODULE_LIBS := $(shell pkg-config --libs $(filter-out lua5.4,$(PKGS)) 2>/dev/null) -lmeshoptimizer -lm -lpthread

module: $(MODULE)

$(PIC_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC    $@"
	@$(CC) $(PIC_CFLAGS) -MMD -MP -c $< -o $@
$(PIC_BUILD)/src/formats/cache_write.o: PIC_CFLAGS += -DMR_LOADER_HASH=$(LOADER_HASH)u
$(PIC_BUILD)/src/formats/cache_write.o: $(LOADER_SRC)
$(PIC_BUILD)/libmarrow.a: $(PIC_OBJ)
	$(archive)
# -z nodelete: lua_close dlclose()s the module, but its threads (the clip
# packer, anim/clip_worker.c; the watchdog) outlive the state: the code they
# run must stay mapped until the process exits.
ifeq ($(SANFLAGS),)
MODULE_OBJ := $(BUILD)/src/module/marrow_so.o $(LIB)
else
MODULE_OBJ := $(PIC_BUILD)/src/module/marrow_so.o $(PIC_BUILD)/libmarrow.a
endif
$(MODULE): $(MODULE_OBJ)
	@echo "  LINK  $@"
	@mkdir -p $(PIC_BUILD)
	@printf '{ global: luaopen_marrow; local: *; };\n' > $(PIC_BUILD)/marrow.map
	@$(CC) -shared -Wl,-z,nodelete -Wl,--version-script=$(PIC_BUILD)/marrow.map -Wl,--as-needed -o $@ $^ $(MODULE_LIBS)

# marrow(1) is made from the program's own --help texts (tools/make-man.sh).
MAN := $(BUILD)/marrow.1
man: $(MAN)
$(MAN): $(EXE) tools/make-man.sh
	@echo "  MAN   $@"
	@sh tools/make-man.sh $(EXE) > $@.tmp && mv $@.tmp $@

# Layout: the program in bin/; shaders, helper Lua modules and sample models
# in share/marrow (found from the program's location: src/core/datadir.h);
# the Lua reference and the examples in share/doc/marrow; marrow.so where
# lua5.4 looks (PREFIX/lib/lua/5.4 is on its default package.cpath for
# /usr/local and /usr).
PREFIX   ?= /usr/local
DESTDIR  ?=
BINDIR   := $(DESTDIR)$(PREFIX)/bin
SHAREDIR := $(DESTDIR)$(PREFIX)/share/marrow
DOCDIR   := $(DESTDIR)$(PREFIX)/share/doc/marrow
MANDIR   := $(DESTDIR)$(PREFIX)/share/man/man1
COMPDIR  := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
LUADIR   ?= $(DESTDIR)$(PREFIX)/lib/lua/5.4
INSTALL  ?= install

install: $(EXE) $(MODULE) $(MAN)
	$(INSTALL) -d $(BINDIR) $(SHAREDIR)/shaders $(SHAREDIR)/scripts $(SHAREDIR)/models \
	    $(DOCDIR)/examples $(MANDIR) $(COMPDIR) $(LUADIR)
	$(INSTALL) -m 755 $(EXE) $(BINDIR)/marrow
	$(INSTALL) -m 644 $(wildcard shaders/*.vert shaders/*.frag shaders/*.glsl) $(SHAREDIR)/shaders
	$(INSTALL) -m 644 $(wildcard scripts/*.lua) $(SHAREDIR)/scripts
	$(INSTALL) -m 644 $(filter-out %.tmp%,$(wildcard models/*)) $(SHAREDIR)/models
	$(INSTALL) -m 644 docs/API.md $(DOCDIR)
	$(INSTALL) -m 644 $(wildcard examples/*.lua examples/*.png) $(DOCDIR)/examples
	$(INSTALL) -m 644 $(MAN) $(MANDIR)/marrow.1
	$(INSTALL) -m 644 scripts/completion.bash $(COMPDIR)/marrow
	$(INSTALL) -m 644 $(MODULE) $(LUADIR)/marrow.so

# The module alone, into LUADIR (what LuaRocks' "make" build type runs,
# with LUADIR = the rock's lib folder: scripts/marrow-VERSION-1.rockspec).
install-module: $(MODULE)
	$(INSTALL) -d $(LUADIR)
	$(INSTALL) -m 644 $(MODULE) $(LUADIR)/marrow.so

# Removes what install put there: marrow's own folders whole, its single
# files elsewhere; shared folders (bin, man1, ...) stay.
uninstall:
	rm -f $(BINDIR)/marrow $(MANDIR)/marrow.1 $(MANDIR)/marrow.1.gz $(COMPDIR)/marrow $(LUADIR)/marrow.so
	rm -rf $(SHAREDIR) $(DOCDIR)

# The .deb: `make install` into a staging root with PREFIX=/usr, Depends
# computed by dpkg-shlibdeps (plus what is loaded at run time: Mesa's EGL
# and llvmpipe for headless rendering, the HUD font), built by dpkg-deb.
# Packaging tools are installed here only (install-deps.sh --deb).
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
DEB_ROOT := build/deb/root
DEB      := marrow_$(VERSION)_$(DEB_ARCH).deb
deb: $(EXE) $(MODULE)
	@./scripts/install-deps.sh --deb
	rm -rf build/deb && mkdir -p $(DEB_ROOT)/DEBIAN build/deb/debian
	$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR=$(CURDIR)/$(DEB_ROOT)
	gzip -9n $(DEB_ROOT)/usr/share/man/man1/marrow.1
	printf 'marrow\n\nCopyright the marrow authors. Third-party models are not shipped.\n' \
	    > $(DEB_ROOT)/usr/share/doc/marrow/copyright
	printf 'Source: marrow\n\nPackage: marrow\nArchitecture: any\n' > build/deb/debian/control
	cd build/deb && dpkg-shlibdeps -O root/usr/bin/marrow root/usr/lib/lua/5.4/marrow.so 2>/dev/null \
	    | sed -n 's/^shlibs:Depends=//p' > depends
	{ echo "Package: marrow"; echo "Version: $(VERSION)"; echo "Architecture: $(DEB_ARCH)"; \
	  echo "Maintainer: marrow developers <marrow@localhost>"; \
	  echo "Depends: $$(cat build/deb/depends), libegl1, libegl-mesa0, libgl1-mesa-dri, fonts-dejavu-core"; \
	  echo "Recommends: lua5.4"; echo "Section: graphics"; echo "Priority: optional"; \
	  echo "Installed-Size: $$(du -sk $(DEB_ROOT)/usr | cut -f1)"; \
	  echo "Description: Lua-scriptable skeletal animation sandbox"; \
	  echo " Loads MD5, COLLADA, glTF and BVH animations, blends and retargets them from"; \
	  echo " Lua scripts and renders them in a window or headless to PNG. Includes the"; \
	  echo " Lua 5.4 C module (require \"marrow\")."; } > $(DEB_ROOT)/DEBIAN/control
	dpkg-deb --root-owner-group -Zxz --build $(DEB_ROOT) $(DEB)

clean:
	rm -rf build marrow out marrow_*.deb

help:
	@sed -n '2,13p' Makefile

-include $(OBJ:.o=.d) $(PIC_OBJ:.o=.d)
