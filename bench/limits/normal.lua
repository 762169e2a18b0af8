-- The normal request beside the heavy ones: a small push/subscribe; prints p50/p95/p99.
package.path = "bench/server/wrk/?.lua;" .. package.path
require "common"

request = function()
    local n = next_number()
    local body = '{"time":1700000000000,"provider":"ios-apns","subscription_id":"normal-' .. n
        .. '","sync":true,"custom_fields":{"_os":"IOS"}}'
    return post_json(body, "n-" .. n)
end

done = function(summary, latency, requests)
    local seconds = summary.duration / 1000000
    io.write(string.format("RESULT %f %f %f %f %d %d\n", summary.requests / seconds,
        latency:percentile(50) / 1000, latency:percentile(95) / 1000, latency:percentile(99) / 1000,
        summary.requests, summary.errors.status))
end
