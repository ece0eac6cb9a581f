# Grove: build, test, install.
#
#   make            build/libgrove.a, build/lib/grove/core.so, build/grove
#   make check      every test (C unit tests, busted specs, luacheck, conformance)
#   make asan       the same tests built with AddressSanitizer + UBSan
#   make valgrind   the same tests under valgrind
#   make demo       Grove's main job on a built-in example cluster
#   make bench      the benchmarks under bench/
#   make fuzz       bounded fuzzing of the parsers (clang + libFuzzer)
#   make install    PREFIX=/usr/local DESTDIR= (install-lib, install-lua,
#                   install-bin, install-flux: one part each)
#   make man        the man pages (docs/man/) into build/man/, linted
#   make deb        Debian packages from this tree (debian/, dpkg-buildpackage),
#                   written beside the tree as dpkg-buildpackage does
#   make deps       install missing Debian packages
#
# WERROR=1 turns warnings into errors (CI sets it).  BUILD=dir picks the
# output directory, so instrumented builds live beside the normal one.
#
# Two stages.  Every goal first runs scripts/deps (installing the Debian
# packages as root, or printing the apt-get command and stopping
# otherwise), and only then starts a second make that reads this file
# again (GROVE_STAGE=build).  So no pkg-config flag is computed before the
# packages exist and nothing compiles before deps has finished, whatever -j.

# The version: the one place it is written.  grove --version, grove.version,
# the pkg-config file and the man pages take it from here; debian/changelog
# and the rockspec's name repeat it (spec/packaging_spec.lua checks both).
VERSION := 0.1.0
GOALS := all check tests asan valgrind demo bench fuzz install conformance lint docs \
         install-lib install-lua install-bin install-flux lib module flux man
MAKEFLAGS += --no-print-directory

ifneq ($(GROVE_STAGE),build)

.PHONY: $(GOALS) deps clean deb
.DEFAULT_GOAL := all

# One recursive make for all the goals asked, after deps alone; it builds
# on every processor unless -j was given (`make demo` on a fresh machine
# should not compile one file at a time).
JOBS := $(shell nproc 2>/dev/null || echo 2)
$(firstword $(filter $(GOALS),$(or $(MAKECMDGOALS),all))): deps
	@$(MAKE) $(if $(filter -j%,$(MAKEFLAGS)),,-j$(JOBS)) GROVE_STAGE=build \
	  $(filter $(GOALS),$(or $(MAKECMDGOALS),all))
$(wordlist 2,99,$(filter $(GOALS),$(or $(MAKECMDGOALS),all))): deps
	@:

deps:
	@scripts/deps

# Not a goal of the two stages: debian/rules runs the second stage
# itself (in debian/build).  scripts/deps deb adds what the packages'
# build needs; the Flux module's package is built when pkg-config finds
# flux-core (FLUX_PREFIX, /opt/flux when it exists), left out by the
# build profile pkg.grove.noflux otherwise.
deb:
	@scripts/deps deb
	@fp=$${FLUX_PREFIX:-$$([ -d /opt/flux ] && echo /opt/flux)}; \
	if PKG_CONFIG_PATH="$${fp:+$$fp/lib/pkgconfig:}$$PKG_CONFIG_PATH" \
	   pkg-config --exists flux-core flux-schedutil; then prof=""; \
	else echo "deb: flux-core not found: no flux-sched-grove package"; prof="-Ppkg.grove.noflux"; fi; \
	FLUX_PREFIX=$$fp dpkg-buildpackage -b -us -uc $$prof && \
	echo "deb: the packages are in $$(cd .. && pwd)"

clean:
	rm -rf build build-asan build-vg build-fuzz build-clang build-rock

else

