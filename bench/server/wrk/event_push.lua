-- POST event/push: one delivery per request, a new message id each time.
package.path = "bench/server/wrk/?.lua;" .. package.path
require "common"

request = function()
    local n = next_number()
    return post_json(delivery_event_body(n), "e-" .. n)
end
