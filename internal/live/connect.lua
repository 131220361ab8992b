-- connect: one event is a new connection, SELECT 1, and a disconnect, the
-- pattern of a client that does not pool its connections. Written for innosim
-- live against sysbench 1.0's Lua SQL API (sysbench.sql.driver, connect,
-- query, disconnect); each event counts as one transaction.

function thread_init()
   drv = sysbench.sql.driver()
end

function event()
   local con = drv:connect()
   con:query("SELECT 1")
   con:disconnect()
end
