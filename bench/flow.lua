-- wrk script for the create→verify flow: each answer to a create queues its trackId, and the next request a
-- connection of this thread sends verifies it; with none queued it creates. Creates and verifies alternate.
-- done() prints one JSON line: wrk's latency percentiles, counts, and answers that were not a spec result.
local counter = 0
local created = {}
local threads = {}
-- Globals, so that done() can read them from each thread.
flows, creates, bad = 0, 0, 0
firstBad = nil
local merchant = os.getenv('BENCH_MERCHANT') or 'sandbox'

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  wrk.method = 'POST'
  wrk.headers['Content-Type'] = 'application/json'
end

local function create()
  counter = counter + 1
  return wrk.format('POST', '/api/v1/request', nil,
    string.format('{"merchant":"%s","amount":%.2f,"callbackUrl":"http://127.0.0.1:9/callback","description":"bench order %d"}',
      merchant, 10 + (counter % 100) / 4, counter))
end

function request()
  local trackId = table.remove(created)
  if trackId == nil then return create() end
  return wrk.format('POST', '/api/v1/verify', nil, string.format('{"merchant":"%s","trackId":"%s"}', merchant, trackId))
end

function response(status, headers, body)
  local trackId = string.match(body, '"trackId":"([^"]+)"')
  local result = string.match(body, '"result":(%d+)')
  if status ~= 200 or result == nil then
    bad = bad + 1
    if firstBad == nil then firstBad = (string.gsub(status .. ' ' .. string.sub(body, 1, 160), '[%c"\\]', ' ')) end
    return
  end
  if result == '100' and trackId ~= nil then
    creates = creates + 1
    table.insert(created, trackId)
  else
    flows = flows + 1
  end
end

function done(summary, latency, requests)
  local f, c, b, first = 0, 0, 0, nil
  for _, thread in ipairs(threads) do
    f = f + thread:get('flows')
    c = c + thread:get('creates')
    b = b + thread:get('bad')
    first = first or thread:get('firstBad')
  end
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"flows":%d,"creates":%d,"bad":%d,"socketErrors":%d,"firstBad":"%s",' ..
    '"latencyUs":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}}\n',
    summary.requests, summary.duration, f, c, b, e.connect + e.read + e.write + e.timeout + e.status,
    first or '', latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
