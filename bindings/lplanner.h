/* lplanner.h: planner handles for other binding files (the graph's pools
 * and pruning aggregates expose their planners through these).
 *
 * A handle either owns its planner (freed by __gc/__close) or borrows one
 * that an owner object holds: then the owner (the Lua value at owner_idx)
 * is kept alive through the handle's user value, close only detaches the
 * handle, and the owner must keep the planner alive as long as it lives
 * (as a graph does for its vertices' planners).
 */
#ifndef LPLANNER_H
#define LPLANNER_H

#include <lua.h>

#include "mplanner.h"
#include "planner.h"

#define GROVEL_PLANNER_MT "grove.planner"
#define GROVEL_MPLANNER_MT "grove.mplanner"

/* Push a handle for p.  owner_idx == 0: the handle owns p (it takes p,
 * even if pushing raises).  Otherwise the handle borrows p from the value at
 * owner_idx. */
void grovel_push_planner(lua_State *L, grove_planner_t *p, int owner_idx);
void grovel_push_mplanner(lua_State *L, grove_mplanner_t *mp, int owner_idx);

/* The planner of the handle at index i; raises if it is not one or closed. */
grove_planner_t *grovel_check_planner(lua_State *L, int i);
grove_mplanner_t *grovel_check_mplanner(lua_State *L, int i);

#endif
