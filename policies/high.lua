-- high: highest vertex id first, at every level.
--
-- The mirror of low: children in descending order of their id, the newer
-- vertex first when ids are equal.  Useful with low as a pair: two job
-- streams (say, interactive and batch) placed from opposite ends of the
-- machine meet in the middle as late as possible.  An order by id at every
-- level (no `when`) declares itself descending (id_order): a fixed number
-- of slots is then ranked by the sums of its ids across the machine, as
-- the C high and the reference engine rank them.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.
return {
  name = "high",
  description = "highest vertex id first at every level",
  order = { key = "id", descending = true },
}
