-- sysbench 1.0.20, default --db-ps-mode (server-side prepared statements),
-- a workload without tables. Each thread prepares `SELECT ?`-style statements once and
-- executes them many times with new parameter values. libmariadb sends the parameter
-- types only on the first execution (new_params_bound_flag = 0 afterwards), the case the
-- published Rust server crates get wrong.
--
-- sysbench 1.0.20 cannot read the values of a prepared statement's rows from Lua (only
-- their count), so each statement carries its expected answer in a WHERE clause: a row
-- comes back exactly when the server decoded every parameter as sent and computed the
-- expected values. Every other execution passes a wrong expectation and must return no
-- row. Text queries (whose values Lua can read) are checked value by value.

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()

   stmt_mixed = con:prepare(
      "SELECT ? + 1 AS next, CONCAT('v', ?) AS text FROM DUAL " ..
      "WHERE ? + 1 = ? AND CONCAT('v', ?) = ?")
   p = {
      n = stmt_mixed:bind_create(sysbench.sql.type.BIGINT),
      s = stmt_mixed:bind_create(sysbench.sql.type.VARCHAR, 64),
      n2 = stmt_mixed:bind_create(sysbench.sql.type.BIGINT),
      expected_next = stmt_mixed:bind_create(sysbench.sql.type.BIGINT),
      s2 = stmt_mixed:bind_create(sysbench.sql.type.VARCHAR, 64),
      expected_text = stmt_mixed:bind_create(sysbench.sql.type.VARCHAR, 64),
   }
   stmt_mixed:bind_param(p.n, p.s, p.n2, p.expected_next, p.s2, p.expected_text)

   stmt_int = con:prepare("SELECT ? AS k FROM DUAL WHERE ? * 2 = ?")
   q = {
      k = stmt_int:bind_create(sysbench.sql.type.INT),
      k2 = stmt_int:bind_create(sysbench.sql.type.INT),
      doubled = stmt_int:bind_create(sysbench.sql.type.BIGINT),
   }
   stmt_int:bind_param(q.k, q.k2, q.doubled)
   executions = 0
end

local function expect_rows(rs, expected, what)
   local got = rs and tonumber(rs.nrows) or -1
   if got ~= expected then
      error(string.format("%s: expected %d row(s), got %d", what, expected, got))
   end
end

function event()
   executions = executions + 1
   -- sysbench.rand.uniform works in unsigned 32-bit arithmetic: negative bounds make it
   -- return values past 2^32 now and then, which its text emulation (--db-ps-mode=disable)
   -- then prints truncated to 32 bits in one place and whole in another. Shift instead.
   local n = sysbench.rand.uniform(0, 2000000) - 1000000
   local s = sysbench.rand.string("##########@@@@@")
   local matching = (executions % 2) == 0

   p.n:set(n)
   p.s:set(s)
   p.n2:set(n)
   p.expected_next:set(matching and (n + 1) or (n + 2))
   p.s2:set(s)
   p.expected_text:set("v" .. s)
   expect_rows(stmt_mixed:execute(), matching and 1 or 0,
               string.format("SELECT ?+1 with n=%d s=%s matching=%s", n, s, tostring(matching)))

   local k = sysbench.rand.uniform(0, 200000) - 100000
   q.k:set(k)
   q.k2:set(k)
   q.doubled:set(matching and (2 * k) or (2 * k + 1))
   expect_rows(stmt_int:execute(), matching and 1 or 0,
               string.format("SELECT ? * 2 with k=%d matching=%s", k, tostring(matching)))

   -- The text protocol, whose values Lua can read.
   if executions % 10 == 0 then
      local next, text = con:query_row(string.format("SELECT %d + 1, CONCAT('v', '%s')", n, s))
      if tonumber(next) ~= n + 1 or text ~= "v" .. s then
         error(string.format("text query: got %s, %s for n=%d s=%s", tostring(next), tostring(text), n, s))
      end
   end
end

function thread_done()
   stmt_mixed:close()
   stmt_int:close()
   con:disconnect()
end
