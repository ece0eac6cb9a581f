/* l_names.c: names that are not known, told as such and with the closest
 * known one offered.
 *
 *   core.set_suggest(fn | nil)   fn(name, names) -> " (did you mean 'X'?)"
 *                                or "": what messages about an unknown name
 *                                append; loading grove.suggest (which
 *                                `require "grove"`, grove query, grove sim
 *                                and the Flux module's Lua do) sets it to
 *                                grove.suggest.hint, the one edit distance
 *                                of Grove (nil: no offer)
 *
 * Every class's methods table (grovel_class_open) has a metatable whose
 * __index is grovel_no_method: reading a string key that is no method of
 * the class (m:mach(), m.mach) raises "grove.matcher has no method 'mach'
 * (did you mean 'match'?)", blaming the line that read it, where Lua
 * would have said "attempt to call a nil value (method 'mach')" with no
 * word of what the object has.  A method found costs nothing more: the
 * metatable is reached only on a miss.  Other keys (h[i] of a hostlist,
 * answered by the class's own __index first) read nil.
 *
 * The offer itself is grove.suggest's: this file holds no distance of its
 * own, only the binding of set_suggest; the hook that asks for the offer
 * (grovel_push_hint) and the methods' fallback are grovel.c's, below every
 * binding file, as the class machinery that installs the fallback is.  In a sandbox (policy views) no function is set, and the
 * message lists no offer.
 */
#include "grovel.h"

/* core.set_suggest(fn | nil) */
static int l_set_suggest(lua_State *L)
{
    return grovel_set_suggest(L);
}

#include "api_names.h"
