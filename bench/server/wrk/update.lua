-- POST push/update: the token of one of the subscriptions the bench created first (UPDATE_TOKENS of
-- them, "upd-0" ... ) keeps its place and gets new custom fields: a read of the profile and
-- subscription, an update, and the idempotency record, per request.
package.path = "bench/server/wrk/?.lua;" .. package.path
require "common"

local pool = tonumber(os.getenv("UPDATE_TOKENS") or "1000")

request = function()
    local n = next_number()
    local token = "upd-" .. math.random(0, pool - 1)
    local body = '{"provider":"ios-apns","old_provider":"ios-apns","old_subscription_id":"' .. token
        .. '","subscription_id":"' .. token .. '","custom_fields":{"_app_version":"' .. n .. '"}}'
    return post_json(body)
end
