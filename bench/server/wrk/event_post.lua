-- POST event/post: one goal per request against the pixel the bench created (PIXEL_SID).
package.path = "bench/server/wrk/?.lua;" .. package.path
require "common"

local sid = os.getenv("PIXEL_SID") or "bench"

request = function()
    local n = next_number()
    local body = '{"events":[{"sid":"' .. sid .. '","client_id":"c-' .. n
        .. '","event_name":"purchase","payload":{"amount":1},"time":1700000000000}]}'
    return post_json(body)
end