PREFIX    ?= /usr/local
LIBDIR    ?= $(PREFIX)/lib
INCDIR    ?= $(PREFIX)/include
BINDIR    ?= $(PREFIX)/bin
LUA_LDIR  ?= $(PREFIX)/share/lua/5.4
# Where the stock lua5.4 looks (package.cpath / package.path start with
# PREFIX/lib/lua/5.4 and PREFIX/share/lua/5.4 for /usr/local).
LUA_CDIR  ?= $(PREFIX)/lib/lua/5.4
DATADIR   ?= $(PREFIX)/share/grove
MANDIR    ?= $(PREFIX)/share/man
BUILD     ?= build
CC        ?= cc
PKG_CONFIG ?= pkg-config
LUA       ?= lua5.4
BUSTED    ?= /usr/bin/busted
LUACHECK  ?= luacheck

CORE_PKGS := jansson hwloc yaml-0.1 libxml-2.0 sqlite3
LUA_PKG   := lua5.4

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(CORE_PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(CORE_PKGS) 2>/dev/null)
LUA_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(LUA_PKG) 2>/dev/null)
LUA_LIBS   := $(shell $(PKG_CONFIG) --libs $(LUA_PKG) 2>/dev/null)

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wpointer-arith -Wformat=2 -Wundef -Wvla -Wcast-qual \
        -Wnull-dereference -Wimplicit-fallthrough
ifeq ($(WERROR),1)
WARN += -Werror
endif

OPT ?= -O2
SAN_FLAGS :=
ifeq ($(SAN),1)
OPT := -O1
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
             -fno-sanitize-recover=all
endif

CFLAGS  ?= $(OPT) -g
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -fPIC -fvisibility=hidden $(WARN) \
              $(SAN_FLAGS) $(CPPFLAGS) $(CFLAGS) -Icore
LDFLAGS_ALL := $(SAN_FLAGS) $(LDFLAGS)

