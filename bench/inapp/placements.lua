-- inapp/placements for one identified device on screen "home" (its push token names its profile).
package.path = "bench/server/wrk/?.lua;" .. package.path
require "common"

local body = '{"provider":"ios-apns","subscription_id":"bench-device","screen":"home","max_placements":20}'

function request()
    return post_json(body, "p-" .. next_number())
end
