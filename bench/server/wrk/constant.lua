-- POST /bench/constant with a body like event/push's: the HTTP layer's ceiling.
package.path = "bench/server/wrk/?.lua;" .. package.path
require "common"

request = function()
    local n = next_number()
    return post_json(delivery_event_body(n), "c-" .. n)
end
