-- order_when: the nodes of the whole machine highest id first, as one
-- list (an order limited with when); inside a node, graph order.
-- bench/match_instructions.sh counts its matches against the C hinode's.
return {
  name = "order_when",
  description = "nodes highest id first across the machine; graph order inside",
  order = {key = "id", descending = true, when = "node"},
}
