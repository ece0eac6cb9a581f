/* grove.h: the whole public C API of libgrove in one include, and the rules
 * that hold across its modules.
 *
 * Threading.  libgrove keeps no global mutable state: every object (graph,
 * planner, matcher, policy, jobspec, R, store, acquisition) carries all of
 * its state, so objects used by different threads never interfere.  The
 * model is one matcher (with its graph and the policy it runs) per thread.
 * A graph may be read by several threads at once only while no thread
 * changes it: matching, allocating, cancelling, tagging and loading state
 * all change it.  Read-only objects (a parsed jobspec, an R, a compiled
 * policy) may be shared between threads as long as nobody destroys them.
 * No function takes a lock, and none is async-signal-safe.
 *
 * Limits shared by every reader of nested text (JSON, YAML, JGF, jobspecs,
 * state images): at most GROVE_NEST_MAX (limit.h) levels of nesting; deeper input is
 * refused with EINVAL and a message naming the place.
 *
 * This header holds no declarations of its own: it includes the others.
 */
#ifndef GROVE_GROVE_H
#define GROVE_GROVE_H

#include "error.h"
#include "limit.h"
#include "idset.h"
#include "hostlist.h"
#include "intern.h"
#include "graph.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "planner.h"
#include "mplanner.h"
#include "jobspec.h"
#include "policy.h"
#include "match.h"
#include "register.h"
#include "rv1.h"
#include "jgf.h"
#include "grug.h"
#include "topo.h"
#include "acquire.h"
#include "store.h"

#endif
