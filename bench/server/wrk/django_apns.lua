-- POST /device/apns/ to django-push-notifications: one new APNs device (a 64-hex token) per request.
package.path = "bench/server/wrk/?.lua;" .. package.path
require "common"

request = function()
    next_number()
    local token = string.format("%08x%08x%08x%040x", thread_id, math.random(0, 0x7fffffff),
        math.random(0, 0x7fffffff), math.random(0, 0x7fffffff))
    local body = '{"registration_id":"' .. token .. '","active":true,"name":"bench"}'
    return wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, body)
end
