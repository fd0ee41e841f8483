// The zone the local-time tests are written for (London: UTC+1 in summer, UTC in winter), set
// before any date is formatted, so `node --test tests/` gives the same answers in any zone. A test
// file that formats local dates imports this first.
process.env.TZ = "Europe/London";
