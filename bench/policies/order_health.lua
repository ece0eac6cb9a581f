-- order_health: nodes by their health property, the highest first, across
-- the whole machine (an order limited with when, by a property: the
-- sorted list is kept between matches until a property changes).
return {
  name = "order_health",
  description = "nodes by the health property, highest first, across the machine",
  order = {key = "property:health", descending = true, when = "node"},
}
