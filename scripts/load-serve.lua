-- wrk script for scripts/load-serve.sh: each request probes a position drawn at
-- random from the file $POSITIONS (one URL path a line).
local paths = {}

function init(args)
  for line in io.lines(os.getenv("POSITIONS")) do
    paths[#paths + 1] = line
  end
  math.randomseed(os.time() + #paths)
end

function request()
  return wrk.format("GET", paths[math.random(#paths)])
end
