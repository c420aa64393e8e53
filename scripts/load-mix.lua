-- The request mix of `make load-test` (scripts/load-test.py), for wrk: 10% creates a note,
-- 45% lists a user's latest notes, 45% searches them for a word. Users and words are
-- chosen at random; the words are those the notes were seeded with (LOAD_WORDS, a file).

local words = {}
for line in io.lines(os.getenv("LOAD_WORDS")) do
  words[#words + 1] = line
end
local users = tonumber(os.getenv("LOAD_USERS"))

local function pick()
  return words[math.random(#words)]
end

function setup(thread)
  thread:set("seed", math.random(1, 1000000))
end

function init(args)
  math.randomseed(seed)
end

function request()
  local user = math.random(users)
  local roll = math.random(100)
  if roll <= 10 then
    local body = '{"title":"' .. pick() .. " " .. pick() .. '","body":"' .. pick() .. " " .. pick() .. " " .. pick() .. '"}'
    return wrk.format("POST", "/users/" .. user .. "/notes", { ["Content-Type"] = "application/json" }, body)
  elseif roll <= 55 then
    return wrk.format("GET", "/users/" .. user .. "/notes?limit=20")
  else
    return wrk.format("GET", "/users/" .. user .. "/notes/search?q=" .. pick() .. "&limit=20")
  end
end
