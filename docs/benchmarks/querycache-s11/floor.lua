-- The round-trip floor of oltp_read_only: the same 16 statements per transaction
-- (BEGIN, 14 prepared SELECTs, COMMIT) with nothing to execute: SELECT 1.
function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
  one = con:prepare("SELECT 1")
  b = con:prepare("BEGIN")
  c = con:prepare("COMMIT")
end
function thread_done()
  one:close()
  con:disconnect()
end
function event()
  b:execute()
  for i = 1, 14 do
    one:execute()
  end
  c:execute()
end
