-- POST push/subscribe: a new token (a new profile and subscription) per request, sync answers.
package.path = "bench/server/wrk/?.lua;" .. package.path
require "common"

request = function()
    local n = next_number()
    local body = '{"time":1700000000000,"provider":"ios-apns","subscription_id":"bench-' .. n
        .. '","sync":true,"custom_fields":{"_os":"IOS","_device_model":"iPhone14,7"},'
        .. '"profile_fields":{"_fname":"Bench"}}'
    return post_json(body, "s-" .. n)
end
