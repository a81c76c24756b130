-- The aggregation behind `planner workloads from-logs`, in portable SQL (DuckDB, Spark SQL, Trino,
-- BigQuery): `from-logs` runs this file in DuckDB over the logs it reads; run it in a warehouse over
-- your own table and give the result, saved as CSV, to `planner workloads from-aggregates`.
--
-- Input: a table or view named `calls`, one row per model call (README, "Plans from real traffic"):
--   workload          text     the workload the call belongs to
--   task_id           any      the task it is part of (text, or a hash of it: from-logs keeps
--                              DuckDB's md5_number); a call with no task: an id of its own
--   start_s           float    when it started, seconds since 1970-01-01 UTC
--   start_minute      integer  the calendar minute it started in (UTC), minutes since 1970-01-01
--   input_tokens      integer  prompt tokens, cached ones included
--   output_tokens     integer  answer tokens, reasoning not included
--   reasoning_tokens  integer  hidden reasoning tokens (0 when none)
--   cached_tokens     integer  prompt tokens read from a cache (0 when none)
--
-- Output: one result of rows of five kinds (column `kind`); sums are over the rows' tasks:
--   span     the whole log: weight = calls; first_s, last_s = the first and last call's start
--   summary  a workload: weight = tasks, calls, the token sums over its calls; first_s, last_s
--   peak     a workload: weight = the most tasks whose first call started in one calendar minute;
--            calls = that minute (the earliest of equals), minutes since 1970-01-01 UTC
--   shape    a workload with at most 2000 distinct tasks (calls and token sums): one row each, with
--            weight = the tasks alike, calls and token sums over them
--   bin      a workload with more: tasks binned on a log scale by calls and by each token count per
--            call (bins 0.1 wide in ln(1 + tokens per call), in ln(calls)); weight = tasks,
--            calls and token sums over them; k_* = the bin's index on each scale
-- The logarithm of a ratio is written as a difference, LN(calls + tokens) - LN(calls), so that no
-- integer division (Trino's) truncates it.
WITH tasks AS (
  SELECT workload, task_id,
         COUNT(*) AS calls,
         MIN(start_minute) AS start_minute,
         SUM(input_tokens) AS input_tokens,
         SUM(output_tokens) AS output_tokens,
         SUM(reasoning_tokens) AS reasoning_tokens,
         SUM(cached_tokens) AS cached_tokens
  FROM calls
  GROUP BY workload, task_id
),
shapes AS (
  SELECT workload, COUNT(*) AS weight, SUM(calls) AS calls,
         SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
         SUM(reasoning_tokens) AS reasoning_tokens, SUM(cached_tokens) AS cached_tokens
  FROM tasks
  GROUP BY workload, calls, input_tokens, output_tokens, reasoning_tokens, cached_tokens
),
shape_counts AS (
  SELECT workload, COUNT(*) AS n FROM shapes GROUP BY workload
),
binned AS (
  SELECT t.workload, t.calls, t.input_tokens, t.output_tokens, t.reasoning_tokens, t.cached_tokens,
         FLOOR(LN(t.calls) / 0.1) AS k_calls,
         FLOOR((LN(t.calls + t.input_tokens) - LN(t.calls)) / 0.1) AS k_input,
         FLOOR((LN(t.calls + t.output_tokens) - LN(t.calls)) / 0.1) AS k_output,
         FLOOR((LN(t.calls + t.reasoning_tokens) - LN(t.calls)) / 0.1) AS k_reasoning,
         FLOOR((LN(t.calls + t.cached_tokens) - LN(t.calls)) / 0.1) AS k_cached
  FROM tasks t JOIN shape_counts c ON t.workload = c.workload
  WHERE c.n > 2000
),
per_minute AS (
  SELECT workload, start_minute, COUNT(*) AS n FROM tasks GROUP BY workload, start_minute
),
peaks AS (
  SELECT workload, MAX(n) AS n FROM per_minute GROUP BY workload
)
SELECT 'span' AS kind, NULL AS workload, COUNT(*) AS weight, NULL AS calls,
       NULL AS input_tokens, NULL AS output_tokens, NULL AS reasoning_tokens, NULL AS cached_tokens,
       NULL AS k_calls, NULL AS k_input, NULL AS k_output, NULL AS k_reasoning, NULL AS k_cached,
       MIN(start_s) AS first_s, MAX(start_s) AS last_s
FROM calls
UNION ALL
SELECT 'summary', t.workload, COUNT(*), SUM(t.calls),
       SUM(t.input_tokens), SUM(t.output_tokens), SUM(t.reasoning_tokens), SUM(t.cached_tokens),
       NULL, NULL, NULL, NULL, NULL, MIN(s.first_s), MAX(s.last_s)
FROM tasks t JOIN (SELECT workload, MIN(start_s) AS first_s, MAX(start_s) AS last_s FROM calls GROUP BY workload) s
  ON t.workload = s.workload
GROUP BY t.workload
UNION ALL
SELECT 'peak', p.workload, p.n, MIN(m.start_minute),
       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
FROM peaks p JOIN per_minute m ON m.workload = p.workload AND m.n = p.n
GROUP BY p.workload, p.n
UNION ALL
SELECT 'shape', s.workload, s.weight, s.calls,
       s.input_tokens, s.output_tokens, s.reasoning_tokens, s.cached_tokens,
       NULL, NULL, NULL, NULL, NULL, NULL, NULL
FROM shapes s JOIN shape_counts c ON s.workload = c.workload
WHERE c.n <= 2000
UNION ALL
SELECT 'bin', workload, COUNT(*), SUM(calls),
       SUM(input_tokens), SUM(output_tokens), SUM(reasoning_tokens), SUM(cached_tokens),
       k_calls, k_input, k_output, k_reasoning, k_cached, NULL, NULL
FROM binned
GROUP BY workload, k_calls, k_input, k_output, k_reasoning, k_cached
