-- POST push/subscribe: a new device per request (a random 64-hex-character token: a new profile and
-- subscription), sync answers.
package.path = "bench/server/wrk/?.lua;" .. package.path
require "common"

request = function()
    local body = '{"time":1700000000000,"provider":"ios-apns","subscription_id":"' .. random_hex(64)
        .. '","sync":true,"custom_fields":{"_os":"IOS","_device_model":"iPhone14,7"},'
        .. '"profile_fields":{"_fname":"Bench"}}'
    return post_json(body)
end
