// helm test: GET each URL given as an argument until it answers 2xx (6 tries, 5 s each, 2 s apart).
for (const url of process.argv.slice(1)) {
  let ok = false;
  for (let attempt = 0; attempt < 6 && !ok; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, 2000));
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      ok = res.ok;
      console.log(`${url}: ${res.status}`);
    } catch (err) {
      console.log(`${url}: ${err.message}`);
    }
  }
  if (!ok) process.exit(1);
}
