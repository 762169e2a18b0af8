-- inapp/placements for an anonymous device (no push identity): only anonymous campaigns.
package.path = "bench/server/wrk/?.lua;" .. package.path
require "common"

local body = '{"max_placements":20}'

function request()
    return post_json(body, "a-" .. next_number())
end
