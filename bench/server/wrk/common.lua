-- Shared by the route scripts: numbers each wrk thread, builds the API's POST requests (and
-- the no-store route's body), and prints one parseable RESULT line: requests/s, p50 ms, p99 ms,
-- requests, non-2xx answers.
local threads = {}
local counter = 0
thread_id = 0
-- How many threads wrk runs (run.sh exports WRK_THREADS): scripts that split a list use it.
thread_count = tonumber(os.getenv("WRK_THREADS") or "1")

-- Unique to this wrk invocation (run.sh sets WRK_RUN for each): LuaJIT's math.random starts from
-- the same seed in every run, so without it a route's measured run repeated its warm-up's keys and
-- tokens, and push/subscribe measured idempotent replays instead of new devices.
local run = os.getenv("WRK_RUN") or tostring(os.time())

function setup(thread)
    thread:set("id", #threads)
    table.insert(threads, thread)
end

function init(args)
    thread_id = id
    -- Each thread of each run draws its own numbers (see `run` above).
    local seed = id * 7919
    for index = 1, #run do seed = (seed * 31 + run:byte(index)) % 2147483647 end
    math.randomseed(seed)
end

function next_number()
    counter = counter + 1
    return string.format("%s-%d-%d", run, thread_id, counter)
end

local rtoken = os.getenv("RTOKEN")

-- As a device's: an APNs token is 32 random bytes (64 hex characters). Numbered ones kept every
-- index's inserts in its last leaf, which real devices never do: a random token dirties a leaf of
-- its own, and that is what is measured.
function random_hex(count)
    local parts = {}
    for index = 1, count / 4 do parts[index] = string.format("%04x", math.random(0, 65535)) end
    return table.concat(parts)
end

-- The SDK's idempotency keys are time-ordered UUIDs (version 7: the milliseconds since 1970, then
-- random bits), so keys sent at the same moment by many devices fall on the same index leaves.
-- KEYS=random sends version 4 UUIDs instead (the SDK's keys before), to compare.
local ffi = require("ffi")
ffi.cdef [[
    typedef struct { long tv_sec; long tv_nsec; } tern_bench_timespec;
    int clock_gettime(int clock, tern_bench_timespec *time);
]]
local now = ffi.new("tern_bench_timespec")
local ordered_keys = (os.getenv("KEYS") or "ordered") ~= "random"

local function milliseconds_hex()
    ffi.C.clock_gettime(0, now)
    return string.format("%012x", tonumber(now.tv_sec) * 1000 + math.floor(tonumber(now.tv_nsec) / 1000000))
end

function uuid()
    local hex = random_hex(32)
    local variant = string.format("%x", 8 + math.random(0, 3))
    if ordered_keys then
        local time = milliseconds_hex()
        return time:sub(1, 8) .. "-" .. time:sub(9, 12) .. "-7" .. hex:sub(14, 16) .. "-" .. variant
            .. hex:sub(18, 20) .. "-" .. hex:sub(21, 32)
    end
    return hex:sub(1, 8) .. "-" .. hex:sub(9, 12) .. "-4" .. hex:sub(14, 16) .. "-" .. variant .. hex:sub(18, 20)
        .. "-" .. hex:sub(21, 32)
end

-- A JSON POST to the script's URL with the rToken and an idempotency key (a new UUID when none).
function post_json(body, idempotency_key)
    idempotency_key = idempotency_key or uuid()
    return wrk.format("POST", nil, {
        ["Content-Type"] = "application/json", ["X-Tern-RToken"] = rtoken, ["Idempotency-Key"] = idempotency_key,
    }, body)
end

-- A body shaped like event/push's (one delivery report for a made-up message "m-<n>"): what the
-- no-store route reads.
function delivery_event_body(n)
    return '{"events":[{"message_id":"m-' .. n .. '","type":"delivery","time":1700000000000}]}'
end

function done(summary, latency, requests)
    local seconds = summary.duration / 1000000
    local failures = summary.errors.status + summary.errors.connect + summary.errors.read
        + summary.errors.write + summary.errors.timeout
    io.write(string.format("RESULT %f %f %f %d %d\n", summary.requests / seconds,
        latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.requests, failures))
end
