-- order_last: degraded nodes last, as a declarative order over the whole
-- machine (sorted in C: no Lua runs in a match), the C side of
-- plain_last.lua in bench/bench_undeclared.lua.
return {
  name = "order_last",
  description = "nodes not degraded first, in graph order",
  order = {key = "property:degraded", when = "node"},
}
