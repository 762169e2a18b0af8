-- POST event/push: one delivery or open report per request for a delivery that exists. The bench
-- made real messages to its subscriptions first and wrote their deliveries' `tern.message_id`s
-- (`<message>.<delivery>`), one a line, to PUSH_IDS: each thread takes every n-th line, reports its
-- delivery, then its open, so each request is one counted insert until the thread runs out of lines
-- (it then starts again: repeats, which the server only looks up; the bench prints how many).
package.path = "bench/server/wrk/?.lua;" .. package.path
require "common"

local file = os.getenv("PUSH_IDS")
local mine = {}
local next_index = 0

local base_init = init
function init(args)
    base_init(args)
    local line_number = 0
    for line in io.lines(file) do
        if line_number % thread_count == thread_id then table.insert(mine, line) end
        line_number = line_number + 1
    end
    if #mine == 0 then error("event_push: no push ids for thread " .. thread_id .. " in " .. file) end
end

request = function()
    local slot = next_index % (2 * #mine)
    next_index = next_index + 1
    local push_id = mine[math.floor(slot / 2) + 1]
    local kind = (slot % 2 == 0) and "delivery" or "open"
    local body = '{"events":[{"message_id":"' .. push_id .. '","type":"' .. kind .. '","time":1700000000000}]}'
    return post_json(body)
end
