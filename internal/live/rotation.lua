-- rotation: one client thread opens --rotation connections and sends each
-- statement of the workload's events to the next of them in turn, so each
-- connection's server side runs once every --rotation statements, after
-- the others ran. Written for innosim live against sysbench 1.0: it loads
-- the workload's own script (named by INNOSIM_WORKLOAD), keeps oltp_common's
-- per-connection globals (con, stmt, param) once per connection, and
-- replaces stmt and param by proxies: a statement's parameters are set on
-- the connection that it will go to, and reading stmt moves to that
-- connection (oltp_common sets a statement's parameters through param, then
-- executes it through stmt, once). After --rotation-warm events it reads
-- the server's run time (the first field of /proc/PID/task/*/schedstat,
-- ns, for --server-pid), and after --rotation-events more it reads it
-- again and prints one line, with sysbench's own CPU time over the same
-- events (os.clock, the process's user and system time):
--   innosim-rotation events=<n> server_ns=<ns> client_ns=<ns>
-- Our connect script (INNOSIM_SCRIPT, its path) opens a connection of its
-- own for each event: it runs with --rotation=1, and the proxies are never
-- read.

local script = os.getenv("INNOSIM_SCRIPT")
if script and script ~= "" then
   dofile(script)                         -- our connect.lua, by its path
else
   require(os.getenv("INNOSIM_WORKLOAD")) -- one of sysbench's scripts
end

if not sysbench.cmdline.options then
   -- oltp_common.lua declares its options, connect.lua none: once the probe
   -- declares its own, sysbench refuses an undeclared one, so declare the two
   -- that innosim live passes every script
   sysbench.cmdline.options = {tables = {"tables (connect reads none)", 1},
                               table_size = {"rows a table (connect reads none)", 1}}
end
sysbench.cmdline.options.rotation = {"connections used in turn by the one thread", 1}
sysbench.cmdline.options.rotation_warm = {"events before the measured ones", 2000}
sysbench.cmdline.options.rotation_events = {"measured events", 5000}
sysbench.cmdline.options.server_pid = {"the server's process id", 0}

local workload_init, workload_event = thread_init, event
local conns, cur, n, start, client_start

local function upcoming() return cur % #conns + 1 end
local param_proxy = setmetatable({}, {__index = function(_, key)
   return conns[upcoming()].param[key]
end})
local stmt_proxy = setmetatable({}, {__index = function(_, key)
   cur = upcoming()
   return conns[cur].stmt[key]
end})

local function server_ns()
   local f = io.popen("cat /proc/" .. sysbench.opt.server_pid .. "/task/*/schedstat")
   local sum, threads = 0, 0
   for line in f:lines() do
      sum, threads = sum + tonumber(line:match("^(%d+)")), threads + 1
   end
   f:close()
   if threads == 0 then
      error("no /proc/" .. sysbench.opt.server_pid .. "/task/*/schedstat to read (a kernel without CONFIG_SCHED_INFO?)")
   end
   return sum
end

function thread_init()
   conns, cur, n = {}, 0, 0
   for i = 1, sysbench.opt.rotation do
      workload_init()
      conns[i] = {con = con, stmt = stmt, param = param}
   end
   stmt, param = stmt_proxy, param_proxy
end

function event()
   n = n + 1
   if n == sysbench.opt.rotation_warm + 1 then
      start, client_start = server_ns(), os.clock()
   elseif n == sysbench.opt.rotation_warm + sysbench.opt.rotation_events + 1 then
      local client = os.clock() - client_start
      print(string.format("innosim-rotation events=%d server_ns=%d client_ns=%d",
                          sysbench.opt.rotation_events, server_ns() - start, client * 1e9))
   end
   workload_event()
end

function thread_done()
   for _, c in ipairs(conns) do
      con, stmt, param = c.con, c.stmt, c.param
      if close_statements then close_statements() end -- connect has no statements
      if con then con:disconnect() end                 -- nor a connection between events
   end
end
