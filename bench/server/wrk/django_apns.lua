-- POST /device/apns/ to django-push-notifications: one new APNs device (a 64-hex token) per request.
package.path = "bench/server/wrk/?.lua;" .. package.path
require "common"

request = function()
    local digits = next_number():gsub("-", "a")
    local token = string.rep("0", 64 - #digits) .. digits
    local body = '{"registration_id":"' .. token .. '","active":true,"name":"bench"}'
    return wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, body)
end
