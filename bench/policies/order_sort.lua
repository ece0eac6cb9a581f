-- order_sort: high written as an order function (a Lua sort of each child
-- list, highest id first).  bench_match.lua compares it with the C high.
return {
  name = "order_sort",
  description = "highest id first at every level, sorted in Lua",
  -- an order function says nothing of ids to the matcher: high's slots
  -- ranked by id are asked for
  id_order = "descending",
  order = function(_, children)
    table.sort(children, function(a, b)
      return a:id() > b:id()
    end)
  end,
}