# ONLY="error idset ..." restricts the build to those modules (core/X.c
# with the files of its group, core/X_*.c, as match.c and match_walk.c;
# bindings/l_X.c and l_X_*.c, core/test/test_X.c, bench/bench_X.c): work on one part
# while another is half-written.
ifeq ($(ONLY),)
CORE_SRC := $(sort $(wildcard core/*.c))
BIND_L   := $(sort $(wildcard bindings/l_*.c))
TEST_SRC := $(sort $(wildcard core/test/test_*.c))
BENCH_SRC := $(sort $(wildcard bench/*.c))
else
CORE_SRC := $(sort $(wildcard $(ONLY:%=core/%.c) $(ONLY:%=core/%_*.c)))
BIND_L   := $(sort $(wildcard $(ONLY:%=bindings/l_%.c) $(ONLY:%=bindings/l_%_*.c)))
TEST_SRC := $(sort $(wildcard $(ONLY:%=core/test/test_%.c)))
BENCH_SRC := $(sort $(wildcard $(ONLY:%=bench/bench_%.c)))
endif
BIND_SRC := $(BIND_L) bindings/grovel.c bindings/module.c bindings/paths.c

CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
BIND_OBJ := $(BIND_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:core/test/%.c=$(BUILD)/test/%)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)

LIB    := $(BUILD)/libgrove.a
MODULE := $(BUILD)/lib/grove/core.so
EXE    := $(BUILD)/grove

# The shared library, for C programs that link libgrove (what make install
# and the libgrove0 package give them; the module and the executable take
# the static one).  Its objects are compiled a second time, without
# -fvisibility=hidden, and core/libgrove.map exports the public API
# (grove_*, GROVE_*) and nothing else.  SOVERSION is the ABI's number, not
# the release's: raise it when a change breaks programs linked before.
SOVERSION := 0
SHLIB     := $(BUILD)/libgrove.so.$(VERSION)
SHLIB_OBJ := $(CORE_SRC:%.c=$(BUILD)/shared/%.o)
SHLIB_CFLAGS := $(filter-out -fvisibility=hidden,$(ALL_CFLAGS)) -fno-semantic-interposition

# The man pages (docs/man/NAME.SECTION, man(7) roff in the style of
# flux-core's pages): grove(1) with the executable, flux-grove(1) and
# sched-grove(5) with the Flux module.  make man writes them into
# build/man with the version in; groff, when here, lints them.
MAN_BIN  := $(BUILD)/man/grove.1
MAN_FLUX := $(BUILD)/man/flux-grove.1 $(BUILD)/man/sched-grove.5
GROFF    ?= groff
HAVE_GROFF := $(shell command -v $(GROFF) >/dev/null 2>&1 && echo 1)

.PHONY: $(GOALS)
.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
FORCE:

# The Flux scheduler module (bindings/flux/), built when pkg-config finds
# flux-core and flux-schedutil: on its own search path, or under
# FLUX_PREFIX (/opt/flux when that directory exists).  Not in sanitizer
# builds: the broker that loads it is not instrumented.
FLUX_PREFIX ?= $(wildcard /opt/flux)
FLUX_PKG := PKG_CONFIG_PATH="$(if $(FLUX_PREFIX),$(FLUX_PREFIX)/lib/pkgconfig:)$$PKG_CONFIG_PATH" $(PKG_CONFIG)
ifeq ($(SAN),)
HAVE_FLUX := $(shell $(FLUX_PKG) --exists flux-core flux-schedutil 2>/dev/null && echo 1)
endif
FLUX_MOD := $(BUILD)/flux/sched-grove.so
# `flux grove`: the client of the module's operator commands, a flux
# subcommand (flux runs flux-grove from its libexec/flux/cmd).
FLUX_CMD := $(BUILD)/flux/flux-grove
ifeq ($(HAVE_FLUX),1)
FLUX_CFLAGS := $(patsubst -I%,-isystem %,$(shell $(FLUX_PKG) --cflags flux-core flux-schedutil))
FLUX_LIBDIR := $(shell $(FLUX_PKG) --variable=libdir flux-core)
FLUX_LIBS := $(shell $(FLUX_PKG) --libs flux-core flux-schedutil) -Wl,-rpath,$(FLUX_LIBDIR)
FLUX_TARGET := $(FLUX_MOD) $(BUILD)/flux/sched-ceiling.so $(FLUX_CMD)
FLUX_MODDIR ?= $(shell $(FLUX_PKG) --variable=fluxmoddir flux-core)
FLUX_CMDDIR ?= $(shell $(FLUX_PKG) --variable=fluxcmddir flux-core)
FLUX_HELPDIR ?= $(shell $(FLUX_PKG) --variable=fluxcmdhelpdir flux-core)
FLUX_PROBEDIR ?= $(shell $(FLUX_PKG) --variable=fluxdatadir flux-core)/modprobe/modprobe.d
else
FLUX_TARGET := flux-absent
endif

all: $(LIB) $(MODULE) $(EXE) $(TEST_BIN) $(BENCH_BIN) $(FLUX_TARGET)

# Parts alone: the libraries, the Lua module (what the rockspec builds),
# the Flux module and its command (what debian/rules builds).
lib: $(LIB) $(SHLIB)
module: $(MODULE)
flux: $(if $(filter 1,$(HAVE_FLUX)),$(FLUX_MOD) $(FLUX_CMD),flux-absent)

-include $(CORE_OBJ:.o=.d) $(SHLIB_OBJ:.o=.d) $(BIND_OBJ:.o=.d) $(BUILD)/bindings/main.d $(patsubst bindings/flux/%.c,$(BUILD)/flux/%.d,$(wildcard bindings/flux/*.c))

$(BUILD)/core/%.o: core/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

# The registry of binding files: each bindings/l_NAME.c defines
# grovel_open_NAME(), called from luaopen_grove_core() in order.
$(BUILD)/gen/modules.h: $(BIND_L) Makefile FORCE
	@mkdir -p $(@D)
	@{ for f in $(BIND_L); do \
	     n=$$(basename $$f .c); echo "GROVEL_MODULE($${n#l_})"; done; } > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

# The registration of the Lua API: bindings/api.tsv lists every method
# and module function; scripts/gen-api.lua writes from it one header a
# binding file, api_NAME.h, which l_NAME.c includes (kept: make would
# otherwise delete one that no file includes, l_edit.c's, as intermediate).
API_H := $(BIND_L:bindings/l_%.c=$(BUILD)/gen/api_%.h)
.SECONDARY: $(API_H)
$(BUILD)/gen/api_%.h: bindings/api.tsv scripts/gen-api.lua
	@mkdir -p $(@D)
	$(LUA) scripts/gen-api.lua bindings/api.tsv $(@D) $*

# The install paths and version compiled in (bindings/paths.c, main.c):
# a header rewritten only when they change, so that `make install
# PREFIX=...` after `make` rebuilds what names them (the Flux module finds
# Grove's Lua library where it was installed).
$(BUILD)/gen/prefix.h: FORCE
	@mkdir -p $(@D)
	@printf '#define GROVE_LUA_DIR "%s"\n#define GROVE_VERSION "%s"\n' \
	  '$(LUA_LDIR)' '$(VERSION)' > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

$(BUILD)/bindings/%.o: bindings/%.c $(BUILD)/gen/modules.h $(API_H) | $(BUILD)/gen/prefix.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PKG_CFLAGS) $(LUA_CFLAGS) -I$(BUILD)/gen -Ibindings \
	  -MMD -MP -c $< -o $@

$(LIB): $(CORE_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/shared/core/%.o: core/%.c
	@mkdir -p $(@D)
	$(CC) $(SHLIB_CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

# libgrove.so.VERSION, its soname libgrove.so.SOVERSION and the link-time
# name libgrove.so beside it (symbolic links, as installed).
$(SHLIB): $(SHLIB_OBJ) core/libgrove.map
	$(CC) -shared -Wl,-soname,libgrove.so.$(SOVERSION) -Wl,--version-script=core/libgrove.map \
	  -o $@ $(SHLIB_OBJ) $(LDFLAGS_ALL) $(PKG_LIBS) -lm
	ln -sf $(@F) $(@D)/libgrove.so.$(SOVERSION)
	ln -sf libgrove.so.$(SOVERSION) $(@D)/libgrove.so

# The module is not linked against liblua: the host interpreter provides it.
# It links libedit for grove.core.edit (bindings/l_edit.c, the REPL).
$(MODULE): $(BIND_OBJ) $(LIB)
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $(BIND_OBJ) $(LIB) $(LDFLAGS_ALL) $(PKG_LIBS) -ledit -lm

$(EXE): $(BUILD)/bindings/main.o $(BIND_OBJ) $(LIB)
	$(CC) -o $@ $(BUILD)/bindings/main.o $(BIND_OBJ) $(LIB) $(LDFLAGS_ALL) \
	  -Wl,-E $(LUA_LIBS) $(PKG_LIBS) -ledit -lm -ldl

.PHONY: flux-absent
flux-absent:
	@echo "flux-core not found by pkg-config (set FLUX_PREFIX): sched-grove.so not built"

$(BUILD)/flux/%.o: bindings/flux/%.c $(BUILD)/gen/modules.h $(API_H)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PKG_CFLAGS) $(LUA_CFLAGS) $(FLUX_CFLAGS) -I$(BUILD)/gen -Ibindings \
	  -MMD -MP -c $< -o $@

# The do-nothing scheduler of the throughput benchmark (bench/flux/).
$(BUILD)/flux/sched-ceiling.so: bench/flux/sched_ceiling.c bindings/flux/alloc_stamps.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(FLUX_CFLAGS) $(PKG_CFLAGS) -Ibindings/flux -shared -o $@ $< \
	  $(LDFLAGS_ALL) $(FLUX_LIBS) $(shell $(FLUX_PKG) --libs flux-hostlist flux-idset) $(PKG_LIBS)

$(FLUX_CMD): bindings/flux/cmd/flux-grove.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(patsubst -I%,-isystem %,$(shell $(FLUX_PKG) --cflags flux-core \
	  flux-optparse)) $(PKG_CFLAGS) -o $@ $< $(LDFLAGS_ALL) \
	  $(shell $(FLUX_PKG) --libs flux-core flux-optparse) -Wl,-rpath,$(FLUX_LIBDIR) $(PKG_LIBS)

# The module carries grove.core and links liblua: the broker has no Lua.
FLUX_SRC := $(wildcard bindings/flux/*.c)
FLUX_OBJ := $(patsubst bindings/flux/%.c,$(BUILD)/flux/%.o,$(FLUX_SRC))
$(FLUX_MOD): $(FLUX_OBJ) $(BIND_OBJ) $(LIB)
	$(CC) -shared -o $@ $^ $(LDFLAGS_ALL) $(FLUX_LIBS) $(LUA_LIBS) $(PKG_LIBS) -ledit -lm -ldl

# test_nomem refuses libgrove's allocations on demand: the library's calls
# of each allocator, and of jansson's loads, reach the test's __wrap_ functions.
NOMEM_WRAP := malloc calloc realloc free strdup strndup posix_memalign aligned_alloc asprintf \
              json_loadb json_loads
$(BUILD)/test/test_nomem: TEST_LDFLAGS := $(NOMEM_WRAP:%=-Wl,--wrap=%)

$(BUILD)/test/%: core/test/%.c $(wildcard core/test/*.h) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PKG_CFLAGS) -Icore/test $< -o $@ $(LIB) \
	  $(LDFLAGS_ALL) $(TEST_LDFLAGS) $(PKG_LIBS) -lm

$(BUILD)/bench/%: bench/%.c $(wildcard core/test/*.h) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PKG_CFLAGS) -Icore/test $< -o $@ $(LIB) $(LDFLAGS_ALL) $(PKG_LIBS) -lm

# ---- tests -------------------------------------------------------------
# scripts/run-tests runs every suite, prints TAP, and ends with
# "N passed, N failed".  MODE selects how Lua specs are hosted.

check: all
	@scripts/run-tests --build $(BUILD) --mode plain

tests: all
	@scripts/run-tests --build $(BUILD) --mode plain

asan:
	$(MAKE) BUILD=build-asan SAN=1 all
	@scripts/run-tests --build build-asan --mode asan

valgrind:
	$(MAKE) BUILD=build-vg all
	@scripts/run-tests --build build-vg --mode valgrind

lint:
	$(LUACHECK) -q lua policies spec examples bench scripts/*.lua scripts/layers

conformance: all
	@scripts/run-tests --build $(BUILD) --mode plain --only conformance

# The demo: matching on an example cluster, then (when present) a short
# simulation of a generated trace under two queue policies.
demo: all
	$(EXE) examples/demo.lua
	@if [ -f examples/sim_demo.lua ]; then $(EXE) examples/sim_demo.lua; fi

bench: all
	@for b in $(BENCH_BIN); do echo "== $$b"; $$b || exit 1; done

fuzz:
	@scripts/fuzz

# The API reference: docs/api/ from docs/api-src/ (LDoc), and every
# example in it run against the module just built (scripts/examples.lua).
docs: all
	@scripts/docs $(BUILD)

# ---- install ------------------------------------------------------------
# make install is its four parts, each also a goal of its own (debian/rules
# installs each into its package; the rockspec runs install-lua alone):
#   install-lib   libgrove: the static and shared libraries, the headers,
#                 the pkg-config file
#   install-lua   the Lua module: grove.core (LUA_CDIR), the pure-Lua
#                 library (LUA_LDIR), the policies and the API reference's
#                 sources (DATADIR, where grove.files finds them)
#   install-bin   the grove executable, the examples, grove(1)
#   install-flux  with flux-core: sched-grove.so, its modprobe file,
#                 flux-grove and its `flux help` entry into flux-core's
#                 directories; flux-grove(1) and sched-grove(5)
install: install-lib install-lua install-bin install-flux

install-lib: $(LIB) $(SHLIB)
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)/grove
	install -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(SHLIB) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(SHLIB)) $(DESTDIR)$(LIBDIR)/libgrove.so.$(SOVERSION)
	ln -sf libgrove.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libgrove.so
	install -m 644 $(filter-out %_private.h %_parts.h core/util.h,$(wildcard core/*.h)) \
	  $(DESTDIR)$(INCDIR)/grove/
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCDIR@|$(INCDIR)|; s|@VERSION@|$(VERSION)|; s|@LIBS@|$(PKG_LIBS) -lm|' \
	  scripts/grove.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/grove.pc

install-lua: $(MODULE)
	install -d $(DESTDIR)$(LUA_CDIR)/grove $(DESTDIR)$(LUA_LDIR)/grove \
	  $(DESTDIR)$(DATADIR)/policies $(DESTDIR)$(DATADIR)/api-src
	install -m 755 $(MODULE) $(DESTDIR)$(LUA_CDIR)/grove/core.so
	cp -R lua/grove/. $(DESTDIR)$(LUA_LDIR)/grove/
	cp -R policies/. $(DESTDIR)$(DATADIR)/policies/
	install -m 644 docs/api-src/*.luadoc $(DESTDIR)$(DATADIR)/api-src/

install-bin: $(EXE) $(MAN_BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/examples
	install -m 755 $(EXE) $(DESTDIR)$(BINDIR)/grove
	install -m 644 examples/*.lua $(DESTDIR)$(DATADIR)/examples/
	$(call install_man,$(MAN_BIN))

ifeq ($(HAVE_FLUX),1)
install-flux: $(FLUX_MOD) $(FLUX_CMD) $(MAN_FLUX)
	install -d $(DESTDIR)$(FLUX_MODDIR) $(DESTDIR)$(FLUX_PROBEDIR) $(DESTDIR)$(FLUX_CMDDIR) \
	  $(DESTDIR)$(FLUX_HELPDIR)
	install -m 755 $(FLUX_MOD) $(DESTDIR)$(FLUX_MODDIR)/sched-grove.so
	install -m 755 $(FLUX_CMD) $(DESTDIR)$(FLUX_CMDDIR)/flux-grove
	install -m 644 bindings/flux/cmd/grove-help.json $(DESTDIR)$(FLUX_HELPDIR)/grove.json
	install -m 644 bindings/flux/sched-grove.toml $(DESTDIR)$(FLUX_PROBEDIR)/sched-grove.toml
	$(call install_man,$(MAN_FLUX))
else
install-flux: flux-absent
endif

# $(call install_man,PAGES): each page into MANDIR/manSECTION.
man_dir = $(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(1)))
install_man = $(foreach p,$(1),install -d $(call man_dir,$(p)) && \
  install -m 644 $(p) $(call man_dir,$(p))/ &&) true

# ---- man pages ---------------------------------------------------------------
# The version comes in from VERSION (@VERSION@ in the page's .TH); with
# groff here, any warning of groff -ww fails the page.
man: $(MAN_BIN) $(if $(filter 1,$(HAVE_FLUX)),$(MAN_FLUX))

$(BUILD)/man/%: docs/man/% Makefile
	@mkdir -p $(@D)
	sed 's/@VERSION@/$(VERSION)/' $< > $@.tmp
	$(if $(HAVE_GROFF),@out=$$($(GROFF) -man -ww -z $@.tmp 2>&1); \
	  if [ -n "$$out" ]; then echo "$<: $$out" >&2; exit 1; fi)
	@mv $@.tmp $@

endif
