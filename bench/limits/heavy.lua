-- A client sending one body again and again (BODY_FILE): the largest the limits allow, or the
-- probe's 70,000-key body. Prints requests/s and how many were not 2xx.
package.path = "bench/server/wrk/?.lua;" .. package.path
require "common"

local file = io.open(os.getenv("BODY_FILE"), "rb")
local body = file:read("*a")
file:close()

request = function()
    return post_json(body, "h-" .. next_number())
end

done = function(summary, latency, requests)
    local seconds = summary.duration / 1000000
    io.write(string.format("HEAVY %f %d %d\n", summary.requests / seconds, summary.requests, summary.errors.status))
end
