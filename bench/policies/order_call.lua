-- order_call: an order function whose comparator reads nothing (every
-- pair equal, the children left in graph order): what a comparison costs
-- before any method.  bench_match.lua compares it with the C high, and
-- with order_sort.lua, whose comparator makes two method calls.
return {
  name = "order_call",
  description = "children sorted by a comparator that reads nothing",
  order = function(_, children)
    table.sort(children, function(_, _)
      return false
    end)
  end,
}
