-- POST /device/apns/ to django-push-notifications: one new APNs device (a 64-hex token) per request.
package.path = "bench/server/wrk/?.lua;" .. package.path
require "common"

request = function()
    local body = '{"registration_id":"' .. random_hex(64) .. '","active":true,"name":"bench"}'
    return wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, body)
end
