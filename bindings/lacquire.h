/* lacquire.h: what the acquisition and store bindings (l_acquire.c,
 * l_store.c) share: the acquisition userdata and JSON <-> Lua conversion;
 * and the nodes' topologies an acquisition state builds with (l_topo.c).
 * Nothing here is used outside bindings/, and nothing of another userdata.
 */
#ifndef GROVEL_LACQUIRE_H
#define GROVEL_LACQUIRE_H

#include <jansson.h>
#include <stddef.h>

#include "acquire.h"
#include "grovel.h"

#define GROVEL_ACQUIRE "grove.acquire"

/* The acquisition state of the userdata at idx; raises on misuse or a
 * closed state. */
grove_acquire_t *grovel_check_acquire(lua_State *L, int idx);

/* Push a new acquisition handle holding no state yet (grovel.h): store the
 * state in its p and it is destroyed with the handle.  Create the handle
 * first, then the state, so a Lua error cannot leak it.  graph_idx is its
 * graph userdata, matcher_idx its matcher userdata or 0. */
grovel_handle_t *grovel_new_acquire(lua_State *L, int graph_idx, int matcher_idx);

/* The topology map of the grove.topologies userdata at idx; raises on
 * misuse or a closed map. */
grove_rtopo_t *grovel_check_topologies(lua_State *L, int idx);

/* The Lua value at idx as a new JSON value (caller decrefs): tables with
 * keys 1..n are arrays, other tables objects with string keys (an empty
 * table is an object), grove.core.null is null.  NULL with the reason in
 * why (never raises) when the value cannot be written as JSON. */
json_t *grovel_to_json(lua_State *L, int idx, char *why, size_t len);

#endif
