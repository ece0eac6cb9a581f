-- high: highest vertex id first, at every level.
--
-- The mirror of low: children in descending order of their id, the newer
-- vertex first when ids are equal.  Useful with low as a pair: two job
-- streams (say, interactive and batch) placed from opposite ends of the
-- machine meet in the middle as late as possible.
return {
  name = "high",
  description = "highest vertex id first at every level",
  order = { key = "id", descending = true },
}
