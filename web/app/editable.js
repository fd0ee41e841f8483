// One editable resource of a page (the card, the evolution layer): loaded once, changed by
// requests that each return the new state, with one busy flag and one notice line.
import { useEffect, useState } from "preact/hooks";
import { api } from "./api.js";

/** `{data, error, busy, notice, run, reload}`; `run(request, doneText)` resolves true when it worked. */
export function useEditable(path, t) {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState("");
  useEffect(() => {
    api.get(path).then(setData).catch(setError);
  }, []);
  // Fetch again after a change made elsewhere (a request that does not return the new state).
  const reload = async () => setData(await api.get(path));
  const run = async (request, done) => {
    setBusy(true);
    setNotice("");
    try {
      setData(await request());
      setNotice(done);
      return true;
    } catch (err) {
      setNotice(`${t("card.failed")} ${err.message || ""}`);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { data, error, busy, notice, run, reload };
}
