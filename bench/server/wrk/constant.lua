-- POST /bench/constant with a body like event/push's: the HTTP layer's ceiling.
package.path = "bench/server/wrk/?.lua;" .. package.path
require "common"

local rtoken = os.getenv("RTOKEN")

request = function()
    local n = next_number()
    local body = '{"events":[{"message_id":"m-' .. n .. '","type":"delivery","time":1700000000000}]}'
    return wrk.format("POST", nil, {
        ["Content-Type"] = "application/json", ["X-Tern-RToken"] = rtoken, ["Idempotency-Key"] = "c-" .. n,
    }, body)
end
