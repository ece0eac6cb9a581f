-- order_key: high written as an order key function (sorted in C, the
-- function called once per vertex and match).  bench_match.lua compares
-- it with the C high, and with order_sort.lua, the same order as a sort
-- function.
return {
  name = "order_key",
  description = "highest id first at every level, keys from Lua, sorted in C",
  order = {key = function(v) return v:id() or -1 end, descending = true},
  -- a key function says nothing of ids to the matcher: high's slots
  -- ranked by id are asked for
  id_order = "descending",
}
